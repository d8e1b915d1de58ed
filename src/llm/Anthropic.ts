import Anthropic from "@anthropic-ai/sdk"
import { Effect, Layer } from "effect"
import type { Attached } from "../domain/Attachment.js"
import { fieldOf, recordOf } from "../support/Fields.js"
import * as LanguageModel from "./LanguageModel.js"
import type { ModelError } from "./ModelErrors.js"
import {
  fromNativeConfig,
  keyed,
  nativeConfig,
  type NativeOptions,
  nativeService,
  refusalOf
} from "./NativeProvider.js"
import { connectionFailure, type Retryable, retryAfterMs } from "./OpenAiFailures.js"
import { loadPriceTable, type ModelPrice } from "./Pricing.js"

/**
 * Claude through Anthropic's own Messages API (`@anthropic-ai/sdk`), streamed: the answer as the API's JSON output
 * format (`output_config.format`, the schema with every object closed), usage exactly as billed (input = input +
 * cache writes + cache reads; output from message_delta, cumulative), the system prompt and the user prompt marked
 * as cache breakpoints, extended thinking as a setting (its tokens reserved in every call's cap: the budget admits
 * them), the SDK's own retries off so that every request is Aeon's to count and admit.
 */
export type AnthropicOptions = NativeOptions

/** The schema as the API's JSON output format takes it: every object closed (additionalProperties false). */
export const closedSchema = (schema: unknown): unknown => {
  if (Array.isArray(schema)) return schema.map(closedSchema)
  if (schema === null || typeof schema !== "object") return schema
  const entries = Object.entries(schema).map(([k, v]) =>
    [
      k,
      (k === "properties" || k === "$defs" || k === "definitions") && v !== null && typeof v === "object"
        ? Object.fromEntries(Object.entries(v).map(([n, s]) => [n, closedSchema(s)]))
        : closedSchema(v)
    ] as const
  )
  const o = Object.fromEntries(entries)
  return o.type === "object" && o.additionalProperties === undefined ? { ...o, additionalProperties: false } : o
}

const CACHED = { type: "ephemeral" as const }

/**
 * The user prompt as blocks: what comes before the run's task — a plan prompt's instruction and tool catalog, the
 * same for every run with those tools — marked as a cache breakpoint, the rest not. A breakpoint at the end of the
 * whole prompt would write every call to the cache at 1.25× the input rate to be read by almost none (bench row 57:
 * a FULL run cost 1.10× with it); a prefix under the model's minimum is simply not cached.
 */
const userBlocks = (request: LanguageModel.CompletionRequest): Array<Anthropic.ContentBlockParam> => [
  ...(request.attachments ?? []).map(blockOf),
  ...textBlocks(request)
]

/** A task's file or image as Anthropic takes it: an image block, a document block (PDF, plain text). */
const blockOf = (a: Attached): Anthropic.ContentBlockParam => {
  const source = a.data === undefined
    ? { type: "url" as const, url: a.url! }
    : a.mediaType === "text/plain"
    ? { type: "text" as const, media_type: "text/plain" as const, data: Buffer.from(a.data, "base64").toString("utf8") }
    : { type: "base64" as const, media_type: a.mediaType, data: a.data }
  // the API checks the media types it takes (run/Attachments refused the others before the run)
  return (a.mediaType.startsWith("image/")
    ? { type: "image", source }
    : { type: "document", source, ...(a.name ? { title: a.name } : {}) }) as Anthropic.ContentBlockParam
}

const textBlocks = (request: LanguageModel.CompletionRequest) => {
  const task = fieldOf(request.input, "request")
  const at = typeof task === "string" && task !== "" ? request.user.indexOf(task) : -1
  return at > 0
    ? [
      { type: "text" as const, text: request.user.slice(0, at), cache_control: CACHED },
      { type: "text" as const, text: request.user.slice(at) }
    ]
    : [{ type: "text" as const, text: request.user }]
}

/** The request: the system prompt and the user prompt's stable prefix and whole as cache breakpoints. */
export const bodyOf = (options: AnthropicOptions, request: LanguageModel.CompletionRequest) => ({
  model: options.model,
  max_tokens: request.maxOutputTokens,
  system: [{ type: "text" as const, text: request.system, cache_control: CACHED }],
  messages: [{ role: "user" as const, content: userBlocks(request) }],
  output_config: {
    format: { type: "json_schema" as const, schema: recordOf(closedSchema(request.jsonSchema)) ?? {} }
  },
  ...(request.thinkingTokens ? { thinking: { type: "enabled" as const, budget_tokens: request.thinkingTokens } } : {})
})

/** What the stream said: the answer's text, the thinking (never the answer), usage as billed, why it stopped. */
interface Read {
  text: string
  thinking: string
  model?: string
  input: number
  cacheRead: number
  cacheWrite: number
  output: number
  stop?: string
}

const readStream = async (
  stream: AsyncIterable<Anthropic.RawMessageStreamEvent>,
  onText: (text: string) => Promise<void>
): Promise<Read> => {
  const read: Read = { text: "", thinking: "", input: 0, cacheRead: 0, cacheWrite: 0, output: 0 }
  for await (const event of stream) {
    if (event.type === "message_start") {
      const u = event.message.usage
      read.model = event.message.model
      read.input = u.input_tokens ?? 0
      read.cacheRead = u.cache_read_input_tokens ?? 0
      read.cacheWrite = u.cache_creation_input_tokens ?? 0
    } else if (event.type === "content_block_delta") {
      if (event.delta.type === "text_delta") {
        read.text += event.delta.text
        await onText(event.delta.text)
      } else if (event.delta.type === "thinking_delta") read.thinking += event.delta.thinking
    } else if (event.type === "message_delta") {
      // cumulative: the last one holds the call's output (message_start's is a placeholder)
      read.output = event.usage.output_tokens ?? read.output
      read.stop = event.delta.stop_reason ?? read.stop
    }
  }
  return read
}

