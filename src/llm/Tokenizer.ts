import { createRequire } from "node:module"
import { memoize } from "../support/Memoize.js"

/**
 * gpt-tokenizer's o200k_base encoding, loaded on the first count: its ranks take about 65 MB, which a server
 * whose provider reports usage never needs (most counts are avoided by the 3 × length bound, see LanguageModel).
 */
let count: ((text: string) => number) | undefined
const load = () => {
  const loaded = createRequire(import.meta.url)("gpt-tokenizer/encoding/o200k_base") as {
    countTokens: (text: string) => number
  }
  return loaded.countTokens
}

/**
 * Counts tokens with the o200k_base encoding (GPT-4o family; a close estimate for other models),
 * through gpt-tokenizer (about six times faster than js-tiktoken here). Short texts that recur —
 * system prompts, templated answers — are remembered.
 */
export const countTokens: (text: string) => number = memoize((text: string) => (count ??= load())(text), {
  limit: 2_000,
  maxKeyLength: 4_096
})

/** Whether the encoding has been loaded in this process (a run that never needed an exact count never loads it). */
export const isLoaded = () => count !== undefined
