import type { ChildProcess } from "node:child_process"

/**
 * Things that arrive while a test waits (webhook POSTs, a process's output): kept in order, and a wait woken by each
 * arrival — no poller, no fixed sleep. A wait that nothing answers ends with the test's timeout, or `timeoutMs`.
 */
export class Arrivals<A> {
  readonly all: Array<A> = []
  private readonly wakers = new Set<() => void>()
  private ended: string | undefined

  push(a: A) {
    this.all.push(a)
    for (const wake of [...this.wakers]) wake()
  }

  /** No more will arrive (a process exited): waits still unanswered fail with `why`. */
  end(why: string) {
    this.ended = why
    for (const wake of [...this.wakers]) wake()
  }

  /** The first answer `pick` gives over everything arrived so far, looked at again on each arrival. */
  until<B>(pick: (all: ReadonlyArray<A>) => B | undefined, timeoutMs = 30_000): Promise<B> {
    return new Promise<B>((resolve, reject) => {
      const settle = (f: () => void) => {
        this.wakers.delete(look)
        clearTimeout(timer)
        f()
      }
      const look = () => {
        const picked = pick(this.all)
        if (picked !== undefined) return settle(() => resolve(picked))
        if (this.ended !== undefined) settle(() => reject(new Error(`${this.ended} before the wait was answered`)))
      }
      const timer = setTimeout(
        () => settle(() => reject(new Error(`nothing answered the wait within ${timeoutMs} ms`))),
        timeoutMs
      )
      this.wakers.add(look)
      look()
    })
  }
}

/** A child process's output (stdout and stderr as they come): its text so far, and waits for what it will say. */
export const outputOf = (child: ChildProcess) => {
  const chunks = new Arrivals<string>()
  let out = ""
  let err = ""
  child.stdout?.on("data", (d) => {
    out += d
    chunks.push(String(d))
  })
  child.stderr?.on("data", (d) => {
    err += d
    chunks.push(String(d))
  })
  child.once("exit", (code) => chunks.end(`the process exited (${code})`))
  const text = () => chunks.all.join("")
  return {
    text,
    out: () => out,
    err: () => err,
    /** What the output says once it says `pattern` (a string: the text so far; a RegExp: its match). */
    until: (pattern: string | RegExp, timeoutMs?: number) =>
      chunks.until((all) => {
        const said = all.join("")
        if (typeof pattern === "string") return said.includes(pattern) ? said : undefined
        return said.match(pattern) ?? undefined
      }, timeoutMs)
  }
}
