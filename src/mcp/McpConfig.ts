import { Config, Data, Effect, Option, ParseResult, Schema } from "effect"
import { readFileSync } from "node:fs"
import { dirname, resolve } from "node:path"
import { codeOf, fieldOf } from "../support/Fields.js"
import { messageOf } from "../support/Thrown.js"

/**
 * The MCP servers a run's tools may come from, in the format Claude Desktop, Cursor and VS Code write:
 * `{ "mcpServers": { "fs": { "command", "args", "env", "cwd" }, "remote": { "url", "headers" } } }`.
 * `${VAR}` anywhere in a string is read from the environment when the file is loaded.
 */
const Common = {
  /** Most milliseconds one call may take (the run's deadline bounds it too). */
  timeoutMs: Schema.optional(Schema.Int.pipe(Schema.positive())),
  /** Most milliseconds the server may take to start and answer `initialize`. */
  startTimeoutMs: Schema.optional(Schema.Int.pipe(Schema.positive())),
  /** A server left out of this configuration without deleting its entry (VS Code's and Cursor's field). */
  disabled: Schema.optional(Schema.Boolean)
}

export const StdioServer = Schema.Struct({
  command: Schema.String.pipe(Schema.minLength(1)),
  args: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
  env: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  cwd: Schema.optional(Schema.String),
  ...Common
})
export type StdioServer = typeof StdioServer.Type

export const UrlServer = Schema.Struct({
  url: Schema.String.pipe(Schema.pattern(/^https?:\/\//, { message: () => "url must start with http:// or https://" })),
  headers: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  ...Common
})
export type UrlServer = typeof UrlServer.Type

export const ServerEntry = Schema.Union(StdioServer, UrlServer)
export type ServerEntry = typeof ServerEntry.Type

/** A server's name is the prefix of its tools' names (`fs.read_text_file`): letters, digits, `_` and `-` (checked first). */
export const McpConfig = Schema.Struct({
  mcpServers: Schema.Record({ key: Schema.String, value: ServerEntry })
})
export type McpConfig = typeof McpConfig.Type

export const isStdio = (s: ServerEntry): s is StdioServer => "command" in s

/** A configuration that cannot be used: the file, the variable or the entry it names is wrong. */
export class McpConfigError extends Data.TaggedError("McpConfigError")<{ readonly message: string }> {}

const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g

/** `${VAR}` in every string of the file, from `env`; a variable that is not set is an error naming it. */
export const expandVariables = (value: unknown, env: Record<string, string | undefined>, path = ""): unknown => {
  if (typeof value === "string") {
    return value.replace(VARIABLE, (_, name: string) => {
      const found = env[name]
      if (found === undefined) {
        throw new McpConfigError({ message: `environment variable ${name} (used at ${path || "the top"}) is not set` })
      }
      return found
    })
  }
  if (Array.isArray(value)) return value.map((v, i) => expandVariables(v, env, `${path}[${i}]`))
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, expandVariables(v, env, path ? `${path}.${k}` : k)])
    )
  }
  return value
}

/** What is wrong with the file's shape before its fields are read: no mcpServers, a bad name, neither command nor url. */
const entryShapeError = (raw: unknown): string | undefined => {
  const servers = fieldOf(raw, "mcpServers")
  if (servers === null || typeof servers !== "object" || Array.isArray(servers)) {
    return "the file needs an object mcpServers: { name: { command | url, … } }"
  }
  for (const [name, entry] of Object.entries(servers)) {
    if (!/^[A-Za-z0-9_-]+$/.test(name)) {
      return `server name "${name}": a server's name may hold letters, digits, _ and - only (it prefixes its tools' names)`
    }
    if (entry === null || typeof entry !== "object" || (!("command" in entry) && !("url" in entry))) {
      return `mcpServers.${name}: a server needs a command (started over stdio) or a url (Streamable HTTP or SSE)`
    }
  }
  return undefined
}

/** Decodes a configuration (already parsed JSON); `baseDir` resolves a relative `cwd`. */
export const decode = (
  raw: unknown,
  options: { readonly env?: Record<string, string | undefined>; readonly baseDir?: string } = {}
) =>
  Effect.gen(function*() {
    const expanded = yield* Effect.try({
      try: () => expandVariables(raw, options.env ?? process.env),
      catch: (e) => e instanceof McpConfigError ? e : new McpConfigError({ message: String(e) })
    })
    const shapeError = entryShapeError(expanded)
    if (shapeError) return yield* new McpConfigError({ message: `MCP configuration: ${shapeError}` })
    const config = yield* Schema.decodeUnknown(McpConfig)(expanded, { onExcessProperty: "ignore" }).pipe(
      Effect.mapError((e) =>
        new McpConfigError({
          message: `MCP configuration: ${
            ParseResult.ArrayFormatter.formatErrorSync(e).map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")
          }`
        })
      )
    )
    const servers = Object.fromEntries(
      Object.entries(config.mcpServers)
        .filter(([, s]) => s.disabled !== true)
        .map((
          [name, s]
        ) => [name, isStdio(s) && s.cwd && options.baseDir ? { ...s, cwd: resolve(options.baseDir, s.cwd) } : s])
    )
    return { mcpServers: servers } as McpConfig
  })

/** Reads and decodes a configuration file. */
export const load = (file: string, env?: Record<string, string | undefined>) =>
  Effect.gen(function*() {
    const text = yield* Effect.try({
      try: () => readFileSync(file, "utf8"),
      catch: (e) =>
        new McpConfigError({
          message: `cannot read MCP configuration ${file}: ${codeOf(e) ?? String(e)}`
        })
    })
    const raw = yield* Effect.try({
      try: (): unknown => JSON.parse(text),
      catch: (e) => new McpConfigError({ message: `MCP configuration ${file} is not JSON: ${messageOf(e)}` })
    })
    return yield* decode(raw, { ...(env ? { env } : {}), baseDir: dirname(resolve(file)) })
  })

/** `AEON_MCP_CONFIG`: the file, when set. */
export const configFile = Config.option(
  Config.string("AEON_MCP_CONFIG").pipe(
    Config.withDescription("A JSON file with mcpServers (Claude Desktop's format): their tools join every run's")
  )
)

/** Settings of every MCP server's calls. */
export const settings = Config.all({
  maxResultBytes: Config.integer("AEON_MCP_MAX_RESULT_BYTES").pipe(
    Config.withDescription("Largest MCP tool result kept; a longer one is cut with a marker saying so"),
    Config.withDefault(256 * 1024)
  ),
  timeoutMs: Config.integer("AEON_MCP_TIMEOUT_MS").pipe(
    Config.withDescription("Default most milliseconds of an MCP tool call (a server's timeoutMs overrides it)"),
    Config.withDefault(60_000)
  ),
  startTimeoutMs: Config.integer("AEON_MCP_START_TIMEOUT_MS").pipe(
    Config.withDescription("Default most milliseconds an MCP server may take to start and answer initialize"),
    Config.withDefault(30_000)
  )
})
export type Settings = Config.Config.Success<typeof settings>

/** The configuration file named by `AEON_MCP_CONFIG`, loaded; none when unset. */
export const fromEnvironment = Effect.gen(function*() {
  const file = yield* configFile
  return Option.isSome(file) ? Option.some(yield* load(file.value)) : Option.none<McpConfig>()
})
