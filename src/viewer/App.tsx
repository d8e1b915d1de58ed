import { render } from "preact"
import { useEffect, useMemo, useRef, useState } from "preact/hooks"
import { isFinal } from "../domain/RunStatus.js"
import { gql, subscribe, Unauthorized } from "./Api.js"
import type { CancelInViewerMutation, RunViewEventsSubscription, RunViewQuery } from "./generated/operations.js"
import { Guardrails } from "./Guardrails.js"
import { KeyForm } from "./KeyForm.js"
import { LiveOutput, StoreWait } from "./Live.js"
import { FromEarlierRuns, MemoryPage } from "./Memory.js"
import { Outcome } from "./Outcome.js"
import { ForecastLine, Requests } from "./Requests.js"
import { RunList } from "./RunList.js"
import { Calls, Convergence, Gauge, Issues, PlanGraph, type Run, Timeline } from "./Sections.js"
import { ConversationLine, ThreadPage, ThreadsPage } from "./Thread.js"
import { ToolsOffered } from "./ToolsOffered.js"
import { WebhookDeliveries } from "./Webhooks.js"

const RUN = /* GraphQL */ `query RunView($id: ID!) { run(id: $id) {
  id task status model models userId createdAt threadId files { name mediaType sha256 url }
  agent { name version } parentRunId children { id status agent { name version } }
  webhookDeliveries { event attempt httpStatus error at delivered }
  conversation { turn messages summarised compacted tokens }
  forkedFrom { runId atSeq changed }
  finalAnswer { answerText label data }
  result { advisories terminationReason error errorCode ttlExpiration { exhausted } }
  usage { llmCalls inputTokens outputTokens cachedTokens costUsd steps replayed { llmCalls } }
  pendingApprovals { requestId stepId tool input description }
  pendingPlanApproval { requestId plan { goal steps { stepId description tool status dependencies } }
    forecast { expected { ...F } worstCase { ...F } perStep { stepId expected { ...F } worstCase { ...F } } } }
  pendingBudgetExtensions { requestId dimension limit used needs proposed forecast { expected { ...F } } }
  forecast { expected { ...F } worstCase { ...F } }
  forecastError { costUsd }
  plan { goal steps { stepId description tool status dependencies supersededBy manualIntervention subplan error
    stepOutput } }
  history { passes { passNumber phases ttlRemaining durationSeconds
    validationReport { decidedBy issues { type severity description stepId source } }
    convergence { converged completenessScore coherenceScore consistencyStatus reasonCodes decidedBy } } }
  timeline { elapsedMs budget { name used cap left }
    passes { passNumber start end durationMs phases { phase seq start end durationMs }
      steps { stepId seq status start end durationMs } } } } }
fragment F on ForecastFigures { llmCalls tokens costUsd wallMs }`
const EVENTS =
  /* GraphQL */ `subscription RunViewEvents($id: ID!) { runEvents(runId: $id, fromSeq: 0) { seq type at payload } }`
const CANCEL = /* GraphQL */ `mutation CancelInViewer($id: ID!) { cancelRun(id: $id) { id status } }`
/** A person's stop for a run that has not ended: it ends CANCELLED (a tool call under way finishes first). */
const CancelButton = ({ runId, refresh }: { runId: string; refresh: () => Promise<void> }) => {
  const [busy, setBusy] = useState(false)
  const [failed, setFailed] = useState<string>()
  const cancel = () => {
    setBusy(true)
    gql<CancelInViewerMutation>(CANCEL, { id: runId }).then(
      () => refresh(),
      (e: Error) => (setFailed(e.message), setBusy(false))
    )
  }
  return (
    <span class="cancel">
      <button type="button" data-testid="cancel-run" disabled={busy} onClick={cancel}>
        {busy ? "cancelling…" : "Cancel run"}
      </button>
      {failed && <span class="error">{failed}</span>}
    </span>
  )
}

/** Its status, model, id, owner and events so far; a run that has not ended can be cancelled from here. */
const RunMeta = ({ events, refresh, run }: { run: Run; events: number; refresh: () => Promise<void> }) => (
  <p class="meta">
    <span class={`status ${run.status}`} data-testid="run-status">{run.status}</span> ·{" "}
    {run.models.length > 1 ? run.models.join(" → ") : run.model} · run {run.id}
    {run.userId ? ` · ${run.userId}` : ""} · {events} events
    {run.agent && (
      <span data-testid="run-agent">
        {" "}· agent {run.agent.name}
        {run.agent.version ? `@${run.agent.version}` : ""}
      </span>
    )}
    {run.parentRunId && (
      <>
        {" "}· called by <a href={`/runs/${encodeURIComponent(run.parentRunId)}`}>{run.parentRunId}</a>
      </>
    )}
    {run.children.length > 0 && (
      <span data-testid="run-children">
        {" "}· agents called: {run.children.map((c) => (
          <>
            {" "}
            <a href={`/runs/${encodeURIComponent(c.id)}`}>{c.agent?.name ?? c.id}</a> ({c.status})
          </>
        ))}
      </span>
    )}
    {!isFinal(run.status) && (
      <>
        {" "}· <CancelButton runId={run.id} refresh={refresh} />
      </>
    )}
  </p>
)

