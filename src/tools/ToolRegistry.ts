import { Clock, Context, Effect, Layer, ParseResult, Ref, Schema } from "effect"
import type { Memory, RecalledMemory } from "../domain/Memory.js"
import type { ChildRun } from "../domain/RunEvent.js"
import { traced } from "../telemetry/Span.js"
import { CalculatorError, evaluate } from "./Calculator.js"

export class ToolInputError extends Schema.TaggedError<ToolInputError>()("ToolInputError", {
  tool: Schema.String,
  message: Schema.String
}) {}
export class ToolFailedError extends Schema.TaggedError<ToolFailedError>()("ToolFailedError", {
  tool: Schema.String,
  message: Schema.String
}) {}
export class ToolTimeoutError extends Schema.TaggedError<ToolTimeoutError>()("ToolTimeoutError", {
  tool: Schema.String,
  timeoutMs: Schema.Number
}) {}
export class UnknownToolError extends Schema.TaggedError<UnknownToolError>()("UnknownToolError", {
  tool: Schema.String,
  available: Schema.Array(Schema.String)
}) {}
/** A call to a tool whose MCP server is not connected (it exited, dropped its connection or never started). */
export class McpServerUnavailableError
  extends Schema.TaggedError<McpServerUnavailableError>()("McpServerUnavailableError", {
    tool: Schema.String,
    server: Schema.String,
    message: Schema.String
  })
{}
export type ToolError =
  | ToolInputError
  | ToolFailedError
  | ToolTimeoutError
  | UnknownToolError
  | McpServerUnavailableError

/** The user's notes across runs, as the run's step sees them (absent when the run's memory is off). */
export interface Notes {
  readonly remember: (text: string, tags?: ReadonlyArray<string>) => Effect.Effect<Memory, { readonly reason: string }>
  readonly recall: (
    query: string,
    limit?: number
  ) => Effect.Effect<ReadonlyArray<RecalledMemory>, { readonly reason: string }>
}

/** What a tool sees of the run: its id, its short-term memory, and its user's notes across runs. */
export interface ToolContext {
  readonly runId: string
  readonly memory: Ref.Ref<ReadonlyMap<string, unknown>>
  readonly notes?: Notes | undefined
  /** The step that makes the call (absent outside a run's step). */
  readonly step?: { readonly stepId: string; readonly passNumber: number } | undefined
  /** What the call says of itself in its ToolInvoked event: a child run it made, a remote task's id. */
  readonly report?: ((said: CallReport) => void) | undefined
}

/** What a call tells its event about itself (agents as tools, remote A2A agents). */
export interface CallReport {
  readonly childRun?: ChildRun
  readonly remoteTaskId?: string
  /** Called once the call's event is recorded (a child run's hold on the budget let go then). */
  readonly onRecorded?: () => void
}

export interface Tool<I = any, O = any> {
  readonly name: string
  readonly description: string
  readonly input: Schema.Schema<I, any>
  readonly output: Schema.Schema<O, any>
  readonly timeoutMs: number
  readonly idempotent: boolean
  /** Named operations a step may ask for (toolInput.operation); empty when the tool has none. */
  readonly operations?: ReadonlyArray<string>
  /**
   * The tool's run never suspends (a pure computation, in-memory state): it runs without a timer or a fiber
   * of its own, which cost more than such a tool does. A timeout could not interrupt synchronous code anyway.
   * A tool that waits on I/O must not declare it: it would run without its timeout.
   */
  readonly synchronous?: boolean
  /** A person approves each call first (or the calls whose input this says yes to): see the README's "Approvals". */
  readonly needsApproval?: boolean | ((input: unknown) => boolean)
  /** Only reads: an interruption of the run (deadline, cancel) cuts the call off instead of waiting for it. */
  readonly interruptible?: boolean
  /** May destroy or overwrite something: it waits for approval when the approval list holds `*`. */
  readonly destructive?: boolean
  /**
   * Its result is written by others (a mail, a page, a file): untrusted data that may not steer a call with side
   * effects (docs/untrusted-data.md). Default: a tool of an MCP server does; a tool written in TypeScript does not.
   */
  readonly readsOutside?: boolean
  /**
   * Its call changes something outside the run (sends, pays, deletes). Default: an MCP tool not marked read-only; a
   * tool written in TypeScript that is not idempotent or is destructive.
   */
  readonly actsOutside?: boolean
  /** The MCP server the tool comes from (its name is `server.tool`); absent for tools written in TypeScript. */
  readonly server?: string
  /** The input's JSON Schema as its server gave it: prompts show it so that a model can fill the input. */
  readonly inputJsonSchema?: Record<string, unknown>
  readonly run: (
    input: I,
    context: ToolContext
  ) => Effect.Effect<O, ToolFailedError | ToolTimeoutError | McpServerUnavailableError>
}

