/**
 * The string value of a top-level `field` of a JSON object that is still being written: what a reader can show of a
 * structured answer before it is complete (`{"answerText": "The ans` → `The ans`). Undefined until the field's value
 * has begun, or when it is not a string. Escapes are decoded; an escape cut in the middle is left out until it is whole.
 */
export const partialStringField = (partial: string, field: string): string | undefined => {
  let depth = 0
  let i = 0
  let lastKey: string | undefined
  while (i < partial.length) {
    const c = partial[i]!
    if (c === "\"") {
      const [value, end, closed] = readString(partial, i + 1)
      if (!closed) return depth === 1 && lastKey === field && afterColon(partial, i) ? value : undefined
      if (depth === 1 && afterColon(partial, i)) {
        if (lastKey === field) return value
      } else if (depth === 1) lastKey = value
      i = end
      continue
    }
    if (c === "{" || c === "[") depth++
    else if (c === "}" || c === "]") depth--
    else if (c === "," && depth === 1) lastKey = undefined
    i++
  }
  return undefined
}

/** Whether the string opening at `quote` is a value (a colon before it), not a key. */
const afterColon = (text: string, quote: number) => {
  let j = quote - 1
  while (j >= 0 && /\s/.test(text[j]!)) j--
  return text[j] === ":"
}

const ESCAPES: Record<string, string> = {
  "\"": "\"",
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t"
}

/** The string that starts at `start` (after its quote): its decoded text, the index after it, whether it closed. */
const readString = (text: string, start: number): [string, number, boolean] => {
  let out = ""
  let i = start
  while (i < text.length) {
    const c = text[i]!
    if (c === "\"") return [out, i + 1, true]
    if (c !== "\\") {
      out += c
      i++
      continue
    }
    const e = text[i + 1]
    if (e === undefined) break
    if (e === "u") {
      const hex = text.slice(i + 2, i + 6)
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) break
      out += String.fromCharCode(parseInt(hex, 16))
      i += 6
      continue
    }
    out += ESCAPES[e] ?? e
    i += 2
  }
  return [out, i, false]
}
