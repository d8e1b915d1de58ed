import { useEffect, useState } from "preact/hooks"
import { RUN_STATUSES } from "../domain/RunStatus.js"
import { gql, Unauthorized } from "./Api.js"
import type { RunListQuery } from "./generated/operations.js"
import { KeyForm } from "./KeyForm.js"
import { NewRunForm } from "./Live.js"
import { Tools } from "./Sections.js"

/** The runs, newest first, filtered by status, user and agent; a page at a time. */
const RUNS = /* GraphQL */ `query RunList($status: RunStatus, $userId: ID, $after: String, $filter: RunFilter) {
  runs(first: 50, status: $status, userId: $userId, after: $after, filter: $filter) {
    edges { node { id task status userId createdAt agent { name version } usage { costUsd }
      timeline { elapsedMs passes { passNumber } } } }
    pageInfo { endCursor hasNextPage } } }`

interface Filters {
  readonly status: string
  readonly user: string
  readonly agent: string
}
type ListedRun = RunListQuery["runs"]["edges"][number]["node"]

/** The list's filters as the page's URL keeps them (?status=…&user=…&agent=…): a reload or a shared link keeps them. */
const filtersInUrl = (): Filters => {
  const q = new URLSearchParams(location.search)
  return { status: q.get("status") ?? "", user: q.get("user") ?? "", agent: q.get("agent") ?? "" }
}
const keepFilters = (filters: Filters) => {
  const q = new URLSearchParams(Object.entries(filters).filter(([, v]) => v !== ""))
  history.replaceState(null, "", `${location.pathname}${q.size > 0 ? `?${q}` : ""}`)
}

/** What the list holds none of, said with its filters. */
const noneSaid = ({ agent, status, user }: Filters) =>
  status || user || agent
    ? `no run${status ? ` with status ${status}` : ""}${user ? ` of user ${user}` : ""}${
      agent ? ` of agent ${agent}` : ""
    }`
    : "no run yet: start one with the form above"

const FilterFields = ({ filters, set }: { filters: Filters; set: (f: Filters) => void }) => (
  <div class="filters">
    <select
      value={filters.status}
      onChange={(e) => set({ ...filters, status: e.currentTarget.value })}
      data-testid="status-filter"
    >
      {["", ...RUN_STATUSES].map((s) => <option value={s}>{s || "any status"}</option>)}
    </select>
    <input placeholder="user" value={filters.user} onChange={(e) => set({ ...filters, user: e.currentTarget.value })} />
    <input
      placeholder="agent"
      value={filters.agent}
      data-testid="agent-filter"
      onChange={(e) => set({ ...filters, agent: e.currentTarget.value })}
    />
  </div>
)

const RunRow = ({ r }: { r: ListedRun }) => (
  <tr>
    <td>
      <a href={`/runs/${encodeURIComponent(r.id)}`}>{r.id}</a>
    </td>
    <td class={`status ${r.status}`}>{r.status}</td>
    <td>{r.userId ?? "–"}</td>
    <td data-testid="run-agent">{r.agent ? `${r.agent.name}${r.agent.version ? `@${r.agent.version}` : ""}` : "–"}</td>
    <td>{new Date(r.createdAt).toLocaleString()}</td>
    <td data-testid="run-passes">{(r.timeline?.passes ?? []).filter((p) => p.passNumber > 0).length}</td>
    <td data-testid="run-cost">{r.usage ? `$${r.usage.costUsd.toFixed(4)}` : "–"}</td>
    <td data-testid="run-duration">{r.timeline ? `${(r.timeline.elapsedMs / 1000).toFixed(1)} s` : "–"}</td>
    <td>{r.task}</td>
  </tr>
)
export const RunList = () => {
  const [filters, setFilters] = useState(filtersInUrl)
  const [runs, setRuns] = useState<Array<ListedRun> | undefined>()
  const [next, setNext] = useState<string | null>(null)
  const [error, setError] = useState<string>()
  const [locked, setLocked] = useState(false)
  /** The first page of the filtered list, or (`after`) the next page added below it. */
  const load = (after?: string) =>
    gql<RunListQuery>(RUNS, {
      status: filters.status || null,
      userId: filters.user || null,
      after: after ?? null,
      filter: filters.agent ? { agent: filters.agent } : null
    }).then((d) => {
      const page = d.runs.edges.map((e) => e.node)
      setRuns((shown) => (after === undefined ? page : [...(shown ?? []), ...page]))
      setNext(d.runs.pageInfo.hasNextPage ? d.runs.pageInfo.endCursor ?? null : null)
      setError(undefined)
    }, (e) => {
      if (e instanceof Unauthorized) setLocked(true)
      else setError(e.message)
    })
  useEffect(() => {
    keepFilters(filters)
    void load()
  }, [filters.status, filters.user, filters.agent])
  if (locked) return <KeyForm onKey={() => (setLocked(false), load())} />
  return (
    <main>
      <h1>Runs</h1>
      <p>
        <a href="/threads">conversations</a> · <a href="/memory">memory across runs</a>
      </p>
      <NewRunForm />
      <FilterFields filters={filters} set={setFilters} />
      {error && <p class="error">{error}</p>}
      <table data-testid="runs">
        <tr>
          {["run", "status", "user", "agent", "created", "passes", "cost", "duration", "task"].map((h) => <th>{h}</th>)}
        </tr>
        {(runs ?? []).map((r) => <RunRow r={r} />)}
      </table>
      {runs !== undefined && runs.length === 0 && <p class="meta" data-testid="no-runs">{noneSaid(filters)}</p>}
      {next !== null && (
        <button type="button" data-testid="more-runs" onClick={() => void load(next)}>
          more runs
        </button>
      )}
      <Tools />
    </main>
  )
}
