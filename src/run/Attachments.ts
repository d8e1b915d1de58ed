import { Effect, Option } from "effect"
import type { Attached } from "../domain/Attachment.js"
import { AttachmentRefusedError } from "../domain/Errors.js"
import { LanguageModel } from "../llm/LanguageModel.js"
import { Attachments } from "../store/Attachments.js"
import { StoreError } from "../store/StoreValues.js"
import type { RunTaskInput } from "./RunInput.js"

/**
 * A task's files and images (run input `attachments`): refused before the run starts when its model cannot read one
 * (its media type, or by URL), stored once by their hash when there is a store (the run's input keeps the hash), and
 * read back for the run's plan and answer calls.
 */
export const refuseUnreadable = (input: RunTaskInput) =>
  Effect.gen(function*() {
    const model = yield* Effect.serviceOption(LanguageModel)
    if (Option.isNone(model) || !input.attachments?.length) return
    const m = model.value
    for (const a of input.attachments) {
      const byUrl = a.data === undefined && a.sha256 === undefined
      if (m.accepts?.(a.mediaType, byUrl) ?? true) continue
      return yield* new AttachmentRefusedError({
        message: m.label === "offline"
          ? "the offline model (a rule-based stand-in) cannot read files or images: configure a model provider (docs/models.md)"
          : `the model ${m.label} cannot read ${a.mediaType}${byUrl ? " by URL (send its bytes)" : ""}${
            a.name ? ` (${a.name})` : ""
          }`
      })
    }
  })

/** The input with each attachment's bytes stored and named by their hash (unchanged without a store). */
export const storedAttachments = (input: RunTaskInput) =>
  Effect.gen(function*() {
    const store = yield* Effect.serviceOption(Attachments)
    if (Option.isNone(store) || !input.attachments?.length) return input
    const attachments = yield* Effect.forEach(input.attachments, (a) =>
      a.data === undefined
        ? Effect.succeed(a)
        : Effect.map(store.value.put(a.mediaType, a.data), (sha256) => ({
          mediaType: a.mediaType,
          ...(a.name !== undefined ? { name: a.name } : {}),
          sha256
        })))
    return { ...input, attachments }
  })

/** The attachments as the run's calls carry them: their bytes read back by hash, or their URL. */
export const attachedOf = (input: RunTaskInput) =>
  Effect.forEach(input.attachments ?? [], (a) =>
    Effect.gen(function*() {
      const base = { mediaType: a.mediaType, ...(a.name !== undefined ? { name: a.name } : {}) }
      if (a.data !== undefined) return { ...base, data: a.data } satisfies Attached
      if (a.sha256 === undefined) return { ...base, url: a.url } satisfies Attached
      const store = yield* Effect.serviceOption(Attachments)
      const data = Option.isSome(store) ? yield* store.value.get(a.sha256) : Option.none()
      if (Option.isNone(data)) {
        return yield* new StoreError({ operation: `reading attachment ${a.sha256}`, detail: "not in the store" })
      }
      return { ...base, data: data.value } satisfies Attached
    }))