/** The run's budget gauges; while it runs, the deadline's moves with the clock between the server's readings. */
const BudgetGauges = ({ run }: { run: Run }) => {
  const readAt = useMemo(() => Date.now(), [run])
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    if (run.status !== "RUNNING") return
    const tick = window.setInterval(() => setNow(Date.now()), 500)
    return () => window.clearInterval(tick)
  }, [run.status])
  const since = run.status === "RUNNING" ? Math.max(0, now - readAt) : 0
  return (
    <>
      {(run.timeline?.budget ?? []).map((g) => (
        <Gauge
          name={g.name}
          used={g.name === "deadline" ? g.used + since : g.used}
          cap={g.cap ?? undefined}
          show={g.name === "cost"
            ? (n) => `$${n.toFixed(4)}`
            : g.name === "deadline"
            ? (n) => `${(n / 1000).toFixed(1)} s`
            : String}
        />
      ))}
    </>
  )
}

/** A run's page before its run is read, or when there is none: the way back to the list either way. */
const NotLoaded = ({ error }: { error: string | undefined }) => (
  <main>
    <p>
      <a href="/runs">← runs</a>
    </p>
    {error ? <p class="error">{error}</p> : <p>loading…</p>}
  </main>
)

/** A run as the page follows it: read, then read again as its events arrive (at most 4 times a second). */
const useRunView = (runId: string) => {
  const [events, setEvents] = useState<Array<RunViewEventsSubscription["runEvents"]>>([])
  const [run, setRun] = useState<Run>()
  const [error, setError] = useState<string>()
  const [locked, setLocked] = useState(false)
  const [attempt, setAttempt] = useState(0)
  const pending = useRef<number | undefined>(undefined)
  const refresh = () =>
    gql<RunViewQuery>(RUN, { id: runId }).then((d) => {
      if (!d.run) setError(`run ${runId} does not exist`)
      else setRun(d.run)
    }, (e) => (e instanceof Unauthorized ? setLocked(true) : setError(e.message)))
  // the run's record is folded by the server; the viewer asks for it again as events arrive
  const soon = () => {
    if (pending.current === undefined) {
      pending.current = window.setTimeout(() => {
        pending.current = undefined
        void refresh()
      }, 250)
    }
  }
  useEffect(() => {
    void refresh()
    const stop = subscribe<RunViewEventsSubscription>(EVENTS, { id: runId }, (d) => {
      setEvents((es) => [...es, d.runEvents])
      soon()
    }, (e) => {
      if (e && /API key/.test(e)) setLocked(true)
      else if (e) setError(e)
      void refresh()
    })
    return stop
  }, [runId, attempt])
  const unlock = () => (setLocked(false), setEvents([]), setAttempt((n) => n + 1))
  return { events, run, error, locked, refresh, unlock }
}

/** The files its task carried, and the run it was forked from. */
const RunOrigin = ({ run }: { run: Run }) => (
  <>
    {run.files.length > 0 && (
      <p class="meta" data-testid="run-files">
        files:{" "}
        {run.files.map((f) => `${f.name ?? f.url ?? f.sha256?.slice(0, 12) ?? "file"} (${f.mediaType})`).join(", ")}
      </p>
    )}
    {run.forkedFrom && (
      <p class="fork-origin" data-testid="fork-origin">
        forked from <a href={`/runs/${encodeURIComponent(run.forkedFrom.runId)}`}>{run.forkedFrom.runId}</a>{" "}
        at #{run.forkedFrom.atSeq}
        {run.forkedFrom.changed.length > 0 ? ` (changed: ${run.forkedFrom.changed.join(", ")})` : ""}
        {run.usage?.replayed ? ` · ${run.usage.replayed.llmCalls} calls replayed from its recordings, not paid` : ""}
      </p>
    )}
  </>
)