export const tool = <I, O>(t: Tool<I, O>): Tool<I, O> => t

/** Whether the tool's result is untrusted data (it reads the outside world). */
export const readsOutside = (t: Tool) => t.readsOutside ?? t.server !== undefined

/** Whether the tool's call has side effects outside the run (what untrusted data may not steer). */
export const actsOutside = (t: Tool) =>
  t.actsOutside ?? (t.server !== undefined ? t.interruptible !== true : !t.idempotent || t.destructive === true)

export const calculator = tool({
  name: "calculator",
  description: "Evaluates an arithmetic expression (+ - * / % ^ and parentheses) exactly.",
  input: Schema.Struct({ expression: Schema.String.pipe(Schema.minLength(1)) }),
  output: Schema.Struct({ expression: Schema.String, value: Schema.Number }),
  timeoutMs: 1_000,
  idempotent: true,
  synchronous: true,
  run: ({ expression }) =>
    Effect.try({
      try: () => ({ expression, value: evaluate(expression) }),
      catch: (e) =>
        new ToolFailedError({ tool: "calculator", message: e instanceof CalculatorError ? e.message : String(e) })
    })
})

export const memoryWrite = tool({
  name: "memory.write",
  description: "Stores a value under a key in the run's short-term memory.",
  input: Schema.Struct({ key: Schema.String.pipe(Schema.minLength(1)), value: Schema.Unknown }),
  output: Schema.Struct({ key: Schema.String, written: Schema.Boolean }),
  timeoutMs: 1_000,
  idempotent: true,
  synchronous: true,
  run: ({ key, value }, ctx) =>
    Ref.update(ctx.memory, (m) => new Map(m).set(key, value)).pipe(Effect.as({ key, written: true }))
})

export const memoryRead = tool({
  name: "memory.read",
  description: "Reads a value from the run's short-term memory (found false when absent).",
  input: Schema.Struct({ key: Schema.String.pipe(Schema.minLength(1)) }),
  output: Schema.Struct({ key: Schema.String, found: Schema.Boolean, value: Schema.optional(Schema.Unknown) }),
  timeoutMs: 1_000,
  idempotent: true,
  synchronous: true,
  run: ({ key }, ctx) =>
    Ref.get(ctx.memory).pipe(
      Effect.map((m) => (m.has(key) ? { key, found: true, value: m.get(key) } : { key, found: false }))
    )
})

export const clockNow = tool({
  name: "clock.now",
  description: "Returns the current time (ISO 8601 and epoch milliseconds).",
  input: Schema.Struct({}),
  output: Schema.Struct({ iso: Schema.String, epochMs: Schema.Number }),
  timeoutMs: 1_000,
  idempotent: true,
  synchronous: true,
  run: () => Clock.currentTimeMillis.pipe(Effect.map((ms) => ({ iso: new Date(ms).toISOString(), epochMs: ms })))
})

const notesOf = (ctx: ToolContext, tool: string): Effect.Effect<Notes, ToolFailedError> =>
  ctx.notes ? Effect.succeed(ctx.notes) : Effect.fail(
    new ToolFailedError({ tool, message: "memory across runs is off for this run (its input, or AEON_MEMORY=off)" })
  )
const unavailable = (tool: string) => (e: { readonly reason: string }) =>
  new ToolFailedError({ tool, message: `memory unavailable: ${e.reason}` })

export const memoryRemember = tool({
  name: "memory.remember",
  description: "Keeps a note for the user's later runs.",
  input: Schema.Struct({
    text: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(2_000)),
    tags: Schema.optional(Schema.Array(Schema.String))
  }),
  output: Schema.Struct({ id: Schema.String, remembered: Schema.Boolean }),
  timeoutMs: 5_000,
  idempotent: false,
  run: ({ tags, text }, ctx) =>
    notesOf(ctx, "memory.remember").pipe(
      Effect.flatMap((notes) => Effect.mapError(notes.remember(text, tags), unavailable("memory.remember"))),
      Effect.map((m) => ({ id: m.id, remembered: true }))
    )
})

