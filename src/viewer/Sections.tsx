import { useEffect, useState } from "preact/hooks"
import { fieldOf } from "../support/Fields.js"
import { gql } from "./Api.js"
import type {
  ForkInViewerMutation,
  RunViewCallQuery,
  RunViewCallsQuery,
  RunViewQuery,
  ViewerToolsQuery
} from "./generated/operations.js"
import { layout, NODE } from "./Layout.js"

/** The parts of the run page: gauges, timeline, plan graph, scores, issues, model calls, approvals. */

/** The run as the page asks for it (App's RunView query), and its parts. */
export type Run = NonNullable<RunViewQuery["run"]>
type TimelineView = NonNullable<Run["timeline"]>
type PassView = NonNullable<Run["history"]>["passes"][number]
type CallSummary = NonNullable<RunViewCallsQuery["run"]>["llmCalls"]["edges"][number]["node"]
type CallDetail = NonNullable<RunViewCallQuery["run"]>["llmCalls"]["edges"][number]["node"]
/** A plan as the graph draws it: the run's (every field) or one waiting for approval (fewer). */
export interface PlanShown {
  readonly goal: string
  readonly steps: ReadonlyArray<
    & Pick<NonNullable<Run["plan"]>["steps"][number], "stepId" | "description" | "status" | "dependencies">
    & Partial<
      Pick<NonNullable<Run["plan"]>["steps"][number], "supersededBy" | "manualIntervention" | "subplan" | "error">
    >
  >
}

// the list (its summary), then one call's prompt and answer when it is opened: both within the server's query cost
const CALLS =
  /* GraphQL */ `query RunViewCalls($id: ID!, $after: String) { run(id: $id) { llmCalls(first: 50, after: $after) {
  edges { cursor node { seq promptId model attempt phase stepId inputTokens outputTokens cachedTokens cacheWriteTokens
    latencyMs replayed estimated } }
  pageInfo { hasNextPage endCursor } } } }`
const CALL =
  /* GraphQL */ `query RunViewCall($id: ID!, $after: String) { run(id: $id) { llmCalls(first: 1, after: $after) {
  edges { node { seq system user response decodeError error } } } } }`

const FORK =
  /* GraphQL */ `mutation ForkInViewer($runId: ID!, $atSeq: Int!) { forkRun(runId: $runId, atSeq: $atSeq) { id } }`

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`

export const Gauge = (
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

/** A span of the server's timeline (record/Timeline, through Run.timeline): times as ISO strings. */
interface Span {
  readonly label: string
  readonly start: number
  readonly end: number | undefined
  readonly durationMs: number
}

const spanOf = (
  label: string,
  s: { readonly start: string; readonly end: string | null; readonly durationMs: number }
): Span => ({
  label,
  start: Date.parse(s.start),
  end: s.end ? Date.parse(s.end) : undefined,
  durationMs: s.durationMs
})

/** How many substeps a step's subplan has (its JSON, as the API gives it). */
const substepsOf = (subplan: unknown) => {
  const substeps = fieldOf(subplan, "substeps")
  return Array.isArray(substeps) ? substeps.length : 0
}

/** A new run from this one's events up to `seq` (forkRun), then opened: what "fork from here" does. */
const forkAt = async (runId: string, seq: number) => {
  const d = await gql<ForkInViewerMutation>(
    FORK,
    { runId, atSeq: seq }
  )
  location.href = `/runs/${encodeURIComponent(d.forkRun.id)}`
}

export const Timeline = ({ runId, timeline }: { runId: string; timeline: TimelineView }) => {
  type Forkable = Span & { seq: number }
  const passes: Array<Span & { phases: Array<Forkable>; steps: Array<Forkable & { status: string }> }> = timeline
    .passes.map((p) => ({
      ...spanOf(`pass ${p.passNumber}`, p),
      phases: p.phases.map((ph) => ({ ...spanOf(ph.phase, ph), seq: ph.seq })),
      steps: p.steps.map((st) => ({ ...spanOf(st.stepId, st), status: st.status, seq: st.seq }))
    }))
  const start = passes[0]?.start ?? 0
  const end = Math.max(start + 1, ...passes.map((p) => p.start + p.durationMs))
  const bar = (s: Span) => ({
    marginLeft: `${(100 * (s.start - start)) / (end - start)}%`,
    width: `${Math.max(0.5, (100 * s.durationMs) / (end - start))}%`
  })
  /** One line of the timeline: a label, its bar on the run's time axis, its duration (or what it is doing). */
  const Row = (
    { kind, span, bar: barClass, open, seq }: { kind: string; span: Span; bar: string; open: string; seq?: number }
  ) => (
    <div class={`row ${kind}`} data-testid={kind === "pass" ? undefined : `timeline-${kind}`}>
      <span class="label">{span.label}</span>
      <div class="track">
        <div class={`span ${barClass}`} style={bar(span)} />
      </div>
      <span class="time">{span.end !== undefined ? seconds(span.durationMs) : open}</span>
      {seq !== undefined
        ? (
          <button
            class="fork"
            data-testid="fork-here"
            title={`a new run from this one's events up to ${seq}`}
            onClick={() => void forkAt(runId, seq)}
          >
            fork from here
          </button>
        )
        : <span />}
    </div>
  )
  return (
    <section data-testid="timeline">
      <h2>Timeline</h2>
      {passes.map((p) => (
        <div class="pass" data-testid="timeline-pass">
          <Row kind="pass" span={p} bar="pass-bar" open="…" />
          {p.phases.map((ph) => <Row kind="phase" span={ph} bar={`phase-${ph.label}`} open="…" seq={ph.seq} />)}
          {p.steps.map((st) => (
            <Row
              kind="step"
              span={st}
              bar={`step-${st.status.replace(/ /g, "-")}`}
              open={st.status === "waiting for approval" ? st.status : "running"}
              seq={st.seq}
            />
          ))}
        </div>
      ))}
    </section>
  )
}