/** The budget's gauges, the forecast and the tokens used. */
const BudgetSection = ({ run }: { run: Run }) => (
  <section class="gauges" data-testid="gauges">
    <h2>Budget</h2>
    <BudgetGauges run={run} />
    <ForecastLine run={run} />
    {run.usage && (
      <p class="tokens" data-testid="token-usage">
        tokens: {run.usage.inputTokens} in{run.usage.cachedTokens ? ` (${run.usage.cachedTokens} cached)` : ""} ·{" "}
        {run.usage.outputTokens} out
      </p>
    )}
  </section>
)

/** The answer (its value's JSON when it has one), labeled when the offline stand-in wrote it. */
const AnswerSection = ({ run }: { run: Run }) =>
  run.finalAnswer
    ? (
      <section data-testid="answer">
        <h2>Answer {run.finalAnswer.label ? `(${run.finalAnswer.label})` : ""}</h2>
        {run.model === "offline" && (
          <p class="meta" data-testid="stand-in">
            written by the offline rule-based stand-in (it restates step results and does not reason): configure a model
            provider for a reasoning model
          </p>
        )}
        {run.finalAnswer.data !== null && run.finalAnswer.data !== undefined
          ? <pre data-testid="answer-data" class="json">{JSON.stringify(run.finalAnswer.data, null, 2)}</pre>
          : <pre>{run.finalAnswer.answerText}</pre>}
      </section>
    )
    : null

const RunView = ({ runId }: { runId: string }) => {
  const { error, events, locked, refresh, run, unlock } = useRunView(runId)
  if (locked) return <KeyForm onKey={unlock} />
  if (!run) return <NotLoaded error={error} />
  const passes = run.history?.passes ?? []
  const plan = run.plan
  return (
    <main>
      <p>
        <a href="/runs">← runs</a> · <a href="/graphql">GraphiQL</a>
      </p>
      <h1>{run.task}</h1>
      <RunMeta run={run} events={events.length} refresh={refresh} />
      <ConversationLine threadId={run.threadId} conversation={run.conversation} />
      <RunOrigin run={run} />
      {error && <p class="error">{error}</p>}
      <Requests run={run} refresh={refresh} />
      <Outcome run={run} />
      <BudgetSection run={run} />
      {run.status === "RUNNING" && <StoreWait runId={runId} />}
      {run.status === "RUNNING" && <LiveOutput runId={runId} />}
      <AnswerSection run={run} />
      {run.result && run.result.advisories.length > 0 && (
        <section data-testid="advisories">
          <h2>Advisories</h2>
          <ul>{run.result.advisories.map((a) => <li>{a}</li>)}</ul>
        </section>
      )}
      <FromEarlierRuns events={events} />
      <ToolsOffered events={events} />
      <Guardrails events={events} />
      <WebhookDeliveries run={run} />
      {/* while the plan waits for approval, it is shown once: in the request */}
      {plan && !run.pendingPlanApproval && <PlanGraph plan={plan} />}
      {run.timeline && <Timeline runId={runId} timeline={run.timeline} />}
      <Convergence passes={passes} />
      <Issues passes={passes} />
      <Calls runId={runId} key={`${runId}:${run.status}:${run.usage?.llmCalls ?? 0}`} />
    </main>
  )
}

const App = () => {
  const path = location.pathname.replace(/\/+$/, "")
  const id = path.startsWith("/runs/") ? decodeURIComponent(path.slice("/runs/".length)) : undefined
  if (path === "/memory") return <MemoryGate />
  if (path === "/threads") return <ThreadsGate />
  if (path.startsWith("/threads/")) return <ThreadGate id={decodeURIComponent(path.slice("/threads/".length))} />
  return id ? <RunView runId={id} /> : <RunList />
}

const ThreadsGate = () => {
  const [locked, setLocked] = useState(false)
  const [attempt, setAttempt] = useState(0)
  if (locked) return <KeyForm onKey={() => (setLocked(false), setAttempt((n) => n + 1))} />
  return <ThreadsPage key={attempt} locked={() => setLocked(true)} />
}

const ThreadGate = ({ id }: { id: string }) => {
  const [locked, setLocked] = useState(false)
  const [attempt, setAttempt] = useState(0)
  if (locked) return <KeyForm onKey={() => (setLocked(false), setAttempt((n) => n + 1))} />
  return <ThreadPage key={attempt} id={id} locked={() => setLocked(true)} />
}

const MemoryGate = () => {
  const [locked, setLocked] = useState(false)
  const [attempt, setAttempt] = useState(0)
  if (locked) return <KeyForm onKey={() => (setLocked(false), setAttempt((n) => n + 1))} />
  return <MemoryPage key={attempt} locked={() => setLocked(true)} />
}

render(<App />, document.getElementById("app")!)
