import { Effect, Runtime } from "effect"
import { type ConversationMessage, THREAD_ID_PATTERN } from "../../domain/Conversation.js"
import { MAX_TAG_LENGTH, MAX_TASK_LENGTH } from "../../run/RunInput.js"
import { publicFailure } from "../../runs/PublicFailure.js"
import type { RunManager } from "../../runs/RunManager.js"
import { fieldOf } from "../../support/Fields.js"
import { type Body, tooLargeMessage } from "../Body.js"
import { type AuthConfig, authenticate } from "../Security.js"

/** What a protocol's handler is given: the server's runtime, its keys and its body limit. */
export interface ProtocolContext {
  readonly runtime: Runtime.Runtime<RunManager>
  readonly auth: AuthConfig
  readonly maxBodyBytes: number
}

/**
 * What a protocol answers a request with, as data — the edge's runner (server/protocols/Protocols) writes it: a JSON
 * body, nothing, or frames through the edge's one SSE writer (server/Sse), whose failure mid-stream becomes
 * `onFailure`'s frame in the protocol's words. The frames are given a signal aborted when the client goes away.
 */
export type Reply =
  | {
    readonly _tag: "Json"
    readonly status: number
    readonly body: unknown
    readonly headers: Readonly<Record<string, string>>
  }
  | { readonly _tag: "Empty"; readonly status: number; readonly headers: Readonly<Record<string, string>> }
  | {
    readonly _tag: "Frames"
    readonly headers: Readonly<Record<string, string>>
    readonly frames: (signal: AbortSignal) => AsyncIterable<string>
    readonly onFailure: (thrown: unknown) => string | undefined
  }

/** A JSON reply. */
export const json = (status: number, body: unknown, headers: Record<string, string> = {}): Reply => ({
  _tag: "Json",
  status,
  body,
  headers
})

/** A reply with no body (204: nothing to stream; 304: the client has it). */
export const empty = (status: number, headers: Record<string, string> = {}): Reply => ({
  _tag: "Empty",
  status,
  headers
})

/**
 * A request as a protocol's handler reads it — its method, URL and headers, its body read as JSON on demand within a
 * limit — made by the edge's runner (server/protocols/Protocols) from the platform's request.
 */
export interface HttpRequestView {
  readonly method: string
  readonly url: string
  readonly headers: Readonly<Record<string, string | undefined>>
  readonly json: (maxBytes: number) => Promise<Body>
}

/** A request as a protocol's handler is given it: the request, the route's path parameters, a signal aborted when the
 * client goes away before the reply is made. */
export interface ProtocolRequest {
  readonly req: HttpRequestView
  readonly params: Readonly<Record<string, string | undefined>>
  readonly signal: AbortSignal
}

/**
 * A protocol's route, as data: its method and path on the edge's router (server/protocols/Protocols), the handler that
 * makes its reply, and its refusals in the protocol's words — the runner answers another method (405) and a handler
 * that failed (500) with them.
 */
export type Method = "GET" | "POST" | "DELETE"

export interface Route {
  /** The method it answers, or the methods (one path, a handler that reads `req.method`). */
  readonly method: Method | ReadonlyArray<Method>
  readonly path: `/${string}`
  readonly handle: (request: ProtocolRequest) => Promise<Reply>
  readonly refuse: (status: number, code: string, message: string) => Reply
}

/** The caller the request's bearer key names (`{}` on a server without keys), or undefined: refuse it. */
export const callerOf = (auth: AuthConfig, req: HttpRequestView) => authenticate(auth, req.headers.authorization)

/** Why a request is refused before it is read further: its HTTP status, a code, the words. */
export interface Refusal {
  readonly status: number
  readonly code: string
  readonly message: string
}

/**
 * A request's caller and JSON body, or why it is refused: no valid key (401), a body over the limit (413) or not
 * JSON (400). Each protocol says a refusal in its own shape.
 */
export const callerAndBody = async (
  ctx: ProtocolContext,
  req: HttpRequestView
): Promise<{ readonly caller: { userId?: string }; readonly body: unknown } | Refusal> => {
  const caller = callerOf(ctx.auth, req)
  if (!caller) return { status: 401, code: "UNAUTHENTICATED", message: "missing or invalid API key" }
  const body = await req.json(ctx.maxBodyBytes)
  if (body._tag === "json") return { caller, body: body.value }
  return body._tag === "tooLarge"
    ? { status: 413, code: "PAYLOAD_TOO_LARGE", message: tooLargeMessage(ctx.maxBodyBytes) }
    : { status: 400, code: "BAD_REQUEST", message: "the body is not JSON" }
}

/** A refusal as `{ error: { code, message } }` (AG-UI's and the UI stream's routes; a 401 says Bearer). */
export const refuseJson = (status: number, code: string, message: string): Reply =>
  json(status, { error: { code, message } }, status === 401 ? { "www-authenticate": "Bearer" } : {})

/** The run's tag for a protocol's conversation (`thread:`, `chat:`, `context:`), within a tag's length. */
export const conversationTag = (kind: string, id: string) => `${kind}:${id}`.slice(0, MAX_TAG_LENGTH)

export { publicFailure }

/** Runs an Effect of the server's runtime for a request: its exit, a defect logged. */
export const runExit = <A, E>(runtime: Runtime.Runtime<RunManager>, effect: Effect.Effect<A, E, RunManager>) =>
  Runtime.runPromiseExit(runtime)(
    effect.pipe(
      Effect.tapErrorCause((cause) =>
        publicFailure(cause).code === "INTERNAL" ? Effect.logError("protocol request failed", cause) : Effect.void
      )
    )
  )

