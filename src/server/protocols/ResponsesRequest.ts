import { Predicate } from "effect"
import { MAX_TAG_LENGTH } from "../../run/RunInput.js"
import { fieldOf } from "../../support/Fields.js"
import { attachmentFromUrl, conversationOf } from "./Http.js"
import { budgetOf, instructionsOf, MODELS, objectOf, type Refusal, runInputOf } from "./OpenAiCompat.js"

/**
 * A Responses API request (`POST /v1/responses`) as a run's input, or why it cannot be one. The last user message of
 * `input` is the task, the items before it the conversation (quoted as data); `instructions` and the client's system
 * or developer messages are the run's instructions (trusted: they come from the caller, as the task does); the model
 * names the run's mode; `text.format` its output schema. Function tools are refused: Aeon's tools are the server's.
 */
export interface ResponsesRequest {
  readonly model: string
  readonly stream: boolean
  readonly background: boolean
  /** false: the run is erased once it has ended (GET and previous_response_id then find nothing). */
  readonly store: boolean
  readonly previousResponseId: string | undefined
  readonly input: Record<string, unknown>
}

const refusal = (param: string, message: string, code = "invalid_request"): Refusal => ({
  status: 400,
  code,
  param,
  message
})

/** A message item's text: a string, or its text parts (`input_text`, `output_text`). */
const textOfParts = (content: unknown): string =>
  typeof content === "string"
    ? content
    : (Array.isArray(content) ? content : []).flatMap((p: unknown) => {
      const type = fieldOf(p, "type")
      const text = fieldOf(p, "text")
      return typeof text === "string" && (type === "input_text" || type === "output_text" || type === "text")
        ? [text]
        : []
    }).join("")

/** The files and images of a message's parts: `input_image` (a URL or a data URL), `input_file` (its data or URL). */
const attachmentsOfParts = (content: unknown): Array<ReturnType<typeof attachmentFromUrl>> | Refusal => {
  const found: Array<ReturnType<typeof attachmentFromUrl>> = []
  for (const p of Array.isArray(content) ? content : []) {
    const type = fieldOf(p, "type")
    const filename = fieldOf(p, "filename")
    const name = typeof filename === "string" ? filename : undefined
    if (type === "input_image" || type === "input_file") {
      const url = fieldOf(p, "image_url") ?? fieldOf(p, "file_data") ?? fieldOf(p, "file_url")
      if (typeof url !== "string") {
        return refusal(
          "input",
          `${type} needs its bytes or a URL (image_url, file_data, file_url): file ids are not kept here`
        )
      }
      found.push(attachmentFromUrl(url, undefined, name))
    }
  }
  return found
}

interface Message {
  readonly role: string
  readonly content: unknown
}

/** `input` as messages: a string is one user message; a list holds message items (any other item is refused). */
const messagesOf = (input: unknown): Array<Message> | Refusal => {
  if (typeof input === "string") return [{ role: "user", content: input }]
  if (!Array.isArray(input)) return refusal("input", "input must be a string or a list of message items")
  const messages: Array<Message> = []
  for (const item of input) {
    const type = fieldOf(item, "type")
    const role = fieldOf(item, "role")
    if ((type !== undefined && type !== "message") || typeof role !== "string") {
      return refusal(
        "input",
        `input items must be messages (role and content); ${String(type ?? role)} is not one here`
      )
    }
    messages.push({ role, content: fieldOf(item, "content") })
  }
  return messages
}

/** `text.format` as the run's output schema: `json_schema` its schema, `json_object` any object, `text` none. */
const formatOf = (text: unknown): { readonly outputSchema?: object; readonly outputStrict?: boolean } | Refusal => {
  const format = objectOf(fieldOf(text, "format"))
  if (format === undefined || format.type === "text") return {}
  if (format.type === "json_object") return { outputSchema: { type: "object" }, outputStrict: false }
  if (format.type !== "json_schema") {
    return refusal("text.format", "text.format.type must be text, json_object or json_schema")
  }
  const schema = objectOf(format.schema)
  if (schema === undefined) return refusal("text.format", "text.format.schema must be a JSON Schema object")
  return { outputSchema: schema, outputStrict: format.strict === true }
}

/** The request's metadata (string values) kept on the run as tags `meta:<key>=<value>`. */
const metadataTags = (metadata: unknown): Array<string> | Refusal => {
  if (metadata === undefined || metadata === null) return []
  if (!Predicate.isRecord(metadata)) return refusal("metadata", "metadata must be an object of strings")
  const tags = Object.entries(metadata).map(([k, v]) => `meta:${k}=${String(v)}`)
  const long = tags.find((t) => t.length > MAX_TAG_LENGTH)
  return long === undefined
    ? tags
    : refusal(
      "metadata",
      `a metadata entry is at most ${MAX_TAG_LENGTH - 6} characters (key and value): ${long.slice(5, 40)}…`
    )
}

/** The model's mode, or its refusal (404 model_not_found, as OpenAI answers an unknown model). */
const modeOf = (model: unknown) => {
  const mode = typeof model === "string" ? MODELS[model] : undefined
  return mode !== undefined ? mode : {
    status: 404,
    code: "model_not_found",
    param: "model",
    message: `The model '${String(model ?? "")}' does not exist: use one of ${Object.keys(MODELS).join(", ")}`
  } satisfies Refusal
}

/** The request as a run's input (checked by the run's own schema when it starts), or why it cannot be one. */
export const responsesRequest = (body: unknown, userId: string | undefined): ResponsesRequest | Refusal => {
  const b = objectOf(body) ?? {}
  const mode = modeOf(b.model)
  if (typeof mode !== "string") return mode
  if (Array.isArray(b.tools) && b.tools.length > 0) {
    return refusal(
      "tools",
      "tools in the request are not taken: Aeon's tools are the server's (GET the server's /graphql tools)",
      "tools_unsupported"
    )
  }
  const messages = messagesOf(b.input)
  if ("status" in messages) return messages
  const texts = messages.map((m) => ({ role: m.role, text: textOfParts(m.content) }))
  const chat = conversationOf(texts)
  if (chat === undefined) return refusal("input", "input must hold a user message with text")
  const lastUser = messages.findLast((m) => m.role === "user" && textOfParts(m.content).trim() !== "")
  const attachments = attachmentsOfParts(lastUser?.content)
  if ("status" in attachments) return attachments
  const format = formatOf(b.text)
  if ("status" in format) return format
  const tags = metadataTags(b.metadata)
  if ("status" in tags) return tags
  const instructions = instructionsOf(texts, b.instructions)
  const budget = budgetOf(b.metadata, b.max_output_tokens)
  const background = b.background === true
  const store = b.store !== false
  if (background && !store) {
    return refusal("store", "a background response is kept until it is read: store must not be false")
  }
  return {
    model: String(b.model),
    stream: b.stream === true,
    background,
    store,
    previousResponseId: typeof b.previous_response_id === "string" ? b.previous_response_id : undefined,
    input: runInputOf({ chat, attachments, instructions, mode, budget, tags: ["responses", ...tags], format, userId })
  }
}
