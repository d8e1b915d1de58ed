import { Effect, Option, Schema } from "effect"
import { createClient } from "graphql-sse"
import { RunEvent } from "../domain/RunEvent.js"
import { isFinal, RUN_STATUSES } from "../domain/RunStatus.js"
import { openRequests } from "../record/Requests.js"
import { foldEvents } from "../record/RunRecord.js"
import { resultFromEvents, type RunResult } from "../record/RunResult.js"
import * as Database from "../store/Database.js"
import { serverHolding } from "../store/ServerAddress.js"
import { fieldOf, stringField } from "../support/Fields.js"
import { answerCommand } from "./Asking.js"
import { CliError } from "./CliError.js"
import { printResult } from "./Printing.js"
import { makeProgress } from "./Progress.js"

/**
 * `aeon run` beside a running server: the server holding the embedded data directory (store/ServerAddress) runs the
 * task — one process writes the directory, and the run shows in that server's viewer — while the CLI follows its
 * events over GraphQL (SSE) and prints the result as it does for a run of its own (the same fold of the same events).
 */

const headers = (): Record<string, string> => {
  const key = process.env.AEON_API_KEY?.split(",")[0]?.trim()
  return { "x-graphql-yoga-csrf": "1", ...(key ? { authorization: `Bearer ${key}` } : {}) }
}

/** The words of a GraphQL answer's errors, when it has any. */
const errorsOf = (body: unknown): string | undefined => {
  const errors = fieldOf(body, "errors")
  return Array.isArray(errors) && errors.length > 0
    ? errors.map((e: unknown) => stringField(e, "message") ?? "error").join("; ")
    : undefined
}

/**
 * One GraphQL operation on the server, its data decoded by `data` (a server of another version answering in another
 * shape is said so, not read wrong); its errors as the CLI's (their words, no stack).
 */
export const operation = <A, I>(
  url: string,
  query: string,
  variables: Record<string, unknown>,
  data: Schema.Schema<A, I>
) =>
  Effect.tryPromise({
    try: async (): Promise<unknown> => {
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers() },
        body: JSON.stringify({ query, variables })
      })
      return await res.json()
    },
    catch: () => new CliError(`cannot reach the Aeon server at ${url}, which holds this data directory`)
  }).pipe(
    Effect.flatMap((body) => {
      const errors = errorsOf(body)
      return errors !== undefined ? Effect.fail(new CliError(errors)) : Effect.succeed(fieldOf(body, "data"))
    }),
    Effect.flatMap((d) =>
      Schema.decodeUnknown(data)(d).pipe(
        Effect.mapError(() => new CliError(`the Aeon server at ${url} answered in a shape this CLI does not read`))
      )
    )
  )

/** A server's event as GraphQL gives it (its payload the event's content). */
const ServedEvent = Schema.Struct({
  type: Schema.String,
  runId: Schema.String,
  seq: Schema.Number,
  at: Schema.String,
  payload: Schema.Record({ key: Schema.String, value: Schema.Unknown })
})

const decodeEvent = Schema.decodeUnknownSync(RunEvent)

/** A runEvents message as the run's event (its payload is the event's content). */
const eventOf = (e: typeof ServedEvent.Type) =>
  decodeEvent({ ...e.payload, _tag: e.type, runId: e.runId, seq: e.seq, at: Date.parse(e.at) })

/**
 * The run's events, each told to `onEvent`, until it ends or waits for a person (a request open): then what the
 * events say — its result, or that it waits.
 */
const followed = (url: string, runId: string, onEvent: (e: RunEvent) => void) =>
  Effect.tryPromise({
    try: async (signal) => {
      const client = createClient({ url, headers, retryAttempts: 0 })
      const events: Array<RunEvent> = []
      // interrupted (Ctrl-C): the subscription ends at once, not at the run's next event
      signal.addEventListener("abort", () => client.dispose(), { once: true })
      try {
        for await (
          const r of client.iterate<{ runEvents: Parameters<typeof eventOf>[0] }>({
            query: `subscription($id: ID!) { runEvents(runId: $id, fromSeq: 0) { type runId seq at payload } }`,
            variables: { id: runId }
          })
        ) {
          const event = eventOf(r.data!.runEvents)
          events.push(event)
          onEvent(event)
          if (event._tag === "RunFinished" || openRequests(foldEvents(events)).length > 0) break
        }
      } finally {
        client.dispose()
      }
      return events
    },
    catch: (e) => new CliError(`lost the run ${runId} on the server at ${url}: ${e instanceof Error ? e.message : e}`)
  })

export type ViaServer =
  | { readonly _tag: "done"; readonly result: RunResult }
  | {
    readonly _tag: "waiting"
    readonly runId: string
    readonly viewer: string
    /** How to answer each open request from the command line (it goes on on the server once answered). */
    readonly commands: ReadonlyArray<string>
  }

