/**
 * The `input` guardrails: the task, a client's history and the text of the task's files, checked before anything is
 * stored or sent. The input the run keeps is the checked one (placeholders, not values); what triggered travels with
 * the stored input (`inputGuardrails`), so that the run's log says it however the run is started (here, queued, on
 * another runner).
 */
import { Effect, Option, Schema } from "effect"
import type { AttachmentInput } from "../domain/Attachment.js"
import { type Checked, checkText, makePlaceholders, type Trigger } from "../guardrails/Checking.js"
import { combine, type GuardrailEntry, Guardrails, type GuardrailSet } from "../guardrails/Guardrails.js"
import { GuardrailAction, GuardrailPoint } from "../guardrails/GuardrailSpec.js"
import { fieldOf } from "../support/Fields.js"
import { resolvedAgentOf, type RunTaskInput } from "./RunInput.js"

/** What an input guardrail did, as the stored input keeps it (never the matched text). */
export const InputTrigger = Schema.Struct({
  point: GuardrailPoint,
  guardrail: Schema.String,
  action: GuardrailAction,
  kinds: Schema.Array(Schema.String),
  placeholders: Schema.Array(Schema.String),
  reason: Schema.optional(Schema.String)
})
export const INPUT_TRIGGERS_KEY = "inputGuardrails"

/** The stored input's triggers (none for a run stored before guardrails, or without any). */
export const storedTriggers = (stored: unknown): ReadonlyArray<Trigger> => {
  const raw = fieldOf(stored, INPUT_TRIGGERS_KEY)
  return Schema.decodeUnknownOption(Schema.Array(InputTrigger))(raw ?? []).pipe(Option.getOrElse(() => []))
}

/** The stored input without its triggers: what RunTaskInput decodes. */
export const withoutTriggers = (stored: unknown): unknown => {
  if (stored === null || typeof stored !== "object" || !(INPUT_TRIGGERS_KEY in stored)) return stored
  return Object.fromEntries(Object.entries(stored).filter(([key]) => key !== INPUT_TRIGGERS_KEY))
}

/** A file whose bytes are text: its text is checked like the task's. */
const isText = (mediaType: string) =>
  mediaType.startsWith("text/") || /^application\/(json|xml|yaml|x-yaml|csv|markdown)$/.test(mediaType)

export interface GuardedInput {
  readonly input: RunTaskInput
  readonly triggers: ReadonlyArray<Trigger>
  readonly blocked?: Trigger | undefined
}

/** A run's guardrails: the server's, then its agent's, then its own (a run adds checks, never removes one). */
export const runGuardrails = (server: GuardrailSet | undefined, input: RunTaskInput) =>
  combine(server, resolvedAgentOf(input)?.definition.guardrails, input.guardrails)

/** The run's input guardrails on its input. */
export const guardInput = (input: RunTaskInput, runId: string): Effect.Effect<GuardedInput> =>
  Effect.gen(function*() {
    const server = Option.getOrUndefined(yield* Effect.serviceOption(Guardrails))
    const entries: ReadonlyArray<GuardrailEntry> = runGuardrails(server?.set, input).input ?? []
    if (entries.length === 0) return { input, triggers: [] }
    const placeholders = server ? server.placeholdersOf(runId) : makePlaceholders()
    const triggers: Array<Trigger> = []
    let blocked: Trigger | undefined
    const check = (text: string) =>
      Effect.map(checkText(entries, text, placeholders, { point: "input", runId }), (c: Checked<string>) => {
        triggers.push(...c.triggers)
        blocked ??= c.blocked
        return c.value
      })
    const task = yield* check(input.task)
    const history = input.history &&
      (yield* Effect.forEach(input.history, (m) => Effect.map(check(m.text), (text) => ({ ...m, text }))))
    const attachments = input.attachments && (yield* Effect.forEach(input.attachments, (a) => checkFile(a, check)))
    for (const t of triggers) server?.counted(t)
    return {
      input: {
        ...input,
        task,
        ...(history ? { history } : {}),
        ...(attachments ? { attachments } : {})
      },
      triggers,
      blocked
    }
  })

const checkFile = (a: AttachmentInput, check: (text: string) => Effect.Effect<string>) =>
  a.data === undefined || !isText(a.mediaType) ? Effect.succeed(a) : Effect.map(
    check(Buffer.from(a.data, "base64").toString("utf8")),
    (text) =>
      text === Buffer.from(a.data!, "base64").toString("utf8")
        ? a
        : { ...a, data: Buffer.from(text, "utf8").toString("base64") }
  )
