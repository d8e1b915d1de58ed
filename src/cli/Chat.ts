/** `aeon chat` and `aeon threads`: conversations in the terminal, loaded only when one of them runs. */
import { Cause, Effect, Exit, Fiber, FiberRef, HashSet, Layer, Option, Runtime, Stream } from "effect"
import { randomUUID } from "node:crypto"
import { createInterface } from "node:readline"
import { ANSWER_PROMPTS } from "../prompts/PromptId.js"
import type { RunResult } from "../record/RunResult.js"
import { prepare, prepareResume } from "../run/Run.js"
import * as StoredRuns from "../runs/StoredRuns.js"
import type { ThreadRow, ThreadTurn } from "../runs/StoredRuns.js"
import * as Database from "../store/Database.js"
import { fieldOf, stringField } from "../support/Fields.js"
import { CliError } from "./CliError.js"
import { engineLayer, modelFlagsOf, opt, withAgents } from "./Handlers.js"
import { problemLines } from "./Render.js"
import { personLogger } from "./Reporting.js"
import { inputOf } from "./RunFlags.js"
import { runOnServer, sayDroppedSettings, serverHoldingDataDir, startOnServer, threadsOnServer } from "./ViaServer.js"

export interface ChatOptions {
  readonly thread: Option.Option<string>
  readonly provider: Option.Option<string>
  readonly model: Option.Option<string>
  readonly baseUrl: Option.Option<string>
  readonly script: Option.Option<string>
  readonly mcp: Option.Option<string>
  readonly [field: string]: unknown
}

const say = (text: string) => void process.stdout.write(text)

/** How a turn ended, when it did not simply answer: its status and why, as `aeon run` says it (cli/Render). */
const ending = (r: RunResult) =>
  r.status === "CONVERGED"
    ? ""
    : r.status === "CANCELLED"
    ? "(turn stopped)\n"
    : `(${r.status.toLowerCase().replace("_", " ")}${r.terminationReason ? `: ${r.terminationReason}` : ""})\n${
      problemLines(r).map((l) => `${l}\n`).join("")
    }`

/**
 * A turn of the thread a dead process left unfinished (this process holds the embedded store: no other runs it),
 * resumed to its end before the next — a turn is never lost, and the thread is free again.
 */
const finishLeftTurns = (threadId: string, owner: string) =>
  Effect.gen(function*() {
    const config = yield* Effect.orDie(Database.databaseConfig)
    if (Option.isSome(config.url)) return
    const left = (yield* StoredRuns.unfinishedRuns).filter((r) =>
      (r.userId ?? "") === owner && fieldOf(r.input, "threadId") === threadId
    )
    for (const row of left) {
      say(`(finishing the turn left unfinished: ${row.task.slice(0, 60)})\n`)
      yield* Effect.flatMap(prepareResume(row.id), (p) => p.execute)
    }
  })

/** One turn here: the answer printed as it is written (an answer made with no call: printed whole at the end). */
const localTurn = (input: Record<string, unknown> & { readonly threadId: string }) =>
  Effect.gen(function*() {
    yield* finishLeftTurns(input.threadId, typeof input.userId === "string" ? input.userId : "")
    const p = yield* prepare(input)
    let printed = ""
    const live = yield* Effect.fork(Stream.runForEach(p.events.output, (d) =>
      Effect.sync(() => {
        if (!ANSWER_PROMPTS.includes(d.promptId) || d.answerText === undefined) return
        // a later answer call (another iteration) writes again what is on the screen: shown once it goes further
        if (!d.answerText.startsWith(printed)) return
        say(d.answerText.slice(printed.length))
        printed = d.answerText
      })))
    const result = yield* p.execute
    // what was written live is on the screen; the rest of the answer follows it
    yield* Fiber.interrupt(live)
    const answer = result.finalAnswer?.answerText ?? ""
    if (answer.startsWith(printed)) say(answer.slice(printed.length))
    else say(`\n${answer}`)
    say(`${answer === "" ? "" : "\n"}${ending(result)}`)
  })

