import type { GenerateContentResponse, GoogleGenAI } from "@google/genai"
import { Effect, Layer } from "effect"
import { optionalPackage } from "../support/OptionalPackage.js"
import * as LanguageModel from "./LanguageModel.js"
import { type ModelError, ModelUnavailableError } from "./ModelErrors.js"
import {
  fromNativeConfig,
  keyed,
  nativeConfig,
  type NativeOptions,
  nativeService,
  refusalOf
} from "./NativeProvider.js"
import { connectionFailure, type Retryable } from "./OpenAiFailures.js"
import { loadPriceTable, type ModelPrice } from "./Pricing.js"

/**
 * Gemini through Google's own API (`@google/genai` 2.x), streamed (`generateContentStream`): the answer as JSON under
 * `responseMimeType: application/json` and `responseJsonSchema` (its `responseSchema` refuses `$defs`/`$ref`), usage
 * from `usageMetadata` — each chunk's a running total: the last is the call's; thoughts count as output, cached
 * content is priced as cached —, thinking's budget as a setting reserved in every call's cap, the SDK's own retries
 * off so that every request is Aeon's to count and admit.
 */
export type GeminiOptions = NativeOptions

interface Read {
  text: string
  thinking: string
  model?: string | undefined
  finish?: string | undefined
  prompt: number
  cached: number
  output: number
}

const readStream = async (
  stream: AsyncIterable<GenerateContentResponse>,
  onText: (text: string) => Promise<void>
): Promise<Read> => {
  const read: Read = { text: "", thinking: "", prompt: 0, cached: 0, output: 0 }
  for await (const chunk of stream) {
    // the answer's text, never a thought
    const parts = chunk.candidates?.[0]?.content?.parts ?? []
    const text = parts.filter((p) => p.thought !== true && typeof p.text === "string").map((p) => p.text).join("")
    read.thinking += parts.filter((p) => p.thought === true && typeof p.text === "string").map((p) => p.text).join("")
    if (text !== "") {
      read.text += text
      await onText(text)
    }
    read.finish = chunk.candidates?.[0]?.finishReason ?? read.finish
    read.model = chunk.modelVersion ?? read.model
    const u = chunk.usageMetadata
    if (u) {
      // a running total: the last chunk's is the call's
      read.prompt = u.promptTokenCount ?? read.prompt
      read.cached = u.cachedContentTokenCount ?? 0
      read.output = (u.candidatesTokenCount ?? 0) + (u.thoughtsTokenCount ?? 0)
    }
  }
  return read
}

const responseOf = (read: Read): LanguageModel.CompletionResponse => ({
  text: read.text,
  ...(read.thinking ? { thinking: read.thinking } : {}),
  ...(read.model ? { model: read.model } : {}),
  finishReason: read.finish,
  truncated: read.finish === "MAX_TOKENS",
  inputTokens: read.prompt,
  outputTokens: read.output,
  ...(read.cached > 0 ? { cachedInputTokens: read.cached } : {})
})

/**
 * A failed request: a refused key (400 API_KEY_INVALID, 401, 403) or an unknown model (404) ends the run at once,
 * named; 429 and 5xx (503: overloaded) are retried, then the next model of AEON_MODELS takes over.
 */
const KEY_NAMES = "AEON_LLM_API_KEY, GOOGLE_API_KEY or GEMINI_API_KEY"

/**
 * Google's SDK, loaded on the first call: an optional peer of the published package (a library user on another
 * provider installs none of it); its absence ends the run at once, naming the package.
 */
type Sdk = typeof import("@google/genai")
const loadSdk = optionalPackage("@google/genai", "The google provider (Gemini)", () => import("@google/genai")).pipe(
  Effect.mapError((e) => new ModelUnavailableError({ message: e.message, lasting: true }))
)

/** One client per service, made with the SDK on its first call. */
const clientOf = (options: GeminiOptions) => {
  let made: { readonly sdk: Sdk; readonly client: GoogleGenAI } | undefined
  return Effect.map(loadSdk, (sdk) =>
    made ??= {
      sdk,
      client: new sdk.GoogleGenAI({
        apiKey: options.apiKey ?? "not-set",
        httpOptions: {
          ...(options.baseURL ? { baseUrl: options.baseURL } : {}),
          // the SDK's own retries off: each request is Aeon's to count
          retryOptions: { attempts: 1 },
          timeout: options.timeoutMs + 1_000
        }
      })
    })
}

const failureOf = (sdk: Sdk, url: string, options: GeminiOptions) => (e: unknown): ModelError | Retryable =>
  e instanceof sdk.ApiError
    ? refusalOf(url, options, KEY_NAMES, {
      status: e.status,
      message: e.message,
      badKey: /API_KEY_INVALID|API key not valid/i.test(e.message) || e.status === 401 || e.status === 403
    })
    : connectionFailure(
      url,
      "AEON_LLM_BASE_URL or GOOGLE_GEMINI_BASE_URL",
      e,
      e instanceof Error && e.name !== "AbortError"
    )

const once = (
  { client, sdk }: { readonly sdk: Sdk; readonly client: GoogleGenAI },
  url: string,
  options: GeminiOptions,
  request: LanguageModel.CompletionRequest
) =>
  Effect.zipRight(
    Effect.sync(() => request.onRequest?.()),
    Effect.tryPromise({
      try: async (signal) => {
        const stream = await client.models.generateContentStream({
          model: options.model,
          contents: [{
            role: "user",
            parts: [
              ...(request.attachments ?? []).map((a) =>
                a.data !== undefined
                  ? { inlineData: { mimeType: a.mediaType, data: a.data } }
                  : { fileData: { mimeType: a.mediaType, fileUri: a.url! } }
              ),
              { text: request.user }
            ]
          }],
          config: {
            abortSignal: signal,
            systemInstruction: request.system,
            maxOutputTokens: request.maxOutputTokens,
            responseMimeType: "application/json",
            responseJsonSchema: request.jsonSchema,
            ...(request.thinkingTokens ? { thinkingConfig: { thinkingBudget: request.thinkingTokens } } : {})
          }
        })
        return responseOf(
          await readStream(
            stream,
            (text) => (request.onText ? Effect.runPromise(request.onText(text)) : Promise.resolve())
          )
        )
      },
      catch: failureOf(sdk, url, options)
    })
  )

/** Images, PDFs, text, audio and video, inline or by URL (inlineData, fileData). */
const geminiAccepts = (mediaType: string) =>
  /^(image|audio|video)\//.test(mediaType) ||
  mediaType === "application/pdf" || mediaType === "text/plain"

/** The service for `options`; without a price, the built-in table's (and its notice when the model is not in it). */
export const make = (options: GeminiOptions, priced?: ModelPrice, pricedNotice?: string): LanguageModel.Service => {
  const url = options.baseURL ?? "https://generativelanguage.googleapis.com"
  const client = clientOf(options)
  return nativeService(
    "google",
    options,
    keyed("google", KEY_NAMES, options, (r) => Effect.flatMap(client, (made) => once(made, url, options, r))),
    geminiAccepts,
    priced,
    pricedNotice
  )
}

export const config = nativeConfig(["GOOGLE_API_KEY", "GEMINI_API_KEY"], "GOOGLE_GEMINI_BASE_URL", "gemini-2.5-flash")

/** The service the settings describe, priced by the table; `over` gives one model of a list its own model and URL. */
export const fromConfig = fromNativeConfig(make)

export const layerConfig = Layer.effect(
  LanguageModel.LanguageModel,
  Effect.zipWith(config, loadPriceTable, (c, prices) => fromConfig(c, prices))
)
