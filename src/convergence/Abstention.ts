/**
 * Whether an answer says it lacks what the task asked for ("I don't have information about …", "cannot be
 * determined from the context", "no tool result or earlier context to work from"): such an answer is not a result,
 * however complete the steps look. Returns the words that say so, for the reason.
 */
const SAYS_IT_LACKS: ReadonlyArray<RegExp> = [
  // "no information", "not enough context", "insufficient data", "no tool result or earlier context"
  /\b(?:no|not enough|insufficient|too little|lack of|lacks?|lacking|missing|without (?:any|the|enough))\s+(?:\w+\s+){0,3}?(?:information|context|data|knowledge|details|sources?)\b(?!\s+(?:is|was)\s+(?:needed|required))/i,
  // "I cannot determine", "we are unable to answer", "I don't know"
  /\b(?:i|we)\s+(?:do not|don't|cannot|can't|could not|couldn't|am unable to|are unable to|am not able to|have no way to)\s+(?:\w+\s+)?(?:know|answer|determine|find|tell|say|verify|provide|access)\b/i,
  // "cannot be determined", "is not available in the context", "unknown from the given data"
  /\b(?:cannot|can't|could not|couldn't)\s+be\s+(?:determined|answered|found|known|verified)\b/i,
  /\bnot\s+(?:available|provided|given|specified|stated)\s+in\s+the\s+(?:context|information|data|sources?|input)\b/i,
  /\b(?:i|we)\s+(?:do not|don't)\s+have\s+(?:\w+\s+){0,2}(?:information|access|data|knowledge|context)\b/i
]

export const admitsMissingInformation = (answer: string): string | undefined => {
  for (const pattern of SAYS_IT_LACKS) {
    const m = answer.match(pattern)
    if (m) return m[0]
  }
  return undefined
}
