import type { Run } from "./Sections.js"

/** How a run stopped, in words (its termination reason, the budget that ran out, its error). */
export const stopInWords = (run: Run): string | undefined => {
  const r = run.result
  if (!r || run.status === "CONVERGED" || run.status === "RUNNING" || run.status === "QUEUED") return undefined
  if (run.status === "AWAITING_INPUT") return "waiting for a person: answer the request above"
  const exhausted = r.ttlExpiration?.exhausted
  switch (r.terminationReason) {
    case "ttl_expired":
      return "stopped: its passes ran out before the checks found the answer complete"
    case "budget_exhausted":
      return `stopped: the ${exhausted ?? ""} budget ran out${r.error ? ` (${r.error})` : ""}`
    case "stalled":
      return `stopped: ${r.error ?? "nothing left to execute and no refinement possible"}`
    case "cancelled":
      return "cancelled"
    case "failed":
      return `failed${r.errorCode ? ` (${r.errorCode})` : ""}: ${r.error ?? "no reason recorded"}`
    default:
      return r.error ? `${run.status.toLowerCase()}: ${r.error}` : run.status.toLowerCase().replace(/_/g, " ")
  }
}

/**
 * Why a run did not converge, where a person looks first: how it stopped, in words, and each step that failed or
 * was invalid with its reason (the step's error, or what the model said of it), and what the last checks found.
 */
export const Outcome = ({ run }: { run: Run }) => {
  const why = stopInWords(run)
  if (why === undefined) return null
  // a run waiting for a person has not ended: said as what it waits for, not as an error
  if (run.status === "AWAITING_INPUT") {
    return (
      <section class="outcome waiting" data-testid="outcome">
        <h2>Waiting</h2>
        <p class="meta">{why}</p>
      </section>
    )
  }
  const steps = (run.plan?.steps ?? []).filter((s) =>
    s.supersededBy == null && (s.status === "failed" || s.status === "invalid")
  )
  const last = run.history?.passes.at(-1)?.convergence
  const codes = (last?.reasonCodes ?? []).filter((c) => c !== "ttl_expired")
  return (
    <section class="outcome" data-testid="outcome">
      <h2>Why it ended</h2>
      <p class="error">{why}</p>
      {steps.length > 0 && (
        <ul>
          {steps.map((s) => (
            <li data-testid="step-reason">
              {s.stepId} · {s.status}: {s.error ?? (s.stepOutput || "no reason recorded")}
            </li>
          ))}
        </ul>
      )}
      {codes.length > 0 && <p class="meta">the last checks found: {codes.join(", ").replace(/_/g, " ")}</p>}
    </section>
  )
}
