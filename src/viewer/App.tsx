import { render } from "preact"
import { useEffect, useMemo, useRef, useState } from "preact/hooks"
import { gql, setApiKey, subscribe, Unauthorized } from "./Api.js"
import { layout, NODE } from "./Layout.js"
import { type Span, type StreamedEvent, timeline } from "./Timeline.js"

const RUN = `query($id: ID!) { run(id: $id) {
  id task status model userId createdAt
  finalAnswer { answerText label }
  usage { llmCalls inputTokens outputTokens costUsd steps }
  pendingApprovals { requestId stepId tool input description }
  history { passes { passNumber phases ttlRemaining durationSeconds
    plan { goal steps { stepId description tool status dependencies supersededBy manualIntervention subplan error } }
    validationReport { issues { type severity description stepId source } }
    convergence { converged completenessScore coherenceScore consistencyStatus reasonCodes } } } } }`
const EVENTS = `subscription($id: ID!) { runEvents(runId: $id, fromSeq: 0) { seq type at payload } }`
// the list (its summary), then one call's prompt and answer when it is opened: both within the server's query cost
const CALLS = `query($id: ID!, $after: String) { run(id: $id) { llmCalls(first: 50, after: $after) {
  edges { cursor node { seq promptId attempt phase stepId inputTokens outputTokens latencyMs } } pageInfo { hasNextPage endCursor } } } }`
const CALL = `query($id: ID!, $after: String) { run(id: $id) { llmCalls(first: 1, after: $after) {
  edges { node { seq system user response decodeError error } } } } }`

type Run = any

const KeyForm = ({ onKey }: { onKey: () => void }) => {
  const [key, setKey] = useState("")
  return (
    <form
      class="key"
      onSubmit={(e) => {
        e.preventDefault()
        setApiKey(key)
        onKey()
      }}
    >
      <p>This server needs an API key. It is kept for this tab only.</p>
      <input type="password" placeholder="API key" value={key} onInput={(e) => setKey(e.currentTarget.value)} />
      <button type="submit">Open</button>
    </form>
  )
}

