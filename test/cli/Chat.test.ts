import { spawn } from "node:child_process"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { cliIn } from "../support/cli.js"

/** What is typed once the screen shows `after` for the `count`th time ("\x03" is Ctrl-C). */
interface Keys {
  readonly after: string
  readonly count: number
  readonly type: string
}

/** `aeon ARGS` on a pseudo-terminal (util-linux `script`), typed at as a person types: the whole screen, its exit. */
const typedAt = (env: Record<string, string>, args: string, keys: ReadonlyArray<Keys>) => {
  const child = spawn("script", [
    "-qec",
    `stty cols 120 rows 40; ${process.execPath} bin/aeon.mjs ${args}`,
    "/dev/null"
  ], {
    env,
    stdio: ["pipe", "pipe", "pipe"]
  })
  let out = ""
  let next = 0
  child.stdout.on("data", (d) => {
    out += d
    const k = keys[next]
    if (k && out.split(k.after).length - 1 >= k.count) {
      next++
      child.stdin.write(k.type)
    }
  })
  const timer = setTimeout(() => child.kill(), 90_000)
  return new Promise<{ out: string; code: number | null; typed: number }>((resolve) =>
    child.once("exit", (code) => {
      clearTimeout(timer)
      resolve({ out, code, typed: next })
    })
  )
}

const answer = (answerText: string, chunkDelayMs = 0) => ({
  output: { answerText, confidence: 0.9, usedStepIds: ["s1"] },
  chunkDelayMs
})

describe("aeon chat (#56): a conversation in the terminal", () => {
  it("each line a turn that sees the ones before; Ctrl-C stops a turn and not the chat; /exit; the thread id", async () => {
    const { aeon, dir, env } = cliIn("aeon-chat-")
    const script = join(dir, "script.json")
    writeFileSync(
      script,
      JSON.stringify({
        fallback: "offline",
        answer_synthesis_user: [
          answer("Noted: your boat is called Saltire."),
          answer("Your boat is called Saltire."),
          // written slowly: stopped by Ctrl-C while it is written
          answer(`Slowly: ${"forty-two ".repeat(60)}`, 150),
          answer("You said your boat is called Saltire.")
        ]
      })
    )
    const screen = await typedAt(env, `chat --thread boat --mode full --script ${script}`, [
      { after: "you> ", count: 1, type: "Remember: my boat is called Saltire.\r" },
      { after: "you> ", count: 2, type: "What is my boat called?\r" },
      { after: "you> ", count: 3, type: "Compute 6 * 7\r" },
      { after: "Slowly: forty-two", count: 1, type: "\x03" },
      { after: "you> ", count: 4, type: "What was the first thing I said?\r" },
      { after: "you> ", count: 5, type: "/exit\r" }
    ])
    expect(screen.typed).toBe(6)
    expect(screen.code).toBe(0)
    expect(screen.out).toContain("thread boat")
    expect(screen.out).toContain("Your boat is called Saltire.")
    expect(screen.out).toContain("(turn stopped)")
    expect(screen.out).toContain("go on with: aeon chat --thread boat")
    // the answer was shown as it was written: cut where Ctrl-C stopped it
    expect(screen.out).not.toContain(`Slowly: ${"forty-two ".repeat(60)}`)

    const turns = JSON.parse((await aeon("threads", "boat", "--json")).stdout) as Array<
      { turn: number; runId: string; task: string; status: string }
    >
    expect(turns.map((t) => t.task)).toEqual([
      "Remember: my boat is called Saltire.",
      "What is my boat called?",
      "Compute 6 * 7",
      "What was the first thing I said?"
    ])
    // the offline stand-in's reviews do not converge these; the stopped turn is the one cancelled
    expect(turns.map((t) => t.status === "CANCELLED")).toEqual([false, false, true, false])
    // the second turn's plan was asked with the first turn quoted
    const calls = JSON.parse((await aeon("inspect", turns[1]!.runId, "--calls", "--json")).stdout) as Array<
      { promptId: string; user: string }
    >
    const plan = calls.find((c) => c.promptId.startsWith("plan_"))
    expect(plan?.user).toContain(`{"user":"Remember: my boat is called Saltire."}`)
    expect(plan?.user).toContain(`{"assistant":"Noted: your boat is called Saltire."}`)
    // and the turn after the stopped one still sees the whole conversation
    const last = JSON.parse((await aeon("inspect", turns[3]!.runId, "--calls", "--json")).stdout) as Array<
      { promptId: string; user: string }
    >
    expect(last.find((c) => c.promptId.startsWith("plan_"))?.user).toContain("Saltire")
    // aeon inspect says what a turn quoted
    expect((await aeon("inspect", turns[1]!.runId)).stdout).toContain(
      "turn 2 of thread boat: 2 earlier messages quoted in"
    )
    const listed = await aeon("threads")
    expect(listed.stdout).toMatch(/boat\s+4 turns/)
  })

  it("aeon run --thread, aeon threads, aeon threads ID --forget", async () => {
    const { aeon } = cliIn("aeon-threads-")
    expect((await aeon("run", "--thread", "sums", "Compute 6 * 7")).code).toBe(0)
    expect((await aeon("run", "--thread", "sums", "Compute 8 * 9")).code).toBe(0)
    const turns = JSON.parse((await aeon("threads", "sums", "--json")).stdout) as Array<
      { task: string; answer: string }
    >
    expect(turns.map((t) => t.task)).toEqual(["Compute 6 * 7", "Compute 8 * 9"])
    const shown = await aeon("threads", "sums")
    expect(shown.stdout).toMatch(/1\. converged[\s\S]*you: Compute 6 \* 7[\s\S]*aeon: 42/)
    expect((await aeon("threads")).stdout).toMatch(/sums\s+2 turns/)
    const forgotten = await aeon("threads", "sums", "--forget")
    expect(forgotten.stdout).toContain("thread sums forgotten")
    const gone = await aeon("threads", "sums")
    expect([gone.code, gone.stderr]).toEqual([1, expect.stringContaining("thread sums does not exist")])
    const bad = await aeon("run", "--thread", "not a thread id", "Compute 1 + 1")
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain("threadId must be")
  })

  it(
    "offline, a follow-up takes the number of the turn before it (#76.4): 45, then 90; a turn that does not converge says why",
    async () => {
      const { env } = cliIn("aeon-chat-offline-")
      const r = await typedAt(env, "chat --thread sums-offline", [
        { after: "you> ", count: 1, type: "What is 6 * 7 plus 3?\r" },
        { after: "you> ", count: 2, type: "Multiply that by 2\r" },
        { after: "you> ", count: 3, type: "What is the population of Zembla?\r" },
        { after: "you> ", count: 4, type: "/exit\r" }
      ])
      expect(r.typed).toBe(4)
      // eslint-disable-next-line no-control-regex -- the terminal's colour codes, taken out
      const screen = r.out.replace(/\r/g, "").replace(/\x1b\[[0-9;]*m/g, "")
      expect(screen).toMatch(/aeon> (?:\[offline rule-based stand-in\]\n)?45\n/)
      expect(screen).toMatch(/aeon> (?:\[offline rule-based stand-in\]\n)?90\n/)
      // not "(not converged)" alone: how it ended and why, as aeon run says it
      expect(screen).toMatch(/\(not converged: \w+\)\nstep s1 blocked: .*cannot do/)
    },
    120_000
  )
})
