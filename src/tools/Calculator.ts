/** A safe arithmetic evaluator: numbers, + - * / % ^, parentheses, unary minus. No eval. */
export class CalculatorError extends Error {}

export const evaluate = (expression: string): number => {
  const tokens = expression.match(/\d+(?:\.\d+)?(?:e[+-]?\d+)?|[-+*/%^()]|\S/gi) ?? []
  let pos = 0
  const peek = () => tokens[pos]
  const next = () => tokens[pos++]
  const expect = (t: string) => {
    if (next() !== t) throw new CalculatorError(`expected "${t}" in "${expression}"`)
  }
  const primary = (): number => {
    const t = next()
    if (t === undefined) throw new CalculatorError(`unexpected end of expression "${expression}"`)
    if (t === "(") {
      const v = sum()
      expect(")")
      return v
    }
    if (t === "-") return -power()
    if (t === "+") return power()
    const n = Number(t)
    if (!Number.isFinite(n)) throw new CalculatorError(`unexpected "${t}" in "${expression}"`)
    return n
  }
  const power = (): number => {
    const base = primary()
    if (peek() === "^") {
      next()
      return base ** power()
    }
    return base
  }
  const product = (): number => {
    let v = power()
    while (peek() === "*" || peek() === "/" || peek() === "%") {
      const op = next()
      const r = power()
      if ((op === "/" || op === "%") && r === 0) throw new CalculatorError(`division by zero in "${expression}"`)
      v = op === "*" ? v * r : op === "/" ? v / r : v % r
    }
    return v
  }
  const sum = (): number => {
    let v = product()
    while (peek() === "+" || peek() === "-") {
      const op = next()
      const r = product()
      v = op === "+" ? v + r : v - r
    }
    return v
  }
  if (tokens.length === 0) throw new CalculatorError("empty expression")
  const value = sum()
  if (pos !== tokens.length) throw new CalculatorError(`unexpected "${tokens[pos]}" in "${expression}"`)
  return value
}

/** Finds the longest arithmetic expression in free text, e.g. "(17 + 25) * 3" in a task. */
export const findExpression = (text: string): string | undefined => {
  const candidates = text.match(/[-(\d][\d\s.+\-*/%^()]*[\d)]/g) ?? []
  const valid = candidates
    .map((c) => c.trim())
    .filter((c) => /\d\s*[-+*/%^]\s*[-(\d]/.test(c))
    .filter((c) => {
      try {
        evaluate(c)
        return true
      } catch {
        return false // not an expression: this candidate is skipped, others are tried
      }
    })
  return valid.sort((a, b) => b.length - a.length)[0]
}