export const memoryRecall = tool({
  name: "memory.recall",
  description: "Finds notes and results of the user's earlier runs.",
  input: Schema.Struct({
    query: Schema.String.pipe(Schema.minLength(1)),
    limit: Schema.optional(Schema.Int.pipe(Schema.between(1, 20)))
  }),
  output: Schema.Struct({
    memories: Schema.Array(Schema.Struct({
      id: Schema.String,
      text: Schema.String,
      task: Schema.String,
      runId: Schema.NullOr(Schema.String)
    }))
  }),
  timeoutMs: 5_000,
  idempotent: true,
  interruptible: true,
  // earlier runs' notes and results: what their tools read of the outside world among them
  readsOutside: true,
  run: ({ limit, query }, ctx) =>
    notesOf(ctx, "memory.recall").pipe(
      Effect.flatMap((notes) => Effect.mapError(notes.recall(query, limit), unavailable("memory.recall"))),
      Effect.map((ms) => ({ memories: ms.map((m) => ({ id: m.id, text: m.text, task: m.task, runId: m.runId })) }))
    )
})

/** The tools of memory across runs: offered to a run whose memory is on only (run/Session). */
export const memoryAcrossRuns: ReadonlyArray<string> = [memoryRemember.name, memoryRecall.name]

export const builtinTools: ReadonlyArray<Tool> = [
  calculator,
  memoryRead,
  memoryWrite,
  memoryRemember,
  memoryRecall,
  clockNow
]

export interface Service {
  readonly tools: ReadonlyArray<Tool>
  readonly names: ReadonlyArray<string>
  readonly get: (name: string) => Tool | undefined
  /** Decodes the input, runs the tool under its timeout, decodes the output. */
  readonly invoke: (name: string, input: unknown, context: ToolContext) => Effect.Effect<unknown, ToolError>
  /** The tools as they are now, fixed: a run takes one at its start (MCP servers may change their lists later). */
  readonly snapshot: () => Service
  /**
   * A fork's recorded result of this call, taken (each once): the call is not made, its recording stands for it
   * (run/ToolReplay). Absent on a registry that replays nothing.
   */
  readonly recorded?: (name: string, input: unknown) => RecordedToolResult | undefined
}

/** A tool call's result as a run recorded it (its ToolInvoked event). */
export interface RecordedToolResult {
  readonly output: unknown
  readonly memoryWrites: Record<string, unknown> | undefined
}

export class ToolRegistry extends Context.Tag("aeon/ToolRegistry")<ToolRegistry, Service>() {}

const format = (e: ParseResult.ParseError) => ParseResult.TreeFormatter.formatErrorSync(e)

export const make = (tools: ReadonlyArray<Tool>): Service => {
  const byName = new Map<string, Tool>()
  for (const t of tools) {
    if (byName.has(t.name)) throw new Error(`tool ${t.name} is registered twice`)
    byName.set(t.name, t)
  }
  const names = [...byName.keys()]
  const invoke: Service["invoke"] = (name, rawInput, context) =>
    Effect.gen(function*() {
      const t = byName.get(name)
      if (!t) return yield* new UnknownToolError({ tool: name, available: names })
      const input = yield* Schema.decodeUnknown(t.input)(rawInput ?? {}).pipe(
        Effect.mapError((e) => new ToolInputError({ tool: name, message: format(e) }))
      )
      const output = yield* (t.synchronous ? t.run(input, context) : t.run(input, context).pipe(
        Effect.timeoutFail({
          duration: t.timeoutMs,
          onTimeout: () => new ToolTimeoutError({ tool: name, timeoutMs: t.timeoutMs })
        })
      ))
      return yield* Schema.encodeUnknown(t.output)(output).pipe(
        Effect.mapError((e) =>
          new ToolFailedError({ tool: name, message: `output does not match its schema: ${format(e)}` })
        )
      )
    }).pipe(traced("ToolRegistry.invoke", { captureStackTrace: false, attributes: { "aeon.tool": name } }))
  const service: Service = {
    tools: [...byName.values()],
    names,
    get: (n) => byName.get(n),
    invoke,
    snapshot: () => service
  }
  return service
}

/**
 * A registry whose tools change (MCP servers connect, drop out, change their lists): each read goes to the list
 * `current` gives now, made into a registry once per list.
 */
export const makeDynamic = (current: () => ReadonlyArray<Tool>): Service => {
  let list: ReadonlyArray<Tool> | undefined
  let registry: Service | undefined
  const now = () => {
    const tools = current()
    if (tools !== list) {
      registry = make(tools)
      list = tools
    }
    return registry!
  }
  return {
    get tools() {
      return now().tools
    },
    get names() {
      return now().names
    },
    get: (name) => now().get(name),
    invoke: (name, input, context) => Effect.suspend(() => now().invoke(name, input, context)),
    snapshot: () => now()
  }
}

/** The built-in tools plus the user's own. */
export const layer = (extra: ReadonlyArray<Tool> = []) => Layer.succeed(ToolRegistry, make([...builtinTools, ...extra]))