/** Starts `input` on the server at `url`: the run's id. */
export const startOnServer = (url: string, input: Record<string, unknown>) =>
  Effect.map(
    operation(
      url,
      `mutation($input: RunTaskInput!) { runTask(input: $input) { id } }`,
      { input },
      Schema.Struct({ runTask: Schema.Struct({ id: Schema.String }) })
    ),
    (d) => d.runTask.id
  )

/**
 * Starts a run on the server at `url` (`start`: a task, a fork) and follows it to its end, or to a person's turn.
 */
export const runOnServer = <E>(url: string, start: Effect.Effect<string, E>, onEvent: (e: RunEvent) => void) =>
  Effect.uninterruptibleMask((restore) =>
    Effect.gen(function*() {
      // the start is not cut off unanswered: a Ctrl-C while it is sent still learns the run's id, and cancels it
      const runId = yield* start
      // the client going away on purpose (Ctrl-C, a chat's turn stopped) cancels the run it started on the server
      const events = yield* restore(followed(url, runId, onEvent)).pipe(
        Effect.onInterrupt(() =>
          Effect.ignore(cancelOnServer(url, runId)).pipe(
            Effect.zipRight(Effect.sync(() => process.stderr.write(`aeon: cancelled run ${runId} on the server\n`)))
          )
        )
      )
      const viewer = `${url.replace(/\/graphql$/, "/runs")}/${encodeURIComponent(runId)}`
      const outcome: ViaServer = events.some((e) => e._tag === "RunFinished")
        ? { _tag: "done", result: resultFromEvents(events) }
        : { _tag: "waiting", runId, viewer, commands: openRequests(foldEvents(events)).map(answerCommand) }
      return outcome
    })
  )

/**
 * Cancels a run on the server (`aeon cancel`, a Ctrl-C of a run it started): its status after, and whether this call
 * ended it (a run that had ended is as it was).
 */
export const cancelOnServer = (url: string, runId: string) =>
  Effect.gen(function*() {
    const status = Schema.Struct({ status: Schema.String })
    const before = yield* operation(
      url,
      `query($id: ID!) { run(id: $id) { status } }`,
      { id: runId },
      Schema.Struct({
        run: Schema.NullOr(status)
      })
    )
    if (before.run === null) return yield* Effect.fail(new CliError(`run ${runId} does not exist`))
    if (isFinal(before.run.status)) return { status: before.run.status, ended: false }
    const after = yield* operation(
      url,
      `mutation($id: ID!) { cancelRun(id: $id) { status } }`,
      { id: runId },
      Schema.Struct({
        cancelRun: status
      })
    )
    return { status: after.cancelRun.status, ended: after.cancelRun.status === "CANCELLED" }
  })

/** A run's stored events, read from the server (`aeon inspect` beside it); undefined when it has no such run. */
export const eventsOnServer = (url: string, runId: string) =>
  Effect.map(
    operation(
      url,
      `query($id: ID!) { run(id: $id) { events { type runId seq at payload } } }`,
      { id: runId },
      Schema.Struct({ run: Schema.NullOr(Schema.Struct({ events: Schema.Array(ServedEvent) })) })
    ),
    (d): ReadonlyArray<RunEvent> | undefined => d.run?.events.map(eventOf)
  )

/** The server holding the embedded data directory this CLI would open, if one serves from it now. */
export const serverHoldingDataDir = Effect.map(
  Effect.orDie(Database.databaseConfig),
  (c) => (Option.isNone(c.url) && c.dataDir !== "memory" ? serverHolding(c.dataDir) : undefined)
)

/** The settings of a model and its tools a CLI beside a server does not use: the server runs with its own. */
const MODEL_SETTINGS = [
  "AEON_MODEL_PROVIDER",
  "AEON_MODEL",
  "AEON_MODELS",
  "AEON_LLM_API_KEY",
  "AEON_LLM_BASE_URL",
  "OPENAI_API_KEY",
  "OPENAI_BASE_URL",
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_BASE_URL",
  "GOOGLE_API_KEY",
  "GEMINI_API_KEY",
  "GOOGLE_GEMINI_BASE_URL",
  "AEON_SCRIPT",
  "AEON_MCP_CONFIG"
]

/**
 * Said in one line before a run starts through a server (on stderr, also with --json): the model and tool settings
 * of this shell that the server does not take — its own model runs the task (`OPENAI_API_KEY=… aeon run` beside
 * `npm start` once ran offline on the server without a word).
 */
export const sayDroppedSettings = (url: string) =>
  Effect.gen(function*() {
    const set = MODEL_SETTINGS.filter((name) => (process.env[name] ?? "") !== "")
    if (set.length === 0) return
    const model = yield* operation(
      url,
      `{ health { model } }`,
      {},
      Schema.Struct({
        health: Schema.Struct({ model: Schema.String })
      })
    ).pipe(Effect.map((d) => d.health.model), Effect.orElseSucceed(() => "its own"))
    process.stderr.write(
      `aeon: ${set.join(", ")} ${set.length === 1 ? "is" : "are"} not used: the server at ${url} runs the task ` +
        `with its model (${model}); to use ${set.length === 1 ? "it" : "them"}, stop the server or set AEON_DATA_DIR ` +
        `to another directory\n`
    )
  })