/** One turn on the server holding the data directory: its answer printed when it has ended. */
const serverTurn = (url: string, input: Record<string, unknown>) =>
  Effect.map(runOnServer(url, startOnServer(url, input), () => undefined), (outcome) => {
    if (outcome._tag === "waiting") return say(`(the turn waits for a person: answer it at ${outcome.viewer})\n`)
    say(`${outcome.result.finalAnswer?.answerText ?? ""}\n${ending(outcome.result)}`)
  })

/**
 * The conversation loop: a line a turn, one turn at a time (lines typed or piped meanwhile wait); `/exit` or the end
 * of input leaves once the turn under way has ended; Ctrl-C stops the turn under way (the run ends CANCELLED, the
 * thread goes on) and, at the prompt, says how to leave.
 */
const converse = async <R>(
  runtime: Runtime.Runtime<R>,
  threadId: string,
  turn: (task: string) => Effect.Effect<void, unknown, R>,
  turns: { current?: Fiber.RuntimeFiber<void, unknown> | undefined }
) => {
  const rl = createInterface({ input: process.stdin, output: process.stdout, prompt: "you> " })
  const stop = () => {
    if (turns.current) Runtime.runFork(runtime)(Fiber.interrupt(turns.current))
    else say("\n(/exit to leave)\n")
  }
  rl.on("SIGINT", stop)
  process.on("SIGINT", stop)
  rl.prompt()
  try {
    for await (const line of rl) {
      const task = line.trim()
      if (task === "/exit") break
      if (task !== "") {
        say("aeon> ")
        turns.current = Runtime.runFork(runtime)(turn(task))
        const exit = await Runtime.runPromise(runtime)(Fiber.await(turns.current))
        turns.current = undefined
        if (Exit.isInterrupted(exit)) say("\n(turn stopped)\n")
        else if (Exit.isFailure(exit)) say(`(the turn failed: ${failureText(exit)})\n`)
      }
      rl.prompt()
    }
  } finally {
    process.off("SIGINT", stop)
    rl.close()
    say(`\nthread ${threadId} (go on with: aeon chat --thread ${threadId})\n`)
  }
}

/**
 * The conversation as an effect: interrupted (a SIGINT the terminal did not turn into a key, which ends the process),
 * the turn under way is stopped first — its run ends CANCELLED, here or on the server — before the process leaves.
 */
const conversing = <R>(threadId: string, turn: (task: string) => Effect.Effect<void, unknown, R>) =>
  Effect.flatMap(Effect.runtime<R>(), (runtime) =>
    Effect.async<void>((resume) => {
      const turns: { current?: Fiber.RuntimeFiber<void, unknown> | undefined } = {}
      void converse(runtime, threadId, turn, turns).then(() => resume(Effect.void), (e) => resume(Effect.die(e)))
      return Effect.suspend(() => (turns.current ? Fiber.interrupt(turns.current) : Effect.void))
    }))

const failureText = (exit: Exit.Exit<unknown, unknown>) =>
  Exit.isFailure(exit)
    ? Option.match(Cause.failureOption(exit.cause), {
      onNone: () => "see the log",
      onSome: (e) => stringField(e, "message") ?? String(e)
    })
    : ""

/** `aeon chat [--thread ID]`: a conversation in the terminal, each turn a run of the thread. */
export const chat = (o: ChatOptions) =>
  Effect.gen(function*() {
    const threadId = opt(o.thread) ?? `chat-${randomUUID().slice(0, 8)}`
    const fields = { ...inputOf(o), threadId }
    say(`aeon chat — thread ${threadId}. /exit to leave; Ctrl-C stops a turn.\n`)
    const server = yield* serverHoldingDataDir
    if (server !== undefined) {
      yield* sayDroppedSettings(server)
      return yield* conversing(threadId, (task) => serverTurn(server, { ...fields, task }))
    }
    yield* conversing(threadId, (task) => localTurn({ ...fields, task })).pipe(
      Effect.provide(withAgents(Layer.mergeAll(engineLayer(modelFlagsOf(o), opt(o.mcp)), Database.layerConfig)))
    )
  }).pipe(Effect.locallyWith(FiberRef.currentLoggers, () => HashSet.make(personLogger)))

