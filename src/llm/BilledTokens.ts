/**
 * The input tokens a provider bills for a call: counted on the request as it is sent (llm/LanguageModel's admission
 * reads them), or bounded without counting.
 */
import { type Attached, attachmentTokens } from "../domain/Attachment.js"
import { outputJsonSchema, type PromptContract } from "../prompts/PromptRegistry.js"
import { countTokens } from "./Tokenizer.js"

/**
 * What a chat-completions provider bills is the request as sent, counted by its own tokenizer: the messages as JSON
 * (their quotes and newlines escaped: about 8 % more tokens than the bare texts), the chat format's framing (OpenAI
 * counts 3 a message and 3 priming the reply; 4 a message here, for providers that frame with more) and the output
 * format — the `response_format` with its JSON Schema, or, where a server refuses that, the schema escaped inside
 * the system message after a sentence asking for it. Admission counts all of it, so a run's `maxTokens` holds
 * against what is billed, not only against what Aeon wrote.
 */
const CHAT_FRAMING_TOKENS = 2 * 4 + 3
/** The sentence that asks for the schema when it goes in the prompt (llm/OpenAi), with room to spare. */
const SCHEMA_IN_PROMPT_TOKENS = 40
/**
 * Another tokenizer than Aeon's (o200k) may count the same request a little higher (cl100k counts Aeon's JSON
 * requests within 1 % of o200k; other families within a few per cent): the count is raised by this much, so a cap
 * holds by the provider's count. A provider that reports no usage is counted with ESTIMATE_MARGIN instead.
 */
export const TOKENIZER_MARGIN = 1.1
/** Bytes of JSON around the two texts and the schema (roles, keys, brackets, the response_format's wrapper). */
const WRAPPER_BYTES = 256
/** Per schema object: the contracts' own are made once per prompt, a run's output schema once per run. */
const schemaTexts = new WeakMap<object, { readonly text: string; tokens?: number }>()
/** The structured-output schema as it may be sent: escaped as a string, the larger of its two forms. */
const schemaOf = <I, O>(contract: PromptContract<I, O>) => {
  const schema = outputJsonSchema(contract)
  let s = schemaTexts.get(schema)
  if (s === undefined) {
    const format = { type: "json_schema", json_schema: { name: contract.id, schema, strict: false } }
    s = { text: JSON.stringify(JSON.stringify(format)) }
    schemaTexts.set(schema, s)
  }
  return s
}
const schemaTokensOf = <I, O>(contract: PromptContract<I, O>) => {
  const s = schemaOf(contract)
  return s.tokens ??= countTokens(s.text)
}

/** The messages as the request carries them (JSON), whose tokens a provider bills. */
const messagesAsSent = (system: string, user: string) =>
  JSON.stringify([{ role: "system", content: system }, { role: "user", content: user }])

/** The billed input of a call's texts, schema and files, raised by `margin` (another tokenizer's, or an estimate's). */
export const billedInputTokens = <I, O>(
  system: string,
  user: string,
  contract: PromptContract<I, O>,
  attachments: ReadonlyArray<Attached>,
  margin: number
) => {
  const billed = countTokens(messagesAsSent(system, user)) + CHAT_FRAMING_TOKENS + SCHEMA_IN_PROMPT_TOKENS +
    schemaTokensOf(contract) + attachments.reduce((n, a) => n + attachmentTokens(a), 0)
  return Math.ceil(billed * margin)
}

/**
 * A bound on the billed input without counting the texts (the schema's included: counting it would load the
 * tokenizer — 65 MB, a quarter of a second — in every process, also where the provider reports usage): a token of
 * any byte-level tokenizer covers at least one byte, and a UTF-16 unit of JSON text (the texts escaped as sent) is
 * at most three bytes.
 */
export const billedInputBound = <I, O>(system: string, user: string, contract: PromptContract<I, O>, margin: number) =>
  Math.ceil(
    (3 * (JSON.stringify(system).length + JSON.stringify(user).length + schemaOf(contract).text.length) +
      WRAPPER_BYTES + CHAT_FRAMING_TOKENS + SCHEMA_IN_PROMPT_TOKENS) * margin
  )
