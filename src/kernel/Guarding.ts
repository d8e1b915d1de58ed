/**
 * A run's guardrails as the kernel uses them: the server's and the run's at each point, the run's placeholders, and
 * every trigger an event (GuardrailTriggered) and a count in the server's health.
 */
import { Effect } from "effect"
import type { RunEventBody } from "../domain/RunEvent.js"
import { type Checked, checkText, checkValue, type Placeholders, scrub, type Trigger } from "../guardrails/Checking.js"
import type { GuardrailSet } from "../guardrails/Guardrail.js"
import type { GuardrailPoint } from "../guardrails/GuardrailSpec.js"
import type { RunJournal } from "../journal/RunJournal.js"
import type { Llm } from "../llm/Llm.js"

/** Where in the run a text is checked (a tool's step). */
export interface GuardSite {
  readonly passNumber?: number | undefined
  readonly stepId?: string | undefined
}

export interface RunGuardrails {
  /** Whether any guardrail checks this point. */
  readonly at: (point: GuardrailPoint) => boolean
  readonly text: (point: GuardrailPoint, text: string, site?: GuardSite) => Effect.Effect<Checked<string>>
  readonly value: (point: GuardrailPoint, value: unknown, site?: GuardSite) => Effect.Effect<Checked<unknown>>
  /** What a record may keep of a value a point's guardrails check elsewhere (the built-ins' matches replaced). */
  readonly recorded: <A>(point: GuardrailPoint, value: A) => A
}

/** A trigger as the run's event. */
export const triggeredEvent = (t: Trigger, site: GuardSite = {}): RunEventBody => ({
  _tag: "GuardrailTriggered",
  point: t.point,
  guardrail: t.guardrail,
  action: t.action,
  kinds: t.kinds,
  placeholders: t.placeholders,
  ...(site.passNumber !== undefined ? { passNumber: site.passNumber } : {}),
  ...(site.stepId !== undefined ? { stepId: site.stepId } : {})
})

export const none: RunGuardrails = {
  at: () => false,
  text: (_, text) => Effect.succeed({ value: text, triggers: [] }),
  value: (_, value) => Effect.succeed({ value, triggers: [] }),
  recorded: (_, value) => value
}

export const make = (
  set: GuardrailSet,
  placeholders: Placeholders,
  events: RunJournal,
  options: { readonly llm?: Llm | undefined; readonly counted?: (t: Trigger) => void } = {}
): RunGuardrails => {
  const recorded = <A>(site: GuardSite | undefined) => (checked: Checked<A>) =>
    Effect.as(
      Effect.forEach(checked.triggers, (t) => {
        options.counted?.(t)
        return events.emit(triggeredEvent(t, site))
      }, { discard: true }),
      checked
    )
  const context = (point: GuardrailPoint, site?: GuardSite) => ({
    point,
    runId: events.runId,
    stepId: site?.stepId,
    llm: options.llm
  })
  const entries = (point: GuardrailPoint) => set[point] ?? []
  return {
    at: (point) => entries(point).length > 0,
    text: (point, text, site) =>
      entries(point).length === 0
        ? Effect.succeed({ value: text, triggers: [] })
        : Effect.flatMap(checkText(entries(point), text, placeholders, context(point, site)), recorded(site)),
    value: (point, value, site) =>
      entries(point).length === 0
        ? Effect.succeed({ value, triggers: [] })
        : Effect.flatMap(checkValue(entries(point), value, placeholders, context(point, site)), recorded(site)),
    recorded: (point, value) => scrub(entries(point), value, placeholders)
  }
}
