import { triggerInWords, type TriggerSaid } from "../guardrails/Words.js"
import type { RunViewEventsSubscription } from "./generated/operations.js"

type Event = RunViewEventsSubscription["runEvents"]

/** What the run's guardrails did (GuardrailTriggered): which, where, the kinds and placeholders — never the text. */
export const Guardrails = ({ events }: { events: ReadonlyArray<Event> }) => {
  const triggers = events.filter((e) => e.type === "GuardrailTriggered").map((e) => e.payload as TriggerSaid)
  if (triggers.length === 0) return null
  return (
    <section data-testid="guardrails">
      <h2>Guardrails</h2>
      <ul>{triggers.map((t) => <li class={t.action === "block" ? "error" : ""}>{triggerInWords(t)}</li>)}</ul>
    </section>
  )
}