const threadsTable = (rows: ReadonlyArray<ThreadRow>) =>
  rows.length === 0
    ? "no threads"
    : [
      `${"THREAD".padEnd(24)} ${"TURNS".padEnd(9)}  ${"UPDATED".padEnd(19)}  LAST TASK`,
      ...rows.map((t) =>
        `${t.id.padEnd(24)} ${`${t.turns} turn${t.turns === 1 ? "" : "s"}`.padEnd(9)}  ${
          t.updatedAt.toISOString().slice(0, 19).replace("T", " ")
        }  ${(t.lastTask ?? "").replace(/\s+/g, " ").slice(0, 60)}`
      )
    ].join("\n")

const turnsText = (id: string, turns: ReadonlyArray<ThreadTurn>) =>
  [
    `thread ${id}`,
    ...turns.map((t) =>
      `${String(t.turn).padStart(3)}. ${t.status.toLowerCase()}  ${t.runId}\n     you: ${
        t.task.replace(/\s+/g, " ")
      }\n     aeon: ${(t.answer ?? "(no answer)").replace(/\s+/g, " ").slice(0, 200)}`
    )
  ].join("\n")

/** What `aeon threads` shows: the threads, a thread's turns, or that it was erased. */
type Shown =
  | { readonly _tag: "threads"; readonly threads: ReadonlyArray<ThreadRow> }
  | { readonly _tag: "turns"; readonly turns: ReadonlyArray<ThreadTurn> | undefined }
  | { readonly _tag: "forgotten"; readonly gone: boolean }

const fromStore = (owner: string, id: string | undefined, first: number, forget: boolean) =>
  Effect.gen(function*() {
    if (id !== undefined && forget) {
      return { _tag: "forgotten", gone: yield* StoredRuns.threads.forget(owner, id) } satisfies Shown
    }
    if (id !== undefined) {
      return { _tag: "turns", turns: yield* StoredRuns.threads.turns(owner, id, first) } satisfies Shown
    }
    return { _tag: "threads", threads: yield* StoredRuns.threads.list(owner, first) } satisfies Shown
  }).pipe(Effect.provide(Database.layerConfig))

/** `aeon threads [ID] [--forget]`: the threads (of --user), a thread's turns, or a thread erased. */
export const threads = (o: {
  readonly threadId: Option.Option<string>
  readonly user: Option.Option<string>
  readonly limit: number
  readonly forget: boolean
  readonly json: boolean
}) =>
  Effect.gen(function*() {
    const id = opt(o.threadId)
    if (o.forget && id === undefined) throw new CliError("--forget needs the thread's id: aeon threads ID --forget")
    const first = Math.max(1, Math.min(100, o.limit))
    const server = yield* serverHoldingDataDir
    // beside the server holding the data directory, through it (the same rows)
    const shown: Shown = server !== undefined
      ? yield* threadsOnServer(server, { id, userId: opt(o.user), first, forget: o.forget })
      : yield* fromStore(opt(o.user) ?? "", id, first, o.forget)
    if (shown._tag === "forgotten") {
      if (!shown.gone) throw new CliError(`thread ${id} does not exist`)
      return say(`thread ${id} forgotten: its turns, their runs and its summaries are erased\n`)
    }
    if (shown._tag === "turns") {
      if (shown.turns === undefined) throw new CliError(`thread ${id} does not exist`)
      return say(o.json ? `${JSON.stringify(shown.turns, null, 2)}\n` : `${turnsText(id!, shown.turns)}\n`)
    }
    say(o.json ? `${JSON.stringify(shown.threads, null, 2)}\n` : `${threadsTable(shown.threads)}\n`)
  })
