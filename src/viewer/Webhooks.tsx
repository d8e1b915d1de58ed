import type { Run } from "./Sections.js"

/** Each attempt at telling the run's webhook of an event: which, the receiver's status or why none, delivered or not. */
export const WebhookDeliveries = ({ run }: { run: Run }) => {
  const attempts = run.webhookDeliveries ?? []
  if (attempts.length === 0) return null
  return (
    <section data-testid="webhooks">
      <h2>Webhook</h2>
      <ul>
        {attempts.map((a) => (
          <li class={a.delivered ? "" : "error"}>
            {a.event} · attempt {a.attempt} · {a.httpStatus ?? "no answer"}
            {a.error ? ` · ${a.error}` : ""}
            {a.delivered ? " · delivered" : ""} · {new Date(a.at).toLocaleTimeString()}
          </li>
        ))}
      </ul>
    </section>
  )
}
