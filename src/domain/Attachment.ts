import { Schema } from "effect"

/**
 * A file or an image a task carries: its media type and its bytes (base64) or a URL. Stored once by its content's
 * hash (store/Attachments); the run's input keeps the hash, so replay and fork have the bytes.
 */
export const MAX_ATTACHMENTS = 10
/** An attachment's most bytes (decoded). */
export const MAX_ATTACHMENT_BYTES = 5 * 1024 * 1024
/**
 * The request body a server takes by default (AEON_MAX_BODY_BYTES): the most attachments, each at its largest as
 * base64 (a third more), and 1 MB for the rest of the request — what docs/files.md promises fits through every surface.
 */
export const DEFAULT_MAX_BODY_BYTES = MAX_ATTACHMENTS * Math.ceil(MAX_ATTACHMENT_BYTES / 3) * 4 + 1_000_000

/** How many bytes base64 text decodes to (its padding is not data). */
const decodedBytes = (base64: string) => {
  const text = base64.replace(/\s/g, "")
  return Math.floor((text.length * 3) / 4) - (text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0)
}

const MediaType = Schema.String.pipe(
  Schema.filter((s) => /^[a-z]+\/[a-z0-9.+-]+$/i.test(s) || `mediaType must be a media type like image/png (was ${s})`)
)

export const AttachmentInput = Schema.Struct({
  mediaType: MediaType,
  /** The bytes, base64. */
  data: Schema.optional(
    Schema.String.pipe(
      Schema.filter((s) => /^[A-Za-z0-9+/=\s]*$/.test(s) || "data must be base64"),
      Schema.filter((s) =>
        decodedBytes(s) <= MAX_ATTACHMENT_BYTES ||
        `an attachment is at most ${MAX_ATTACHMENT_BYTES} bytes`
      )
    )
  ),
  /** Where the provider fetches it (https), instead of the bytes. */
  url: Schema.optional(
    Schema.String.pipe(Schema.filter((s) => /^https?:\/\/\S+$/.test(s) || "url must be an http(s) URL"))
  ),
  /** Its file name, if it has one. */
  name: Schema.optional(Schema.String.pipe(Schema.maxLength(255))),
  /** The sha256 of its bytes (hex): set by Aeon when it stores them; a stored attachment is named by it alone. */
  sha256: Schema.optional(Schema.String.pipe(Schema.pattern(/^[a-f0-9]{64}$/)))
}).pipe(
  Schema.filter((a) =>
    [a.data, a.url, a.sha256].filter((x) => x !== undefined).length >= 1 || "an attachment needs data (base64) or a url"
  )
)
export type AttachmentInput = typeof AttachmentInput.Type

/** An attachment as a model call carries it: the bytes or the URL. */
export interface Attached {
  readonly mediaType: string
  readonly name?: string | undefined
  readonly data?: string | undefined
  readonly url?: string | undefined
}

/** What an attachment costs a call's input at most, in tokens (admission): images and documents as providers bill them. */
export const attachmentTokens = (a: Attached): number => {
  const bytes = a.data ? Math.floor((a.data.length * 3) / 4) : 0
  if (a.mediaType.startsWith("image/")) return 1_600
  if (a.mediaType === "application/pdf") return Math.max(3_000, Math.ceil(bytes / 40))
  return Math.max(256, Math.ceil(bytes / 3))
}