const responseOf = (read: Read): LanguageModel.CompletionResponse => ({
  text: read.text,
  ...(read.thinking ? { thinking: read.thinking } : {}),
  ...(read.model ? { model: read.model } : {}),
  finishReason: read.stop,
  truncated: read.stop === "max_tokens",
  inputTokens: read.input + read.cacheRead + read.cacheWrite,
  outputTokens: read.output,
  ...(read.cacheRead > 0 ? { cachedInputTokens: read.cacheRead } : {}),
  ...(read.cacheWrite > 0 ? { cacheWriteInputTokens: read.cacheWrite } : {})
})

/**
 * A failed request: a refused key (401, 403) or an unknown model (404) ends the run at once, named; 429 waits what
 * retry-after says; 529 (overloaded) and 5xx are retried, then the next model of AEON_MODELS takes over.
 */
const KEY_NAMES = "AEON_LLM_API_KEY or ANTHROPIC_API_KEY"

const failureOf = (url: string, options: AnthropicOptions) => (e: unknown): ModelError | Retryable =>
  e instanceof Anthropic.APIError && typeof e.status === "number"
    ? refusalOf(url, options, KEY_NAMES, {
      status: e.status,
      message: e.message,
      badKey: e.status === 401 || e.status === 403,
      waitMs: retryAfterMs(e.headers as Headers | undefined)
    })
    : connectionFailure(
      url,
      "AEON_LLM_BASE_URL or ANTHROPIC_BASE_URL",
      e,
      e instanceof Anthropic.APIConnectionError && !(e instanceof Anthropic.APIUserAbortError)
    )

/** The models whose end of life this process has told of. */
const toldOf = new Set<string>()

/**
 * The SDK's own word on a deprecated model (its list, its end-of-life date), said once per process rather than twice
 * per call: the SDK warns synchronously as a request is made, before anything is sent, so its warnings are taken
 * while the request is made and the first of each model is passed on (a server's log then holds it once).
 */
export const deprecationSaidOnce = <A>(create: () => A): A => {
  const warn = console.warn
  const heard: Array<string> = []
  console.warn = (...parts: Array<unknown>) => heard.push(parts.map(String).join(" "))
  try {
    return create()
  } finally {
    console.warn = warn
    for (const line of heard) {
      const model = /The model '([^']+)' is deprecated/.exec(line)?.[1] ?? line
      if (!toldOf.has(model)) {
        toldOf.add(model)
        warn(`aeon: ${line.split("\n")[0]} (Anthropic's SDK); set AEON_MODEL to a current model`)
      }
    }
  }
}

const once = (client: Anthropic, url: string, options: AnthropicOptions, request: LanguageModel.CompletionRequest) =>
  Effect.zipRight(
    Effect.sync(() => request.onRequest?.()),
    Effect.tryPromise({
      try: async (signal) => {
        const stream = await deprecationSaidOnce(() =>
          client.messages.create({ ...bodyOf(options, request), stream: true }, { signal })
        )
        return responseOf(
          await readStream(
            stream,
            (text) => (request.onText ? Effect.runPromise(request.onText(text)) : Promise.resolve())
          )
        )
      },
      catch: failureOf(url, options)
    })
  )

/** Images and PDFs by URL or bytes, plain text by its bytes (image and document blocks). */
const anthropicAccepts = (mediaType: string, byUrl: boolean) =>
  /^image\/(png|jpeg|gif|webp)$/.test(mediaType) || mediaType === "application/pdf" ||
  (mediaType === "text/plain" && !byUrl)

/** The service for `options`; without a price, the built-in table's (and its notice when the model is not in it). */
export const make = (options: AnthropicOptions, priced?: ModelPrice, pricedNotice?: string): LanguageModel.Service => {
  const url = options.baseURL ?? "https://api.anthropic.com"
  const client = new Anthropic({
    apiKey: options.apiKey ?? "not-set",
    ...(options.baseURL ? { baseURL: options.baseURL } : {}),
    maxRetries: 0,
    timeout: options.timeoutMs + 1_000
  })
  return nativeService(
    "anthropic",
    options,
    keyed("anthropic", KEY_NAMES, options, (r) => once(client, url, options, r)),
    anthropicAccepts,
    priced,
    pricedNotice
  )
}

/** A current Claude (not in the SDK's deprecated list; a test checks it against the installed SDK). */
export const DEFAULT_MODEL = "claude-sonnet-5-5"

export const config = nativeConfig(["ANTHROPIC_API_KEY"], "ANTHROPIC_BASE_URL", DEFAULT_MODEL)

/** The service the settings describe, priced by the table; `over` gives one model of a list its own model and URL. */
export const fromConfig = fromNativeConfig(make)

export const layerConfig = Layer.effect(
  LanguageModel.LanguageModel,
  Effect.zipWith(config, loadPriceTable, (c, prices) => fromConfig(c, prices))
)
