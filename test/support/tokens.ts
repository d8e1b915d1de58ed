import { decode, encode } from "gpt-tokenizer/encoding/cl100k_base"

/**
 * The first `tokens` tokens of a text (all of it when it has no more): what a provider writes before its output cap
 * stops it. The providers' stubs cut thinking and answer together at the request's cap, as Claude's max_tokens and
 * Gemini's maxOutputTokens do.
 */
export const cutTokens = (text: string, tokens: number) => {
  const encoded = encode(text)
  return encoded.length <= tokens ? text : decode(encoded.slice(0, Math.max(0, tokens)))
}
