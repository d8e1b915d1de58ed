import { useState } from "preact/hooks"
import { gql } from "./Api.js"
import { PlanGraph, type Run } from "./Sections.js"

/** What a run asks a person, answered in the page: tool calls, its plan (with the forecast), more budget. */

const RESPOND =
  /* GraphQL */ `mutation RespondInViewer($runId: ID!, $requestId: ID!, $decision: ApprovalDecision!, $input: JSON, $reason: String) {
  respondToApproval(runId: $runId, requestId: $requestId, decision: $decision, input: $input, reason: $reason) { id } }`

type Answer = (requestId: string, decision: "APPROVE" | "REJECT" | "EDIT", input?: unknown) => Promise<void>

const answerer =
  (run: Run, refresh: () => void, onError: (message: string) => void): Answer => (requestId, decision, input) =>
    gql(RESPOND, {
      runId: run.id,
      requestId,
      decision,
      input: input ?? null,
      reason: decision === "REJECT" ? "rejected in the run viewer" : null
    }).then(() => (onError(""), refresh()), (e) => onError(e.message))

const usd = (n: number) => `$${n.toFixed(4)}`
type Figures = { readonly llmCalls: number; readonly tokens: number; readonly costUsd: number }
type PlanRequest = NonNullable<Run["pendingPlanApproval"]>
type ExtensionRequest = Run["pendingBudgetExtensions"][number]

const figures = (f: Figures) => `${Math.round(f.llmCalls)} calls · ${Math.round(f.tokens)} tokens · ${usd(f.costUsd)}`

/** The forecast beside the budget gauges: expected and worst case, and how far off it was once the run ended. */
export const ForecastLine = ({ run }: { run: Run }) =>
  run.forecast
    ? (
      <p class="forecast" data-testid="forecast">
        forecast: expected {figures(run.forecast.expected)} · worst case {figures(run.forecast.worstCase)}
        {run.forecastError?.costUsd != null
          ? ` · cost off by ${Math.round(100 * Math.abs(run.forecastError.costUsd))} %`
          : ""}
      </p>
    )
    : null

const ToolApprovals = ({ answer, run }: { run: Run; answer: Answer }) =>
  run.pendingApprovals.map((a) => (
    <div class="approval">
      <p>
        {a.stepId}: {a.description} — <code>{a.tool}</code> <code>{JSON.stringify(a.input)}</code>
      </p>
      <p class="answers">
        <button type="button" onClick={() => answer(a.requestId, "APPROVE")}>Approve</button>
        <button type="button" class="secondary" onClick={() => answer(a.requestId, "REJECT")}>Reject</button>
      </p>
    </div>
  ))

/** A plan's forecast per step and for the whole run. */
const PlanForecast = ({ forecast }: { forecast: NonNullable<PlanRequest["forecast"]> }) => (
  <table data-testid="plan-forecast">
    <tr>
      <th>step</th>
      <th>expected</th>
      <th>at most</th>
    </tr>
    {forecast.perStep.map((s) => (
      <tr>
        <td>{s.stepId}</td>
        <td>{usd(s.expected.costUsd)}</td>
        <td>{usd(s.worstCase.costUsd)}</td>
      </tr>
    ))}
    <tr>
      <td>whole run</td>
      <td>{figures(forecast.expected)}</td>
      <td>{figures(forecast.worstCase)}</td>
    </tr>
  </table>
)

/** The plan waiting for approval: its graph, the forecast per step, and approve / edit (JSON edits) / reject. */
const PlanApproval = ({ answer, request }: { request: PlanRequest; answer: Answer }) => {
  const [edits, setEdits] = useState("")
  const edit = () => {
    let parsed: unknown
    try {
      parsed = JSON.parse(edits)
    } catch {
      return alert("the edits are not JSON")
    }
    return answer(request.requestId, "EDIT", parsed)
  }
  return (
    <div class="approval" data-testid="plan-approval">
      <p>The plan waits for your approval before it runs.</p>
      <PlanGraph plan={request.plan} />
      {request.forecast && <PlanForecast forecast={request.forecast} />}
      <p class="answers">
        <button type="button" onClick={() => answer(request.requestId, "APPROVE")}>Approve plan</button>
        <button type="button" class="secondary" onClick={() => answer(request.requestId, "REJECT")}>Reject plan</button>
      </p>
      <p>
        <textarea
          rows={3}
          cols={80}
          placeholder='edits, e.g. [{"actionType":"REMOVE","targetStepId":"s2"}]'
          value={edits}
          onInput={(e) => setEdits(e.currentTarget.value)}
          data-testid="plan-edits"
        />
        <button type="button" onClick={edit}>Run with these edits</button>
      </p>
    </div>
  )
}

/** A cap that would have stopped the run: raise it (prefilled with the proposal) or let the run stop. */
const BudgetExtension = ({ answer, request }: { request: ExtensionRequest; answer: Answer }) => {
  const [key, proposed] = Object.entries(request.proposed as Record<string, number>)[0] ?? [request.dimension, 0]
  const [cap, setCap] = useState(String(proposed))
  return (
    <div class="approval" data-testid="budget-extension">
      <p>
        The run has used {request.used} of its {request.limit} {request.dimension}: {request.needs}
        {request.forecast ? ` — the rest is expected to need ${figures(request.forecast.expected)} in all` : ""}
      </p>
      <label>
        {key} <input value={cap} onInput={(e) => setCap(e.currentTarget.value)} data-testid="budget-cap" />
      </label>
      <button type="button" onClick={() => answer(request.requestId, "APPROVE", { [key]: Number(cap) })}>
        Raise and go on
      </button>
      <button type="button" onClick={() => answer(request.requestId, "REJECT")}>Stop at the budget</button>
    </div>
  )
}

export const Requests = ({ run, refresh }: { run: Run; refresh: () => void }) => {
  const [error, setError] = useState("")
  const answer = answerer(run, refresh, setError)
  const plan = run.pendingPlanApproval
  if (run.pendingApprovals.length === 0 && !plan && run.pendingBudgetExtensions.length === 0) return null
  return (
    <section data-testid="approvals">
      <h2>Waiting for you</h2>
      {error && <p class="error" data-testid="request-error">{error}</p>}
      {plan && <PlanApproval request={plan} answer={answer} />}
      {run.pendingBudgetExtensions.map((r) => <BudgetExtension request={r} answer={answer} />)}
      <ToolApprovals run={run} answer={answer} />
    </section>
  )
}
