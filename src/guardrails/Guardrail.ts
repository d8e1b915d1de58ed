/**
 * A guardrail: a check on a text at one point of a run that allows it, redacts it or blocks it. The built-in ones are
 * data (GuardrailSpec); one's own is a function returning an Effect of a verdict — a model-based check is written so.
 */
import type { Effect } from "effect"
import type { Llm } from "../llm/Llm.js"
import { GUARDRAIL_POINTS, type GuardrailPoint, type GuardrailSpec, specName } from "./GuardrailSpec.js"

export type Verdict =
  | { readonly _tag: "allow" }
  | { readonly _tag: "redact"; readonly text: string }
  | { readonly _tag: "block"; readonly reason: string }

export const allow: Verdict = { _tag: "allow" }
export const redact = (text: string): Verdict => ({ _tag: "redact", text })
export const block = (reason: string): Verdict => ({ _tag: "block", reason })

/** What a guardrail is told besides the text: where in the run it is, and the run's model (from `tool_call` on). */
export interface GuardrailContext {
  readonly point: GuardrailPoint
  readonly runId: string
  readonly stepId?: string | undefined
  /**
   * The run's model: a call made through it is admitted by the run's budget, counted and recorded like the run's
   * own. Absent at `input`, which is checked before anything of the run exists.
   */
  readonly llm?: Llm | undefined
}

/** A guardrail of one's own: a name (in its events) and its check. */
export interface Guardrail {
  readonly name: string
  readonly check: (text: string, context: GuardrailContext) => Effect.Effect<Verdict>
}

export type GuardrailEntry = GuardrailSpec | Guardrail
export type GuardrailSet = { readonly [P in GuardrailPoint]?: ReadonlyArray<GuardrailEntry> }

export const isCustom = (g: GuardrailEntry): g is Guardrail => "check" in g
export const entryName = (g: GuardrailEntry) => (isCustom(g) ? g.name : specName(g))

/** The sets one after the other at each point: a run's checks add to the server's, never take any away. */
export const combine = (...sets: ReadonlyArray<GuardrailSet | undefined>): GuardrailSet => {
  const out: { [P in GuardrailPoint]?: Array<GuardrailEntry> } = {}
  for (const set of sets) {
    for (const point of GUARDRAIL_POINTS) {
      const entries = set?.[point] ?? []
      if (entries.length > 0) out[point] = [...out[point] ?? [], ...entries]
    }
  }
  return out
}