/** The HTTP status of a coded failure, the same on every protocol (what a protocol says with it is its own). */
const STATUS_OF: Readonly<Record<string, number>> = {
  RunNotFoundError: 404,
  AGENT_NOT_FOUND: 404,
  RunIdTakenError: 409,
  QuotaExceededError: 429,
  ShuttingDownError: 503,
  ClusterUnavailableError: 503,
  INTERNAL: 500
}
export const statusOf = (code: string) => STATUS_OF[code] ?? 400

/** What a feed's failure tells a client: a subscription's coded error (a follower too slow), else "internal". */
export const thrownFailure = (e: unknown): { readonly code: string; readonly message: string } => {
  const code = fieldOf(fieldOf(e, "extensions"), "code")
  return typeof code === "string" && e instanceof Error
    ? { code, message: e.message }
    : { code: "INTERNAL", message: "internal error (see the server's log)" }
}

/**
 * A protocol's frames through the edge's one SSE writer (server/Sse): a burst's frames in one write, the response ended
 * when they end; the client going away aborts `signal` (the run's followers stop at once). A failure mid-stream becomes
 * `onFailure`'s frame, in the protocol's words. Plain async iteration, no fiber per follower (bench row 44a).
 */
export const frames = (
  headers: Record<string, string>,
  framesOf: (signal: AbortSignal) => AsyncIterable<string>,
  onFailure: (f: ReturnType<typeof thrownFailure>) => string | undefined
): Reply => ({ _tag: "Frames", headers, frames: framesOf, onFailure: (e) => onFailure(thrownFailure(e)) })

/** The text of a chat message's content: a string, or the text parts of a list of parts. */
export const textOf = (content: unknown): string => {
  if (typeof content === "string") return content
  if (!Array.isArray(content)) return ""
  return content.flatMap((p: unknown) => {
    const text = fieldOf(p, "text")
    const type = fieldOf(p, "type")
    return typeof text === "string" && (type === undefined || type === "text") ? [text] : []
  }).join("")
}

/**
 * A chat's run: its task is its last user message — what the person asked in this turn —, and the messages before it
 * (a user's or the assistant's, with text) are its history, quoted by the run as data and compacted past the context
 * bound (memory/Conversation), never cut. Undefined when there is no user message.
 */
export const conversationOf = (
  messages: ReadonlyArray<{ readonly role: string; readonly text: string }>
): { readonly task: string; readonly history: Array<ConversationMessage> } | undefined => {
  const lastUser = messages.findLastIndex((m) => m.role === "user" && m.text.trim() !== "")
  if (lastUser < 0) return undefined
  const history = messages.slice(0, lastUser).flatMap((m): Array<ConversationMessage> =>
    m.text.trim() !== "" && (m.role === "user" || m.role === "assistant")
      ? [{ role: m.role, text: m.text.slice(0, MAX_TASK_LENGTH) }]
      : []
  )
  return { task: messages[lastUser]!.text, history }
}

/** A protocol's conversation id as a thread id, when it can be one (else the run keeps it as a tag only). */
export const threadOf = (id: unknown): { readonly threadId?: string } =>
  typeof id === "string" && THREAD_ID_PATTERN.test(id) ? { threadId: id } : {}

/** A data URL's media type and base64 bytes. */
const dataUrl = (url: string) => /^data:([^;,]+);base64,(.*)$/s.exec(url)

/** An image's media type by its URL's extension (jpeg when it has none Aeon knows). */
const imageTypeOf = (url: string) => {
  const ext = /\.(png|gif|webp|jpe?g)(?:\?|#|$)/i.exec(url)?.[1]?.toLowerCase()
  return ext === "png" ? "image/png" : ext === "gif" ? "image/gif" : ext === "webp" ? "image/webp" : "image/jpeg"
}

/** An attachment from a URL a chat part gives (a data URL: its bytes; else the URL itself). */
export const attachmentFromUrl = (url: string, mediaType?: string, name?: string) => {
  const inline = dataUrl(url)
  return {
    mediaType: inline?.[1] ?? mediaType ?? imageTypeOf(url),
    ...(inline ? { data: inline[2]! } : { url }),
    ...(name ? { name } : {})
  }
}

/**
 * The files and images of a chat message's parts, in the shapes the chat protocols give them: OpenAI's `image_url`
 * and `file` (`/v1`), the AI SDK's `file` (`url`, `mediaType`), AG-UI 1.0's `image`/`audio`/`video`/`document` parts
 * (a `source` of data or a URL) and its earlier `binary` part (`mimeType`, `data` or `url`).
 */
export const attachmentsOf = (content: unknown) =>
  (Array.isArray(content) ? content : []).flatMap((p: any) => {
    if (p?.type === "image_url" && typeof p.image_url?.url === "string") return [attachmentFromUrl(p.image_url.url)]
    if (p?.type === "file" && typeof p.file?.file_data === "string") {
      return [attachmentFromUrl(p.file.file_data, undefined, p.file.filename)]
    }
    if (p?.type === "file" && typeof p.url === "string") return [attachmentFromUrl(p.url, p.mediaType, p.filename)]
    if (["image", "audio", "video", "document"].includes(p?.type) && typeof p.source?.value === "string") {
      const s = p.source
      if (s.type === "data" && typeof s.mimeType === "string") return [{ mediaType: s.mimeType, data: s.value }]
      if (s.type === "url") return [attachmentFromUrl(s.value, s.mimeType)]
    }
    if (p?.type === "binary" && typeof p.mimeType === "string") {
      if (typeof p.data === "string") {
        return [{ mediaType: p.mimeType, data: p.data, ...(p.filename ? { name: p.filename } : {}) }]
      }
      if (typeof p.url === "string") {
        return [attachmentFromUrl(p.url, p.mimeType, p.filename)]
      }
    }
    return []
  })
