/** What the CLI's commands do, loaded only once a command runs (`aeon --help` never loads the engine). */
import { ConfigProvider, Deferred, Effect, Exit, Fiber, FiberRef, HashSet, Layer, Logger, Option, Stream } from "effect"
import { readFileSync } from "node:fs"
import * as Aeon from "../Aeon.js"
import * as Agents from "../agents/Agents.js"
import { describeLeft } from "../domain/Quota.js"
import { settingsLayerConfig } from "../domain/Webhook.js"
import { LanguageModel } from "../llm/LanguageModel.js"
import * as ModelLayer from "../llm/ModelLayer.js"
import { McpServers } from "../mcp/Servers.js"
import { CATALOG_BOUND, type CatalogTool, entryOf, offerFor } from "../planning/ToolCatalog.js"
import { openRequests } from "../record/RunRecord.js"
import type { RunStatus } from "../record/RunResult.js"
import { prepare, prepareResume } from "../run/Run.js"
import type { RunManager } from "../runs/RunManager.js"
import * as StoredRuns from "../runs/StoredRuns.js"
import * as Database from "../store/Database.js"
import { codeOf, definedOnly, recordOf } from "../support/Fields.js"
import { ToolRegistry } from "../tools/ToolRegistry.js"
import { deliverDue } from "../webhooks/Delivery.js"
import { answeringInline, untilAsked, waitingAsJson, waitingForApproval } from "./Asking.js"
import { CliError } from "./CliError.js"
import { forgetMemoriesOnServer, memoriesOnServer, quotaOnServer, runsOnServer } from "./OnServer.js"
import { printResult } from "./Printing.js"
import { makeProgress } from "./Progress.js"
import { memoriesTable, runsTable, toolsTable } from "./Render.js"
import { fail, personLogger, report } from "./Reporting.js"
import { inputOf } from "./RunFlags.js"
import { liveOutput, ownModelFlags, runThroughServer, serverHoldingDataDir, startOnServer } from "./ViaServer.js"

/** Why a file could not be read, in words (no errno text): missing, not allowed, a directory, not JSON. */
const fileProblem = (e: unknown): string => {
  const code = codeOf(e)
  return code === "ENOENT"
    ? "no such file"
    : code === "EACCES" || code === "EPERM"
    ? "permission denied"
    : code === "EISDIR"
    ? "it is a directory"
    : e instanceof SyntaxError
    ? `not JSON (${e.message})`
    : e instanceof Error
    ? e.message
    : String(e)
}

/** A file a command was given, read as text; the refusal names the file and what it was given as. */
export const readText = (what: string, path: string): string => {
  try {
    return readFileSync(path, "utf8")
  } catch (e) {
    throw new CliError(`cannot read ${what} ${path}: ${fileProblem(e)}`)
  }
}

const readJsonFile = (flag: string, path: string): unknown => {
  const text = readText(`${flag}`, path)
  try {
    return JSON.parse(text)
  } catch (e) {
    throw new CliError(`cannot read ${flag} ${path}: ${fileProblem(e)}`)
  }
}

const MEDIA_TYPES: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  pdf: "application/pdf",
  txt: "text/plain",
  md: "text/plain"
}

/** `--file PATH`: its media type by its extension, its bytes (base64); one Aeon cannot type is refused, named. */
const attachmentOf = (path: string) => {
  const ext = path.slice(path.lastIndexOf(".") + 1).toLowerCase()
  const mediaType = MEDIA_TYPES[ext]
  if (mediaType === undefined) {
    throw new CliError(`--file ${path}: unknown kind of file (${Object.keys(MEDIA_TYPES).join(", ")})`)
  }
  let bytes: Buffer
  try {
    bytes = readFileSync(path)
  } catch (e) {
    throw new CliError(`cannot read --file ${path}: ${fileProblem(e)}`)
  }
  return { mediaType, data: bytes.toString("base64"), name: path.slice(path.lastIndexOf("/") + 1) }
}

/** The operator's agents (AEON_AGENTS) over the engine's tools and the store's versions, for runs that name one. */
export const withAgents = <A, E, R>(engine: Layer.Layer<A, E, R>) => Layer.provideMerge(Agents.layerConfig, engine)

/** The engine with the model chosen by flags first, then the environment. */
export const engineLayer = (flags: Record<string, string>, mcpFile?: string) =>
  Layer.mergeAll(
    Aeon.layerWithTools([], mcpFile),
    ModelLayer.layerConfig.pipe(
      Layer.provide(
        Layer.setConfigProvider(
          ConfigProvider.orElse(ConfigProvider.fromMap(new Map(Object.entries(flags))), () => ConfigProvider.fromEnv())
        )
      )
    ),
    Aeon.runPolicyLayerConfig
  )

