import { Ajv, type ErrorObject, type ValidateFunction } from "ajv"
import { Effect, ParseResult, Schema } from "effect"
import { recordOf } from "../support/Fields.js"
import { McpServerUnavailableError, type Tool, ToolFailedError, type ToolTimeoutError } from "../tools/ToolRegistry.js"

/** What Aeon reads of a tool an MCP server lists (`tools/list`). */
export interface McpToolDefinition {
  readonly name: string
  readonly title?: string | undefined
  readonly description?: string | undefined
  readonly inputSchema: Record<string, unknown>
  readonly outputSchema?: Record<string, unknown> | undefined
  readonly annotations?: {
    readonly title?: string | undefined
    readonly readOnlyHint?: boolean | undefined
    readonly destructiveHint?: boolean | undefined
    readonly idempotentHint?: boolean | undefined
    readonly openWorldHint?: boolean | undefined
  } | undefined
}

/** What a `tools/call` answers (the SDK's CallToolResult, as far as Aeon reads it). */
export interface McpCallResult {
  readonly content?: ReadonlyArray<Record<string, unknown>> | undefined
  readonly structuredContent?: Record<string, unknown> | undefined
  readonly isError?: boolean | undefined
}

/** How a server's tool is called: by its own name, with a signal that cancels the request when aborted. */
export type CallTool = (
  name: string,
  input: unknown,
  signal: AbortSignal
) => Effect.Effect<McpCallResult, ToolFailedError | ToolTimeoutError | McpServerUnavailableError>

export interface ToolOptions {
  readonly server: string
  readonly timeoutMs: number
  readonly maxResultBytes: number
  readonly call: CallTool
}

/**
 * How a call may be treated, from the tool's annotations (MCP's defaults: a tool that is not read-only may be
 * destructive, and is not idempotent unless it says so):
 * - read-only: repeated freely and interrupted with the run (the SDK sends `notifications/cancelled`);
 * - idempotent: may be repeated after a crash, but is never cut off in flight;
 * - anything else: at most once — it starts only once the run's earlier events are stored, and its result is
 *   stored before the run goes on.
 * Destructive tools wait for a person's approval whenever the approval list holds `*`.
 */
export const semantics = (annotations: McpToolDefinition["annotations"]) => {
  const readOnly = annotations?.readOnlyHint === true
  return {
    readOnly,
    idempotent: readOnly || annotations?.idempotentHint === true,
    destructive: !readOnly && annotations?.destructiveHint !== false
  }
}

const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false })

const compile = (schema: Record<string, unknown>): ValidateFunction => {
  try {
    return ajv.compile(schema)
  } catch {
    // a schema ajv cannot compile (an unknown draft, a broken $ref): the server judges the input itself
    return Object.assign(() => true, { errors: null }) as unknown as ValidateFunction
  }
}

const describeErrors = (errors: ReadonlyArray<ErrorObject> | null | undefined) =>
  (errors ?? [])
    .map((e) =>
      `${e.instancePath || "input"} ${e.message ?? "is invalid"}${
        e.keyword === "additionalProperties" ? ` (${String(e.params.additionalProperty)})` : ""
      }`
    )
    .join("; ")

/**
 * The tool's input JSON Schema as an Effect Schema: a decode checks the input against it (with ajv) and fails with
 * the validator's message; the JSON Schema itself is what prompts, the supervisor's repair and the API show.
 */
export const inputSchemaOf = (jsonSchema: Record<string, unknown>): Schema.Schema<unknown> => {
  const validate = compile(jsonSchema)
  return Schema.declare([], {
    decode: () => (input, _, ast) =>
      validate(input)
        ? ParseResult.succeed(input)
        : ParseResult.fail(
          new ParseResult.Type(ast, input, `does not match the tool's input schema: ${describeErrors(validate.errors)}`)
        ),
    encode: () => (input) => ParseResult.succeed(input)
  }, { identifier: "McpToolInput", jsonSchema })
}

const bytes = (text: string) => Buffer.byteLength(text, "utf8")

/** A text cut to `max` bytes (on a character boundary), with a marker saying how long it was. */
export const cut = (text: string, max: number): string => {
  const size = bytes(text)
  if (size <= max) return text
  const kept = Buffer.from(text, "utf8").subarray(0, max).toString("utf8").replace(/\uFFFD$/, "")
  return `${kept}\n[cut: the result was ${size} bytes, over the ${max}-byte limit (AEON_MCP_MAX_RESULT_BYTES)]`
}

/** One content block as text: text itself; images, audio and resources named, not inlined. */
const blockText = (block: Record<string, unknown>): string => {
  switch (block.type) {
    case "text":
      return String(block.text ?? "")
    case "image":
    case "audio":
      return `[${block.type}: ${String(block.mimeType ?? "unknown type")}, ${
        typeof block.data === "string" ? Math.floor(block.data.length * 3 / 4) : 0
      } bytes, not inlined]`
    case "resource": {
      const r = recordOf(block.resource) ?? {}
      return typeof r.text === "string" && r.text.length > 0
        ? `[resource ${String(r.uri)}]\n${r.text}`
        : `[resource ${String(r.uri)}${r.mimeType ? `, ${String(r.mimeType)}` : ""}, not inlined]`
    }
    case "resource_link":
      return `[resource link ${String(block.uri)}${block.name ? ` (${String(block.name)})` : ""}]`
    default:
      return `[${String(block.type)} content, not inlined]`
  }
}

const contentText = (result: McpCallResult) => (result.content ?? []).map(blockText).join("\n")

/**
 * A call's result as the run keeps it: the structured content when the tool declares an output schema, otherwise
 * its text; longer than `maxResultBytes`, cut with a marker. `isError` fails the step with the tool's own message.
 */
export const resultOf = (
  tool: string,
  definition: McpToolDefinition,
  result: McpCallResult,
  maxResultBytes: number
): Effect.Effect<unknown, ToolFailedError> => {
  if (result.isError === true) {
    return Effect.fail(new ToolFailedError({ tool, message: contentText(result) || "the tool reported an error" }))
  }
  if (definition.outputSchema && result.structuredContent !== undefined) {
    const json = JSON.stringify(result.structuredContent)
    return Effect.succeed(bytes(json) <= maxResultBytes ? result.structuredContent : cut(json, maxResultBytes))
  }
  return Effect.succeed(cut(contentText(result), maxResultBytes))
}

/** An MCP server's tool as a registry tool named `server.tool`. */
export const toTool = (definition: McpToolDefinition, options: ToolOptions): Tool<unknown, unknown> => {
  const name = `${options.server}.${definition.name}`
  const { destructive, idempotent, readOnly } = semantics(definition.annotations)
  const description = (definition.description ?? definition.title ?? definition.annotations?.title ?? "").trim()
  return {
    name,
    description: description || `Tool ${definition.name} of MCP server ${options.server}.`,
    input: inputSchemaOf(definition.inputSchema),
    output: Schema.Unknown,
    timeoutMs: options.timeoutMs,
    idempotent,
    interruptible: readOnly,
    destructive,
    server: options.server,
    inputJsonSchema: definition.inputSchema,
    run: (input) =>
      Effect.flatMap(
        Effect.suspend(() => {
          const controller = new AbortController()
          return options.call(definition.name, input, controller.signal).pipe(
            Effect.onInterrupt(() => Effect.sync(() => controller.abort()))
          )
        }),
        (result) => resultOf(name, definition, result, options.maxResultBytes)
      )
  }
}
