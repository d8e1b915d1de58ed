import { useEffect, useState } from "preact/hooks"
import { messageOf } from "../support/Thrown.js"
import { gql, Unauthorized } from "./Api.js"
import type { MemoryPageQuery, RunViewEventsSubscription } from "./generated/operations.js"

const MEMORIES = /* GraphQL */ `query MemoryPage($query: String, $userId: ID) {
  memories(query: $query, userId: $userId, first: 100) {
    edges { node { id kind text task runId stepId passNumber createdAt coverage } } } }`
const FORGET = /* GraphQL */ `mutation ForgetMemory($id: ID!, $userId: ID) { forgetMemory(id: $id, userId: $userId) }`
const FORGET_ALL = /* GraphQL */ `mutation ForgetMemories($userId: ID) { forgetMemories(userId: $userId) }`

type Memory = MemoryPageQuery["memories"]["edges"][number]["node"]

const RunLink = ({ runId }: { runId: string | null | undefined }) =>
  runId ? <a href={`/runs/${encodeURIComponent(runId)}`}>{runId}</a> : <span>–</span>

/** /memory: a user's memories across runs, searched by their words, each forgotten on demand (or all: erasure). */
export const MemoryPage = ({ locked }: { locked: () => void }) => {
  const [query, setQuery] = useState("")
  const [user, setUser] = useState("")
  const [memories, setMemories] = useState<Array<Memory>>()
  const [error, setError] = useState<string>()
  const failed = (e: unknown) => (e instanceof Unauthorized ? locked() : setError(messageOf(e)))
  const load = () =>
    gql<MemoryPageQuery>(MEMORIES, { query: query || null, userId: user || null }).then(
      (d) => (setMemories(d.memories.edges.map((e) => e.node)), setError(undefined)),
      failed
    )
  useEffect(() => void load(), [query, user])
  const forget = (id: string) => gql(FORGET, { id, userId: user || null }).then(load, failed)
  const forgetAll = () => {
    if (confirm(`Forget every memory${user ? ` of ${user}` : ""}?`)) {
      void gql(FORGET_ALL, { userId: user || null }).then(load, failed)
    }
  }
  return (
    <main>
      <p>
        <a href="/runs">← runs</a>
      </p>
      <h1>Memory</h1>
      <p class="meta">What converged runs established and the notes models kept, recalled by later runs of the user.</p>
      <div class="filters">
        <input
          placeholder="search"
          data-testid="memory-search"
          value={query}
          onChange={(e) => setQuery(e.currentTarget.value)}
        />
        <input placeholder="user" value={user} onChange={(e) => setUser(e.currentTarget.value)} />
        <button type="button" data-testid="forget-all" onClick={forgetAll}>forget all</button>
      </div>
      {error && <p class="error">{error}</p>}
      <table data-testid="memories">
        <tr>
          <th>kind</th>
          <th>text</th>
          <th>from run</th>
          <th>task</th>
          <th>{query ? "covers" : "created"}</th>
          <th></th>
        </tr>
        {(memories ?? []).map((m) => (
          <tr data-testid="memory">
            <td>{m.kind.toLowerCase()}{m.stepId ? ` ${m.stepId}` : ""}</td>
            <td>{m.text}</td>
            <td>
              <RunLink runId={m.runId} />
            </td>
            <td>{m.task}</td>
            <td>
              {query && m.coverage !== null && m.coverage !== undefined
                ? `${Math.round(m.coverage * 100)}%`
                : new Date(m.createdAt).toLocaleString()}
            </td>
            <td>
              <button type="button" data-testid="forget" onClick={() => void forget(m.id)}>forget</button>
            </td>
          </tr>
        ))}
      </table>
      {memories && memories.length === 0 && <p data-testid="no-memories">no memories</p>}
    </main>
  )
}

type Event = RunViewEventsSubscription["runEvents"]
interface Recalled {
  readonly id: string
  readonly kind: string
  readonly text: string
  readonly runId: string | null
  readonly stepId: string | null
  readonly coverage: number
}

/** What a run took from its user's earlier runs: the plan it started from, the memories its plan prompt quoted. */
export const FromEarlierRuns = ({ events }: { events: ReadonlyArray<Event> }) => {
  const reused = events.find((e) => e.type === "PlanReused")?.payload as
    | { fromRun: string; match: string; task: string }
    | undefined
  const recalled = events.filter((e) => e.type === "MemoryRecalled").flatMap((e) =>
    (e.payload as { memories: ReadonlyArray<Recalled> }).memories
  )
  if (!reused && recalled.length === 0) return null
  return (
    <section data-testid="from-earlier-runs">
      <h2>From earlier runs</h2>
      {reused && (
        <p data-testid="plan-reused">
          plan reused from <RunLink runId={reused.fromRun} /> ({reused.match} task: {reused.task}): no planning call
        </p>
      )}
      <ul>
        {recalled.map((m) => (
          <li data-testid="recalled-memory">
            {m.kind}
            {m.stepId ? ` ${m.stepId}` : ""} of <RunLink runId={m.runId} /> (covers{" "}
            {Math.round(m.coverage * 100)}% of the task): {m.text}
          </li>
        ))}
      </ul>
    </section>
  )
}