const RunList = () => {
  const [status, setStatus] = useState("")
  const [user, setUser] = useState("")
  const [runs, setRuns] = useState<Array<Run> | undefined>()
  const [error, setError] = useState<string>()
  const [locked, setLocked] = useState(false)
  const load = () =>
    gql<{ runs: { edges: Array<{ node: Run }> } }>(
      `query($status: RunStatus, $userId: ID) { runs(first: 100, status: $status, userId: $userId) {
        edges { node { id task status userId createdAt } } } }`,
      { status: status || null, userId: user || null }
    ).then((d) => (setRuns(d.runs.edges.map((e) => e.node)), setError(undefined)), (e) => {
      if (e instanceof Unauthorized) setLocked(true)
      else setError(e.message)
    })
  useEffect(() => void load(), [status, user])
  if (locked) return <KeyForm onKey={() => (setLocked(false), load())} />
  return (
    <main>
      <h1>Runs</h1>
      <div class="filters">
        <select value={status} onChange={(e) => setStatus(e.currentTarget.value)} data-testid="status-filter">
          {["", "QUEUED", "RUNNING", "CONVERGED", "NOT_CONVERGED", "FAILED", "CANCELLED"].map((s) => (
            <option value={s}>{s || "any status"}</option>
          ))}
        </select>
        <input placeholder="user" value={user} onChange={(e) => setUser(e.currentTarget.value)} />
      </div>
      {error && <p class="error">{error}</p>}
      <table data-testid="runs">
        <tr>
          <th>run</th>
          <th>status</th>
          <th>user</th>
          <th>created</th>
          <th>task</th>
        </tr>
        {(runs ?? []).map((r) => (
          <tr>
            <td>
              <a href={`/runs/${encodeURIComponent(r.id)}`}>{r.id}</a>
            </td>
            <td class={`status ${r.status}`}>{r.status}</td>
            <td>{r.userId ?? "–"}</td>
            <td>{new Date(r.createdAt).toLocaleString()}</td>
            <td>{r.task}</td>
          </tr>
        ))}
      </table>
    </main>
  )
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`

const Gauge = (
  { cap, name, show = String, used }: { name: string; used: number; cap?: number; show?: (n: number) => string }
) => (
  <div class="gauge" data-testid={`gauge-${name}`} data-used={used} data-cap={cap ?? ""}>
    <span class="name">{name}</span>
    <div class="bar">
      <div class="fill" style={{ width: `${cap ? Math.min(100, (100 * used) / cap) : 0}%` }} />
    </div>
    <span class="figure">
      {show(used)}
      {cap !== undefined ? ` of ${show(cap)} · ${show(Math.max(0, cap - used))} left` : ""}
    </span>
  </div>
)

const Timeline = ({ events }: { events: ReadonlyArray<StreamedEvent> }) => {
  const passes = timeline(events)
  const start = passes[0]?.start ?? 0
  const end = Math.max(start + 1, ...passes.map((p) => p.end ?? Date.now()))
  const bar = (s: { start: number; end?: number | undefined }) => ({
    marginLeft: `${(100 * (s.start - start)) / (end - start)}%`,
    width: `${Math.max(0.5, (100 * ((s.end ?? Date.now()) - s.start)) / (end - start))}%`
  })
  /** One line of the timeline: a label, its bar on the run's time axis, its duration (or what it is doing). */
  const Row = ({ kind, span, bar: barClass, open }: { kind: string; span: Span; bar: string; open: string }) => (
    <div class={`row ${kind}`} data-testid={kind === "pass" ? undefined : `timeline-${kind}`}>
      <span class="label">{span.label}</span>
      <div class="track">
        <div class={`span ${barClass}`} style={bar(span)} />
      </div>
      <span class="time">{span.end ? seconds(span.end - span.start) : open}</span>
    </div>
  )
  return (
    <section data-testid="timeline">
      <h2>Timeline</h2>
      {passes.map((p) => (
        <div class="pass" data-testid="timeline-pass">
          <Row kind="pass" span={p} bar="pass-bar" open="…" />
          {p.phases.map((ph) => <Row kind="phase" span={ph} bar={`phase-${ph.label}`} open="…" />)}
          {p.steps.map((st) => <Row kind="step" span={st} bar={`step-${st.status ?? "running"}`} open="running" />)}
        </div>
      ))}
    </section>
  )
}

const PlanGraph = ({ plan }: { plan: Run }) => {
  const { edges, height, placed, width } = layout(plan.steps as Array<{ stepId: string; dependencies: Array<string> }>)
  return (
    <section>
      <h2>Plan</h2>
      <p class="goal">{plan.goal}</p>
      <svg width={width + 20} height={height + 20} data-testid="plan-graph">
        <defs>
          <marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" orient="auto">
            <path d="M0,0 L10,5 L0,10 z" fill="#888" />
          </marker>
        </defs>
        {edges.map(({ from, to }) => (
          <line
            x1={from.x + NODE.width + 10}
            y1={from.y + NODE.height / 2 + 10}
            x2={to.x + 10}
            y2={to.y + NODE.height / 2 + 10}
            stroke="#888"
            marker-end="url(#arrow)"
          />
        ))}
        {placed.map(({ step, x, y }) => {
          const s = step as any
          const state = s.supersededBy ? "superseded" : s.status
          return (
            <g
              transform={`translate(${x + 10},${y + 10})`}
              class={`node ${state}`}
              data-testid="plan-node"
              data-step={s.stepId}
              data-status={s.status}
              data-superseded={s.supersededBy ?? ""}
            >
              <title>
                {`${s.stepId}: ${s.description}${s.error ? `\n${s.error}` : ""}${
                  s.manualIntervention ? `\nneeds a person: ${s.manualIntervention}` : ""
                }`}
              </title>
              <rect width={NODE.width} height={NODE.height} rx="6" />
              <text x="8" y="18" class="id">
                {s.stepId} · {s.status}
                {s.subplan ? ` · ${(s.subplan.substeps ?? []).length} substeps` : ""}
                {s.manualIntervention ? " · ⚑" : ""}
              </text>
              <text x="8" y="38">{s.description.length > 26 ? `${s.description.slice(0, 25)}…` : s.description}</text>
            </g>
          )
        })}
      </svg>
    </section>
  )
}

const Convergence = ({ passes }: { passes: Array<Run> }) => {
  const scored = passes.filter((p) => p.convergence)
  return (
    <section data-testid="convergence">
      <h2>Convergence</h2>
      <svg width={Math.max(120, scored.length * 70)} height="110">
        {scored.map((p, i) =>
          ([["completeness", p.convergence.completenessScore], ["coherence", p.convergence.coherenceScore], [
            "consistency",
            Object.values(p.convergence.consistencyStatus ?? {}).every(Boolean) ? 1 : 0
          ]] as Array<[string, number]>).map(([name, v], j) => (
            <rect
              class={`score ${name}`}
              x={i * 70 + j * 18}
              y={90 - 80 * v}
              width="14"
              height={80 * v}
            >
              <title>{`pass ${p.passNumber} ${name} ${v.toFixed(2)}`}</title>
            </rect>
          ))
        )}
        {scored.map((p, i) => <text x={i * 70} y="106">pass {p.passNumber}</text>)}
      </svg>
      {scored.map((p) => (
        <p>
          pass {p.passNumber}: {p.convergence.converged ? "converged" : "not converged"} —{" "}
          {p.convergence.reasonCodes.join(", ")}
        </p>
      ))}
    </section>
  )
}

const Issues = ({ passes }: { passes: Array<Run> }) => (
  <section>
    <h2>Validation</h2>
    {passes.every((p) => (p.validationReport?.issues ?? []).length === 0) && <p>no issues found</p>}
    {passes.map((p) =>
      (p.validationReport?.issues ?? []).length === 0 ? null : (
        <div>
          <h3>pass {p.passNumber}</h3>
          <ul>
            {p.validationReport.issues.map((i: any) => (
              <li class={`issue ${i.severity}`}>
                {i.severity} {i.type}
                {i.stepId ? ` @ ${i.stepId}` : ""}: {i.description} <small>({i.source})</small>
              </li>
            ))}
          </ul>
        </div>
      )
    )}
  </section>
)

const Calls = ({ runId }: { runId: string }) => {
  const [calls, setCalls] = useState<Array<Run & { after?: string }>>()
  const [open, setOpen] = useState<Run>()
  useEffect(() => {
    void (async () => {
      const all: Array<Run & { after?: string }> = []
      let after: string | undefined
      for (;;) {
        const d = await gql<{ run: { llmCalls: Run } }>(CALLS, { id: runId, after })
        // each call remembers the cursor before it: what opens it alone
        for (const e of d.run.llmCalls.edges) {
          all.push({ ...e.node, after })
          after = e.cursor
        }
        if (!d.run.llmCalls.pageInfo.hasNextPage) break
        after = d.run.llmCalls.pageInfo.endCursor
      }
      setCalls(all)
    })()
  }, [runId])
  const show = (c: Run & { after?: string }) =>
    open?.seq === c.seq ?
      setOpen(undefined) :
      gql<{ run: { llmCalls: Run } }>(CALL, { id: runId, after: c.after }).then(
        (d) => setOpen(d.run.llmCalls.edges[0]?.node)
      )
  return (
    <section data-testid="calls">
      <h2>Model calls</h2>
      {calls?.length === 0 && <p>none recorded (AEON_RECORD_PROMPTS=0)</p>}
      <ul>
        {(calls ?? []).map((c) => (
          <li>
            <button type="button" data-testid="call" onClick={() => void show(c)}>
              {[
                `#${c.seq} ${c.promptId}`,
                c.phase,
                c.stepId,
                `${c.inputTokens}+${c.outputTokens} tokens`,
                `${c.latencyMs} ms`,
                c.attempt > 1 ? `attempt ${c.attempt}` : undefined
              ].filter(Boolean).join(" · ")}
            </button>
            {open?.seq === c.seq && (
              <div class="call" data-testid="call-detail">
                <h4>system</h4>
                <pre>{open.system}</pre>
                <h4>user</h4>
                <pre data-testid="call-prompt">{open.user}</pre>
                <h4>{open.error ? "error" : "response"}</h4>
                <pre>{open.error ?? open.response}</pre>
                {open.decodeError && <pre class="error">{open.decodeError}</pre>}
              </div>
            )}
          </li>
        ))}
      </ul>
    </section>
  )
}