/** The flags naming a model or tools of the CLI's own, which a server beside it cannot use (it runs with its own). */
export const ownModelFlags = (o: {
  readonly provider: Option.Option<string>
  readonly model: Option.Option<string>
  readonly baseUrl: Option.Option<string>
  readonly script: Option.Option<string>
  readonly mcp?: Option.Option<string> | undefined
}) =>
  Object.entries({ provider: o.provider, model: o.model, "base-url": o.baseUrl, script: o.script, mcp: o.mcp })
    .flatMap(([flag, v]) => (v !== undefined && Option.isSome(v) ? [`--${flag}`] : []))

/** Whether a command's progress is redrawn in place: on a terminal, without --json. */
export const liveOutput = (json: boolean) => process.stdout.isTTY && (process.stdout.columns ?? 0) > 0 && !json

/** `aeon run` through the server at `url` (runOnServer): its progress, then its result printed as a run of ours. */
export const runThroughServer = <E>(
  url: string,
  start: Effect.Effect<string, E>,
  o: { readonly own: ReadonlyArray<string>; readonly json: boolean; readonly live: boolean; readonly typed: boolean }
) =>
  Effect.gen(function*() {
    if (o.own.length > 0) {
      throw new CliError(
        `the Aeon server at ${url} holds this data directory and runs with its own model and tools: ` +
          `${o.own.join(", ")} cannot be used (stop the server, or set AEON_DATA_DIR to another directory)`
      )
    }
    if (!o.json) process.stderr.write(`aeon: running on the server at ${url} (it holds this data directory)\n`)
    yield* sayDroppedSettings(url)
    const progress = o.live ? makeProgress("the server's model") : undefined
    const outcome = yield* runOnServer(url, start, (e) => progress?.onEvent(e))
    progress?.done()
    if (outcome._tag === "waiting") {
      process.stdout.write(
        `run ${outcome.runId} waits for a person: ${
          [...outcome.commands, `or at ${outcome.viewer}`].join(", ")
        } (it goes on on the server)\n`
      )
      process.exitCode = 3
      return
    }
    yield* printResult(outcome.result, o.json, o.typed)
  })

/** `{ edges: [{ node }] }`: a GraphQL connection of `node`s. */
export const Connection = <A, I>(node: Schema.Schema<A, I>) =>
  Schema.Struct({ edges: Schema.Array(Schema.Struct({ node })) })

const ServedTurn = Schema.Struct({
  turn: Schema.Number,
  runId: Schema.String,
  task: Schema.String,
  status: Schema.Literal(...RUN_STATUSES),
  answer: Schema.NullOr(Schema.String),
  data: Schema.Unknown,
  createdAt: Schema.String
})

const ServedThread = Schema.Struct({
  id: Schema.String,
  userId: Schema.NullOr(Schema.String),
  createdAt: Schema.String,
  updatedAt: Schema.String,
  turnCount: Schema.Number,
  lastTask: Schema.NullOr(Schema.String)
})

/** `aeon threads` beside the server holding the data directory: its threads, a thread's turns, or one erased. */
export const threadsOnServer = (
  url: string,
  q: {
    readonly id?: string | undefined
    readonly userId?: string | undefined
    readonly first: number
    readonly forget: boolean
  }
) =>
  q.id !== undefined && q.forget
    ? Effect.map(
      operation(
        url,
        `mutation($id: ID!, $userId: ID) { forgetThread(id: $id, userId: $userId) }`,
        q,
        Schema.Struct({ forgetThread: Schema.Boolean })
      ),
      (d) => ({ _tag: "forgotten" as const, gone: d.forgetThread })
    )
    : q.id !== undefined
    ? Effect.map(
      operation(
        url,
        `query($id: ID!, $userId: ID, $first: Int) { thread(id: $id, userId: $userId) {
          turns(first: $first) { edges { node { turn runId task status answer data createdAt } } } } }`,
        q,
        Schema.Struct({ thread: Schema.NullOr(Schema.Struct({ turns: Connection(ServedTurn) })) })
      ),
      (d) => ({
        _tag: "turns" as const,
        turns: d.thread === null
          ? undefined
          : d.thread.turns.edges.map(({ node }) => ({
            ...node,
            createdAt: new Date(node.createdAt)
          }))
      })
    )
    : Effect.map(
      operation(
        url,
        `query($userId: ID, $first: Int) { threads(userId: $userId, first: $first) {
          edges { node { id userId createdAt updatedAt turnCount lastTask } } } }`,
        q,
        Schema.Struct({ threads: Connection(ServedThread) })
      ),
      (d) => ({
        _tag: "threads" as const,
        threads: d.threads.edges.map(({ node }) => ({
          id: node.id,
          owner: node.userId ?? "",
          createdAt: new Date(node.createdAt),
          updatedAt: new Date(node.updatedAt),
          turns: node.turnCount,
          lastTask: node.lastTask
        }))
      })
    )