export const PlanGraph = ({ plan }: { plan: PlanShown }) => {
  const { edges, height, placed, width } = layout(plan.steps)
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
          const s = step
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
                {s.subplan ? ` · ${substepsOf(s.subplan)} substeps` : ""}
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

/** What each convergence bar is: the score's colour (page.ts) and name. */
const SCORES = [["completeness", "#4f7cd6"], ["coherence", "#4caf50"], ["consistency", "#fb8c00"]] as const

export const Convergence = ({ passes }: { passes: ReadonlyArray<PassView> }) => {
  const scored = passes.flatMap((
    p
  ) => (p.convergence ? [{ passNumber: p.passNumber, convergence: p.convergence }] : []))
  // nothing assessed yet (a pending or planning run): no empty box
  if (scored.length === 0) return null
  return (
    <section data-testid="convergence">
      <h2>Convergence</h2>
      <div class="legend" data-testid="convergence-legend">
        {SCORES.map(([name, colour]) => (
          <span>
            <i style={{ background: colour }} />
            {name}
          </span>
        ))}
        <span>(each pass: its scores, 0 to 1; consistency 1 when every check agrees)</span>
      </div>
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
          {p.convergence.decidedBy === "checks" ? " · decided by the checks, no model asked" : ""}
        </p>
      ))}
    </section>
  )
}

export const Issues = ({ passes }: { passes: ReadonlyArray<PassView> }) => (
  <section>
    <h2>Validation</h2>
    {passes.every((p) => (p.validationReport?.issues ?? []).length === 0) && <p>no issues found</p>}
    {passes.map((p) =>
      (p.validationReport?.issues ?? []).length === 0 ? null : (
        <div>
          <h3>pass {p.passNumber}</h3>
          <ul>
            {(p.validationReport?.issues ?? []).map((i) => (
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

export const Calls = ({ runId }: { runId: string }) => {
  const [calls, setCalls] = useState<Array<CallSummary & { after: string | undefined }>>()
  const [open, setOpen] = useState<CallDetail & { seq: number }>()
  useEffect(() => {
    void (async () => {
      const all: Array<CallSummary & { after: string | undefined }> = []
      let after: string | undefined
      for (;;) {
        const calls = (await gql<RunViewCallsQuery>(CALLS, { id: runId, after })).run?.llmCalls
        if (!calls) break
        // each call remembers the cursor before it: what opens it alone
        for (const e of calls.edges) {
          all.push({ ...e.node, after })
          after = e.cursor
        }
        if (!calls.pageInfo.hasNextPage) break
        after = calls.pageInfo.endCursor ?? undefined
      }
      setCalls(all)
    })()
  }, [runId])
  const show = (c: CallSummary & { after: string | undefined }) =>
    open?.seq === c.seq ?
      setOpen(undefined) :
      gql<RunViewCallQuery>(CALL, { id: runId, after: c.after }).then(
        (d) => setOpen(d.run?.llmCalls.edges[0]?.node)
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
                c.model,
                c.phase,
                c.stepId,
                `${c.inputTokens}+${c.outputTokens} tokens`,
                c.cachedTokens > 0 ? `${c.cachedTokens} read from the cache` : undefined,
                c.cacheWriteTokens > 0 ? `${c.cacheWriteTokens} written to it` : undefined,
                `${c.latencyMs} ms`,
                c.attempt > 1 ? `attempt ${c.attempt}` : undefined,
                c.replayed ? "replayed from the source (not paid)" : undefined,
                c.estimated ? "tokens estimated" : undefined
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

const TOOLS = /* GraphQL */ `query ViewerTools { tools { name server readOnly destructive idempotent description }
  health { mcpServers { name transport status toolCount lastError } } }`

/** The tools a run may call, with the MCP server each comes from, and each server's state. */
export const Tools = () => {
  const [data, setData] = useState<ViewerToolsQuery>()
  useEffect(() => void gql<ViewerToolsQuery>(TOOLS).then(setData, () => setData(undefined)), [])
  if (!data) return null
  const kind = (t: ViewerToolsQuery["tools"][number]) =>
    (t.readOnly ? "read-only" : t.idempotent ? "idempotent" : "at most once") + (t.destructive ? ", destructive" : "")
  return (
    <section data-testid="tools">
      <h2>Tools</h2>
      <table>
        <tr>
          <th>tool</th>
          <th>server</th>
          <th>calls</th>
          <th>description</th>
        </tr>
        {data.tools.map((t) => (
          <tr>
            <td>
              <code>{t.name}</code>
            </td>
            <td>{t.server ?? "aeon"}</td>
            <td>{kind(t)}</td>
            <td>{t.description}</td>
          </tr>
        ))}
      </table>
      {data.health.mcpServers.map((m) => (
        <p data-testid="mcp-server">
          MCP server <b>{m.name}</b> ({m.transport}): {m.status.toLowerCase()}, {m.toolCount} tool(s)
          {m.lastError ? ` — ${m.lastError}` : ""}
        </p>
      ))}
    </section>
  )
}