const Approvals = ({ run, refresh }: { run: Run; refresh: () => void }) => {
  const answer = (requestId: string, decision: "APPROVE" | "REJECT") =>
    gql(
      `mutation($runId: ID!, $requestId: ID!, $decision: ApprovalDecision!, $reason: String) {
        respondToApproval(runId: $runId, requestId: $requestId, decision: $decision, reason: $reason) { id } }`,
      { runId: run.id, requestId, decision, reason: decision === "REJECT" ? "rejected in the run viewer" : null }
    ).then(refresh, (e) => alert(e.message))
  if (run.pendingApprovals.length === 0) return null
  return (
    <section data-testid="approvals">
      <h2>Waiting for you</h2>
      {run.pendingApprovals.map((a: any) => (
        <div class="approval">
          <p>
            {a.stepId}: {a.description} — <code>{a.tool}</code> <code>{JSON.stringify(a.input)}</code>
          </p>
          <button type="button" onClick={() => answer(a.requestId, "APPROVE")}>Approve</button>
          <button type="button" onClick={() => answer(a.requestId, "REJECT")}>Reject</button>
        </div>
      ))}
    </section>
  )
}

/** The pass's plan with what its steps have done since it began (the events say it first). */
const withLiveStatuses = (plan: Run | undefined, events: ReadonlyArray<StreamedEvent>) => {
  if (!plan) return plan
  const status = new Map<string, string>()
  for (const e of events) {
    if (e.type === "StepStarted") status.set(e.payload.stepId, "running")
    if (e.type === "StepFinished") status.set(e.payload.stepId, e.payload.status)
    if (e.type === "StepAbandoned") status.set(e.payload.stepId, "failed")
  }
  return { ...plan, steps: plan.steps.map((s: Run) => ({ ...s, status: status.get(s.stepId) ?? s.status })) }
}