export { fail, report }

export const opt = <A>(o: Option.Option<A>) => Option.getOrUndefined(o)

/** The flags of `aeon run`, as @effect/cli parsed them. */
export interface RunOptions {
  readonly task: Option.Option<string>
  readonly resume: Option.Option<string>
  readonly full: boolean
  readonly provider: Option.Option<string>
  readonly model: Option.Option<string>
  readonly baseUrl: Option.Option<string>
  readonly script: Option.Option<string>
  readonly criteria: Option.Option<string>
  readonly outputSchemaFile?: Option.Option<string>
  readonly guardrailsFile?: Option.Option<string>
  readonly files?: ReadonlyArray<string>
  readonly mcp: Option.Option<string>
  readonly json: boolean
  /** The flags that set a field of the run's input (cli/RunFlags: keyed by flag, read by `inputOf`). */
  readonly [field: string]: unknown
}

/** The run's input from `aeon run`'s flags and the files they name (a contradiction refused before anything runs). */
const runInputOf = (o: RunOptions) => {
  const fields = inputOf(o)
  if (o.full && fields.mode !== undefined && fields.mode !== "FULL") {
    throw new CliError(`--full contradicts --mode ${String(fields.mode).toLowerCase()}`)
  }
  if (Option.isSome(o.task) === Option.isSome(o.resume)) {
    throw new CliError("give a task, or --resume RUN to go on with a run (not both)")
  }
  const criteriaFile = recordOf(Option.map(o.criteria, (p) => readJsonFile("--criteria", p)).pipe(opt))
  const criteria = { ...criteriaFile, ...recordOf(fields.criteria) }
  const outputSchema = o.outputSchemaFile && Option.isSome(o.outputSchemaFile)
    ? readJsonFile("--output-schema", o.outputSchemaFile.value)
    : undefined
  if (fields.outputStrict === true && outputSchema === undefined) {
    throw new CliError("--output-strict needs --output-schema FILE: it asks that the schema's value be strict")
  }
  const attachments = (o.files ?? []).map(attachmentOf)
  const guardrails = o.guardrailsFile && Option.isSome(o.guardrailsFile)
    ? readJsonFile("--guardrails", o.guardrailsFile.value)
    : undefined
  return {
    ...fields,
    ...(outputSchema !== undefined ? { outputSchema } : {}),
    ...(guardrails !== undefined ? { guardrails } : {}),
    ...(attachments.length > 0 ? { attachments } : {}),
    task: opt(o.task),
    // a run of an agent takes the agent's mode when no flag names one
    ...(o.full
      ? { mode: "FULL" }
      : fields.mode !== undefined || fields.agent === undefined
      ? { mode: fields.mode ?? "AUTO" }
      : {}),
    ...(Object.keys(criteria).length > 0 ? { criteria } : {})
  }
}

/** The model flags (`aeon run`, `aeon chat`) as the settings they stand for (a script alone: the scripted provider). */
export const modelFlagsOf = (
  o: {
    readonly provider: Option.Option<string>
    readonly model: Option.Option<string>
    readonly baseUrl: Option.Option<string>
    readonly script: Option.Option<string>
  }
) => {
  const flags = definedOnly({
    AEON_MODEL_PROVIDER: opt(o.provider),
    AEON_MODEL: opt(o.model),
    AEON_LLM_BASE_URL: opt(o.baseUrl),
    AEON_SCRIPT: opt(o.script)
  })
  if (flags.AEON_SCRIPT && !flags.AEON_MODEL_PROVIDER) flags.AEON_MODEL_PROVIDER = "scripted"
  return flags
}

/**
 * The run in this process, shown as it goes (`live`): to its end, or until it asks a person — inline on a terminal,
 * else it stops with every request open then.
 */
const runHere = (o: RunOptions, input: Record<string, unknown>, live: boolean) =>
  Effect.gen(function*() {
    const inline = live && process.stdin.isTTY
    const model = yield* LanguageModel
    const p = Option.isSome(o.resume) ? yield* prepareResume(o.resume.value) : yield* prepare(input)
    const progress = live ? makeProgress(model.label) : undefined
    const watcher = progress
      ? yield* Effect.fork(Stream.runForEach(p.events.changes(0), (e) => Effect.sync(() => progress.onEvent(e))))
      : undefined
    // the answer as it is written (the live output is not stored: followed only while the run goes)
    if (progress) {
      yield* Effect.fork(Stream.runForEach(p.events.output, (d) => Effect.sync(() => progress.onOutput(d))))
    }
    const r = inline ? yield* answeringInline(p, progress) : yield* untilAsked(p)
    if (watcher) yield* (r._tag === "done" ? Fiber.join(watcher) : Fiber.interrupt(watcher))
    progress?.done()
    // its webhook's deliveries, first attempts (a retry is made by the next server on this store)
    yield* Effect.ignore(deliverDue)
    // every request open when the run stopped (a parallel wave can ask more than one)
    const open = r._tag === "asked" ? openRequests(p.events.record()) : []
    return { ...r, open }
  }).pipe(Effect.provide(withAgents(Layer.mergeAll(
    engineLayer(modelFlagsOf(o), opt(o.mcp)),
    Database.layerConfig,
    settingsLayerConfig
  ))))

