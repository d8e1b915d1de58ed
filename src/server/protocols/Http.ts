import { Cause, Effect, Exit, Fiber, Option, Runtime, Stream } from "effect"
import type { IncomingMessage, ServerResponse } from "node:http"
import type { RunManager } from "../RunManager.js"
import { type AuthConfig, authenticate } from "../Security.js"

/** What a protocol's handler is given: the server's runtime, its keys and its body limit. */
export interface ProtocolContext {
  readonly runtime: Runtime.Runtime<RunManager>
  readonly auth: AuthConfig
  readonly maxBodyBytes: number
}

/** A request's body read as JSON within a limit. */
export type Body = { readonly _tag: "json"; readonly value: unknown } | { readonly _tag: "tooLarge" | "notJson" }

export const readJson = (req: IncomingMessage, maxBytes: number) =>
  new Promise<Body>((resolve) => {
    const chunks: Array<Buffer> = []
    let size = 0
    req.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size <= maxBytes) return void chunks.push(chunk)
      req.removeAllListeners("data")
      req.resume()
      resolve({ _tag: "tooLarge" })
    })
    req.on("end", () => {
      if (size > maxBytes) return
      try {
        resolve({ _tag: "json", value: JSON.parse(Buffer.concat(chunks).toString("utf8")) })
      } catch {
        resolve({ _tag: "notJson" })
      }
    })
    req.on("error", () => resolve({ _tag: "notJson" }))
  })

/** The caller the request's bearer key names (`{}` on a server without keys), or undefined: refuse it. */
export const callerOf = (auth: AuthConfig, req: IncomingMessage) => authenticate(auth, req.headers.authorization)

/**
 * A failure a client may read: a coded error's tag and its own message; anything else (a defect, the database's
 * words) stays in the server's log and the client reads "internal error".
 */
export const publicFailure = (cause: Cause.Cause<unknown>): { readonly code: string; readonly message: string } => {
  const e = Option.getOrUndefined(Cause.failureOption(cause)) as { _tag?: string; message?: string } | undefined
  if (e && typeof e._tag === "string" && e._tag !== "StoreError" && e._tag !== "SqlError") {
    return { code: e._tag, message: e.message || e._tag }
  }
  return { code: "INTERNAL", message: "internal error (see the server's log)" }
}

/** Runs an Effect of the server's runtime for a request: its exit, a defect logged. */
export const runExit = <A, E>(runtime: Runtime.Runtime<RunManager>, effect: Effect.Effect<A, E, RunManager>) =>
  Runtime.runPromiseExit(runtime)(
    effect.pipe(
      Effect.tapErrorCause((cause) =>
        publicFailure(cause).code === "INTERNAL" ? Effect.logError("protocol request failed", cause) : Effect.void
      )
    )
  )

/** The value of a successful exit, or undefined after `refuse` answered its failure. */
export const settled = <A, E>(exit: Exit.Exit<A, E>, refuse: (f: ReturnType<typeof publicFailure>) => void) => {
  if (Exit.isSuccess(exit)) return exit.value
  refuse(publicFailure(exit.cause))
  return undefined
}

/**
 * Writes a stream of text frames to the response as they come (the headers first), ending it when the stream ends;
 * the client going away interrupts the stream (its followers stop). A failure mid-stream becomes `onFailure`'s frame.
 */
export const pipeFrames = <E>(
  runtime: Runtime.Runtime<RunManager>,
  res: ServerResponse,
  headers: Record<string, string>,
  frames: Stream.Stream<string, E, RunManager>,
  onFailure: (f: ReturnType<typeof publicFailure>) => string | undefined
) => {
  res.writeHead(200, { "cache-control": "no-cache", connection: "keep-alive", "x-accel-buffering": "no", ...headers })
  res.flushHeaders()
  const fiber = Runtime.runFork(runtime)(
    Stream.runForEach(frames, (frame) => Effect.sync(() => void res.write(frame))).pipe(
      Effect.catchAllCause((cause) =>
        Effect.sync(() => {
          if (Cause.isInterruptedOnly(cause)) return
          const frame = onFailure(publicFailure(cause))
          if (frame !== undefined) res.write(frame)
        })
      ),
      Effect.ensuring(Effect.sync(() => res.end()))
    )
  )
  res.on("close", () => void Runtime.runFork(runtime)(Fiber.interrupt(fiber)))
  return Runtime.runPromise(runtime)(Fiber.await(fiber))
}

/** A JSON response. */
export const sendJson = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body))

/** The text of a chat message's content: a string, or the text parts of a list of parts. */
export const textOf = (content: unknown): string => {
  if (typeof content === "string") return content
  if (!Array.isArray(content)) return ""
  return content.flatMap((p: unknown) => {
    const part = p as { type?: unknown; text?: unknown }
    return typeof part?.text === "string" && (part.type === undefined || part.type === "text") ? [part.text] : []
  }).join("")
}

/** How much of a conversation before its last message a task quotes (the task's own limit is larger). */
const CONVERSATION_CHARS = 8_000

/**
 * A chat's task: its last user message, after the conversation before it quoted as context (the newest messages
 * kept when it is long). Undefined when there is no user message.
 */
export const taskOfConversation = (
  messages: ReadonlyArray<{ readonly role: string; readonly text: string }>
): string | undefined => {
  const lastUser = messages.findLastIndex((m) => m.role === "user" && m.text.trim() !== "")
  if (lastUser < 0) return undefined
  const task = messages[lastUser]?.text ?? ""
  const earlier: Array<string> = []
  let size = 0
  for (const m of messages.slice(0, lastUser).reverse()) {
    if (m.text.trim() === "" || (m.role !== "user" && m.role !== "assistant")) continue
    const line = `${m.role}: ${m.text}`
    if (size + line.length > CONVERSATION_CHARS) break
    earlier.unshift(line)
    size += line.length
  }
  return earlier.length === 0 ? task : `Earlier in this conversation:\n${earlier.join("\n")}\n\nNow: ${task}`
}