const RunView = ({ runId }: { runId: string }) => {
  const [events, setEvents] = useState<Array<StreamedEvent>>([])
  const [run, setRun] = useState<Run>()
  const [error, setError] = useState<string>()
  const [locked, setLocked] = useState(false)
  const [attempt, setAttempt] = useState(0)
  const pending = useRef<number | undefined>(undefined)
  const refresh = () =>
    gql<{ run: Run }>(RUN, { id: runId }).then((d) => {
      if (!d.run) setError(`run ${runId} does not exist`)
      else setRun(d.run)
    }, (e) => (e instanceof Unauthorized ? setLocked(true) : setError(e.message)))
  // the run's record is folded by the server; the viewer asks for it again as events arrive (at most 4 times a second)
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
    const stop = subscribe<{ runEvents: StreamedEvent }>(EVENTS, { id: runId }, (d) => {
      setEvents((es) => [...es, d.runEvents])
      soon()
    }, (e) => {
      if (e && /API key/.test(e)) setLocked(true)
      else if (e) setError(e)
      void refresh()
    })
    return stop
  }, [runId, attempt])
  const budget = useMemo(() => events.find((e) => e.type === "RunStarted")?.payload.budget, [events])
  if (locked) return <KeyForm onKey={() => (setLocked(false), setEvents([]), setAttempt((n) => n + 1))} />
  if (!run) return <main>{error ? <p class="error">{error}</p> : <p>loading…</p>}</main>
  const passes = run.history?.passes ?? []
  // a finished run's plan is the one its RunFinished event carries; before, the pass's plan and what its steps did since
  const plan = events.findLast((e) => e.type === "RunFinished")?.payload.plan ??
    withLiveStatuses(passes.at(-1)?.plan, events)
  const started = events[0] ? Date.parse(events[0].at) : Date.parse(run.createdAt)
  const last = events.at(-1)
  const elapsed = (last?.type === "RunFinished" ? Date.parse(last.at) : Date.now()) - started
  const executed = passes.filter((p: Run) => p.passNumber > 0).length
  return (
    <main>
      <p>
        <a href="/runs">← runs</a> · <a href="/graphql">GraphiQL</a>
      </p>
      <h1>{run.task}</h1>
      <p class="meta">
        <span class={`status ${run.status}`} data-testid="run-status">{run.status}</span> · {run.model} · run {run.id}
        {run.userId ? ` · ${run.userId}` : ""} · {events.length} events
      </p>
      {error && <p class="error">{error}</p>}
      <Approvals run={run} refresh={refresh} />
      <section class="gauges" data-testid="gauges">
        <h2>Budget</h2>
        <Gauge name="calls" used={run.usage.llmCalls} cap={budget?.maxLlmCalls} />
        <Gauge name="tokens" used={run.usage.inputTokens + run.usage.outputTokens} cap={budget?.maxTokens} />
        <Gauge name="cost" used={run.usage.costUsd} cap={budget?.maxCostUsd} show={(n) => `$${n.toFixed(4)}`} />
        <Gauge name="steps" used={run.usage.steps} cap={budget?.maxSteps} />
        <Gauge
          name="deadline"
          used={Math.round(elapsed)}
          cap={budget?.deadlineMs}
          show={(n) => `${(n / 1000).toFixed(1)} s`}
        />
        <Gauge name="ttl" used={executed} cap={budget?.ttl} />
      </section>
      {run.finalAnswer && (
        <section data-testid="answer">
          <h2>Answer {run.finalAnswer.label ? `(${run.finalAnswer.label})` : ""}</h2>
          <pre>{run.finalAnswer.answerText}</pre>
        </section>
      )}
      {plan && <PlanGraph plan={plan} />}
      <Timeline events={events} />
      <Convergence passes={passes} />
      <Issues passes={passes} />
      <Calls runId={runId} key={`${runId}:${run.status}:${run.usage.llmCalls}`} />
    </main>
  )
}

const App = () => {
  const path = location.pathname.replace(/\/+$/, "")
  const id = path.startsWith("/runs/") ? decodeURIComponent(path.slice("/runs/".length)) : undefined
  return id ? <RunView runId={id} /> : <RunList />
}

render(<App />, document.getElementById("app")!)