export const run = (o: RunOptions) =>
  Effect.gen(function*() {
    const input = runInputOf(o)
    const live = liveOutput(o.json)
    // a server holds the embedded data directory: it runs the task (its model, its viewer), the CLI follows
    const server = Option.isNone(o.resume) ? yield* serverHoldingDataDir : undefined
    if (server !== undefined) {
      const typed = input.outputSchema !== undefined
      return yield* runThroughServer(server, startOnServer(server, input), {
        own: ownModelFlags(o),
        json: o.json,
        live,
        typed
      })
    }
    const outcome = yield* runHere(o, input, live)
    if (outcome._tag === "asked") {
      const open = outcome.open.length > 0 ? outcome.open : [outcome.request]
      return yield* (o.json ? waitingAsJson(open) : waitingForApproval(outcome.request))
    }
    yield* printResult(outcome.result, o.json, input.outputSchema !== undefined)
  }).pipe(
    // the only logger of the run: not the runtime's (stdout)
    Effect.locallyWith(FiberRef.currentLoggers, () => HashSet.make(personLogger))
  )

export { eventsOf, inspect } from "./Inspecting.js"

export const runs = (
  o: {
    readonly user: Option.Option<string>
    readonly status: Option.Option<RunStatus>
    readonly limit: number
    readonly json: boolean
  }
) =>
  Effect.gen(function*() {
    const filters = { userId: opt(o.user), status: opt(o.status), first: o.limit }
    const server = yield* serverHoldingDataDir
    // beside the server holding the data directory, its list (the same rows)
    const listed = server !== undefined
      ? yield* runsOnServer(server, filters)
      : yield* Effect.provide(StoredRuns.listRuns(filters), Database.layerConfig)
    process.stdout.write(o.json ? `${JSON.stringify(listed, null, 2)}\n` : `${runsTable(listed)}\n`)
  })

/** `aeon memory list|search`: a user's memories, each with its source run (the store's Memories). */
export const memoryList = (
  o: {
    readonly query: Option.Option<string>
    readonly user: Option.Option<string>
    readonly limit: number
    readonly json: boolean
  }
) =>
  Effect.gen(function*() {
    if (o.limit < 1 || o.limit > 1000) throw new CliError(`--limit must be between 1 and 1000 (was ${o.limit})`)
    const server = yield* serverHoldingDataDir
    const memories = server !== undefined
      ? yield* memoriesOnServer(server, { userId: opt(o.user), query: opt(o.query), first: o.limit })
      : yield* StoredRuns.memories(opt(o.user), { first: o.limit, query: opt(o.query) })
        .pipe(Effect.provide(Database.layerConfig))
    if (o.json) return process.stdout.write(`${JSON.stringify(memories, null, 2)}\n`)
    process.stdout.write(`${memoriesTable(memories)}\n`)
  })

/** `aeon memory forget ID | --all`: gone, with its full-text entry. */
export const memoryForget = (
  o: { readonly id: Option.Option<string>; readonly all: boolean; readonly user: Option.Option<string> }
) =>
  Effect.gen(function*() {
    if (o.all === Option.isSome(o.id)) throw new CliError("give a memory's id, or --all to forget every one (not both)")
    const owner = opt(o.user) ?? ""
    const id = opt(o.id)
    const server = yield* serverHoldingDataDir
    const forgotten = server !== undefined
      ? yield* forgetMemoriesOnServer(server, opt(o.user), id)
      : yield* Effect.provide(StoredRuns.forgetMemories(opt(o.user), id), Database.layerConfig)
    if (id === undefined) {
      process.stdout.write(`forgot ${forgotten} memories\n`)
      return
    }
    if (forgotten === 0) throw new CliError(`no memory ${id}${owner ? ` of user ${owner}` : ""}`)
    process.stdout.write(`forgot ${id}\n`)
  })

