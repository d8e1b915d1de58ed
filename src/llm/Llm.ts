import type { Effect } from "effect"
import { isRunHalt, type RunHalt } from "../domain/Errors.js"
import type { PromptContract, PromptInputError } from "../prompts/PromptRegistry.js"
import type { Generated } from "./LanguageModel.js"
import type { ModelError } from "./ModelErrors.js"

export type LlmError = ModelError | PromptInputError | RunHalt

/**
 * The model as one run sees it: calls are admitted against the run's budget, recorded, and
 * malformed answers repaired. Capabilities (validation, convergence, planning, depth) receive it
 * as a parameter, so they do not depend on the kernel that builds it.
 */
export interface Llm {
  readonly label: string
  readonly generate: <I, O>(
    contract: PromptContract<I, O>,
    input: I,
    options?: {
      readonly maxOutputTokens?: number
      readonly attachments?: ReadonlyArray<import("../domain/Attachment.js").Attached> | undefined
      readonly thinkingTokens?: number | undefined
    }
  ) => Effect.Effect<Generated<O>, LlmError>
}

/**
 * Model failures a best-effort capability may absorb (into an advisory); what halts the run (a budget, a provider
 * that cannot serve it) is never absorbed.
 */
export const isModelFailure = (e: LlmError): e is Exclude<LlmError, RunHalt> => !isRunHalt(e)
