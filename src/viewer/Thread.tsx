import { useEffect, useState } from "preact/hooks"
import { messageOf } from "../support/Thrown.js"
import { gql, Unauthorized } from "./Api.js"
import type { ThreadListQuery, ThreadPageQuery } from "./generated/operations.js"

const THREAD = /* GraphQL */ `query ThreadPage($id: ID!, $after: String) { thread(id: $id) {
  id userId createdAt updatedAt turnCount
  turns(first: 50, after: $after) { edges { node { turn runId task status answer createdAt } }
    pageInfo { endCursor hasNextPage } } } }`

const THREADS = /* GraphQL */ `query ThreadList($after: String) { threads(first: 50, after: $after) {
  edges { node { id userId updatedAt turnCount lastTask } } pageInfo { endCursor hasNextPage } } }`

type ThreadRow = ThreadListQuery["threads"]["edges"][number]["node"]

/** /threads: the conversations, the newest first, each with its turns' count and what was asked last. */
export const ThreadsPage = ({ locked }: { locked: () => void }) => {
  const [threads, setThreads] = useState<Array<ThreadRow>>()
  const [next, setNext] = useState<string | null>(null)
  const [error, setError] = useState<string>()
  const load = (after?: string) =>
    gql<ThreadListQuery>(THREADS, { after: after ?? null }).then((d) => {
      setThreads((before) => [...(after ? before ?? [] : []), ...d.threads.edges.map((e) => e.node)])
      setNext(d.threads.pageInfo.hasNextPage ? d.threads.pageInfo.endCursor ?? null : null)
    }, (e) => (e instanceof Unauthorized ? locked() : setError(messageOf(e))))
  useEffect(() => void load(), [])
  return (
    <main>
      <p>
        <a href="/runs">← runs</a>
      </p>
      <h1>Conversations</h1>
      {error && <p class="error">{error}</p>}
      {threads !== undefined && threads.length === 0 && (
        <p class="meta" data-testid="no-threads">no conversation yet: a run with a threadId starts one</p>
      )}
      <table data-testid="threads">
        {(threads ?? []).map((t) => (
          <tr>
            <td>
              <a href={`/threads/${encodeURIComponent(t.id)}`}>{t.id}</a>
            </td>
            <td>{t.turnCount} turn{t.turnCount === 1 ? "" : "s"}</td>
            <td>{t.userId ?? "–"}</td>
            <td>{new Date(t.updatedAt).toLocaleString()}</td>
            <td>{t.lastTask ?? ""}</td>
          </tr>
        ))}
      </table>
      {next && <button type="button" onClick={() => void load(next)}>more</button>}
    </main>
  )
}

type Turn = NonNullable<ThreadPageQuery["thread"]>["turns"]["edges"][number]["node"]

/** /threads/:id: a conversation's turns in order, each what the user asked and what the run answered. */
export const ThreadPage = ({ id, locked }: { id: string; locked: () => void }) => {
  const [turns, setTurns] = useState<Array<Turn>>()
  const [next, setNext] = useState<string | null>(null)
  const [error, setError] = useState<string>()
  const load = (after?: string) =>
    gql<ThreadPageQuery>(THREAD, { id, after: after ?? null }).then((d) => {
      if (!d.thread) return setError(`thread ${id} does not exist`)
      const page = d.thread.turns
      setTurns((before) => [...(after ? before ?? [] : []), ...page.edges.map((e) => e.node)])
      setNext(page.pageInfo.hasNextPage ? page.pageInfo.endCursor ?? null : null)
    }, (e) => (e instanceof Unauthorized ? locked() : setError(messageOf(e))))
  useEffect(() => void load(), [id])
  return (
    <main>
      <p>
        <a href="/runs">← runs</a>
      </p>
      <h1>Thread {id}</h1>
      {error && <p class="error">{error}</p>}
      <ol data-testid="thread-turns">
        {(turns ?? []).map((t) => (
          <li>
            <p>
              <strong>you:</strong> {t.task}
            </p>
            <p>
              <strong>aeon:</strong> {t.answer ?? "(no answer)"}
            </p>
            <p class="meta">
              <a href={`/runs/${encodeURIComponent(t.runId)}`}>{t.runId}</a> ·{" "}
              <span class={`status ${t.status}`}>
                {t.status}
              </span>
            </p>
          </li>
        ))}
      </ol>
      {next && <button type="button" onClick={() => void load(next)}>more</button>}
    </main>
  )
}

/** On a run's page: the thread it is a turn of, and what of the conversation its prompts quoted. */
export const ConversationLine = (
  { conversation, threadId }: {
    threadId: string | null | undefined
    conversation:
      | {
        turn?: number | null
        messages: number
        summarised: number
        compacted: boolean
        tokens: number
      }
      | null
      | undefined
  }
) => {
  if (!threadId && !conversation) return null
  return (
    <p class="meta" data-testid="conversation">
      {threadId && (
        <>
          turn {conversation?.turn ?? "?"} of thread <a href={`/threads/${encodeURIComponent(threadId)}`}>{threadId}</a>
          {" · "}
        </>
      )}
      {conversation
        ? `${conversation.messages} earlier messages quoted (${conversation.tokens} tokens)${
          conversation.summarised > 0
            ? `, the first ${conversation.summarised} as a summary${conversation.compacted ? " this run made" : ""}`
            : ""
        }`
        : ""}
    </p>
  )
}
