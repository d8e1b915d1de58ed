import type { RunViewEventsSubscription } from "./generated/operations.js"

type Event = RunViewEventsSubscription["runEvents"]

/**
 * The tools each plan call was offered when the run's catalog was past the bound (ToolsOffered; planning/ToolCatalog):
 * their names, of how many, or that the task was planned without the catalog. Nothing for a run offered every tool.
 */
export const ToolsOffered = ({ events }: { events: ReadonlyArray<Event> }) => {
  const offers = events.filter((e) => e.type === "ToolsOffered").map((e) =>
    e.payload as { passNumber: number; tools: ReadonlyArray<string>; total: number }
  )
  if (offers.length === 0) return null
  return (
    <section data-testid="tools-offered">
      <h2>Tools offered</h2>
      <ul>
        {offers.map((o) => (
          <li>
            pass {o.passNumber}: {o.tools.length === 0
              ? `no tool (planned without the catalog of ${o.total})`
              : `${o.tools.length} of ${o.total}: ${o.tools.join(", ")}`}
          </li>
        ))}
      </ul>
    </section>
  )
}
