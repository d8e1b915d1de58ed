import { countTokens as count } from "gpt-tokenizer/encoding/o200k_base"

const cache = new Map<string, number>()

/**
 * Counts tokens with the o200k_base encoding (GPT-4o family; a close estimate for other models),
 * through gpt-tokenizer (about six times faster than js-tiktoken here). Short texts that recur —
 * system prompts, templated answers — are remembered.
 */
export const countTokens = (text: string): number => {
  if (text.length > 4_096) return count(text)
  let n = cache.get(text)
  if (n === undefined) {
    n = count(text)
    if (cache.size > 2_000) cache.clear()
    cache.set(text, n)
  }
  return n
}