/** `aeon quota [--user U]`: used and left of each of the user's quotas, and when each resets. */
export const quota = (o: { readonly user: Option.Option<string>; readonly json: boolean }) =>
  Effect.gen(function*() {
    const server = yield* serverHoldingDataDir
    const usages = server !== undefined
      ? yield* quotaOnServer(server, opt(o.user))
      : yield* Effect.provide(StoredRuns.quotaUsage(opt(o.user)), Database.layerConfig)
    if (o.json) return process.stdout.write(`${JSON.stringify(usages, null, 2)}\n`)
    if (usages.length === 0) return process.stdout.write("no quota applies (AEON_QUOTAS)\n")
    for (const u of usages) process.stdout.write(`${u.metric} per ${u.period}: ${describeLeft(u)}; used ${u.used}\n`)
  })

/** `aeon tools`: every tool a run may call — Aeon's own and the MCP servers' — with what a call of it may do. */
export const tools = (
  o: { readonly mcp: Option.Option<string>; readonly json: boolean; readonly for: Option.Option<string> }
) =>
  Effect.gen(function*() {
    const registry = yield* ToolRegistry
    if (Option.isSome(o.for)) return printOffer(o.for.value, registry.tools, o.json)
    const servers = (yield* McpServers).health()
    const rows = registry.tools.map((t) => ({
      name: t.name,
      server: t.server ?? null,
      kind: t.interruptible ? "read-only" : t.idempotent ? "idempotent" : "at most once",
      destructive: t.destructive === true,
      description: t.description
    }))
    if (o.json) {
      process.stdout.write(`${JSON.stringify({ tools: rows, mcpServers: servers }, null, 2)}\n`)
      return
    }
    process.stdout.write(toolsTable(rows, servers))
  }).pipe(Effect.provide(Aeon.layerWithTools([], opt(o.mcp))))

/** `aeon tools --for TASK`: what the task's plan prompt would be offered of the tools (planning/ToolCatalog). */
const printOffer = (task: string, all: ReadonlyArray<CatalogTool>, json: boolean) => {
  const offer = offerFor(task, all)
  if (json) {
    const entries = offer.tools.map((t) => ({ name: t.name, entry: entryOf(t) }))
    process.stdout.write(`${JSON.stringify({ ...offer, tools: entries }, null, 2)}\n`)
    return
  }
  const said = offer.noTool
    ? `no tool: the task is planned without the catalog (none of the ${offer.total} tools ranks, none is named)`
    : offer.selected
    ? `${offer.tools.length} of ${offer.total} tools, chosen by the task's words and the tools it names:`
    : `all ${offer.total} tools (within the bound of ${CATALOG_BOUND.tools} tools or ${CATALOG_BOUND.tokens} tokens):`
  process.stdout.write(`${said}\n${offer.tools.map((t) => `  ${entryOf(t)}`).join("\n")}\n`)
}

/**
 * `aeon mcp`: Aeon as an MCP server on stdio (an editor's or agent's `mcpServers` entry starts it): the same runs and
 * store as `aeon serve`, without the HTTP server. stdout carries the protocol; logs go to stderr. Ends when stdin does.
 */
export const mcpServe = (o: { readonly mcp: Option.Option<string> }) =>
  Effect.flatMap(serverHoldingDataDir, (server) => {
    if (server === undefined) return mcpServeHere(o)
    if (Option.isSome(o.mcp)) {
      throw new CliError(
        `the Aeon server at ${server} holds this data directory and serves its own tools: --mcp cannot be used ` +
          "(stop the server, or set AEON_DATA_DIR to another directory)"
      )
    }
    return Effect.flatMap(Effect.promise(() => import("./McpBridge.js")), (b) => b.bridgeToServer(server))
  })

const mcpServeHere = (o: { readonly mcp: Option.Option<string> }) =>
  Effect.gen(function*() {
    const [{ StdioServerTransport }, AeonMcp] = yield* Effect.promise(() =>
      Promise.all([import("@modelcontextprotocol/sdk/server/stdio.js"), import("../server/mcp/AeonMcp.js")])
    )
    const server = AeonMcp.make(yield* Effect.runtime<RunManager>(), undefined)
    const closed = yield* Deferred.make<void>()
    server.onclose = () => Deferred.unsafeDone(closed, Exit.void)
    yield* Effect.promise(() => server.connect(new StdioServerTransport()))
    yield* Deferred.await(closed)
  }).pipe(
    Effect.provide(
      Layer.unwrapEffect(Effect.gen(function*() {
        // the run manager the server runs on, without the HTTP server (loaded only for this command)
        const App = yield* Effect.promise(() => import("../launch/App.js"))
        const config = yield* App.serverConfig
        return App.appLayer(config.maxConcurrentRuns, Aeon.layerFor({ mcpFile: opt(o.mcp) }))
      }))
    ),
    Effect.provide(Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger)))
  )
