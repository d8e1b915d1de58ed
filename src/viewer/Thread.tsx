import { useEffect, useState } from "preact/hooks"
import { messageOf } from "../support/Thrown.js"
import { gql, Unauthorized } from "./Api.js"
import type { ThreadPageQuery } from "./generated/operations.js"

const THREAD = /* GraphQL */ `query ThreadPage($id: ID!, $after: String) { thread(id: $id) {
  id userId createdAt updatedAt turnCount
  turns(first: 50, after: $after) { edges { node { turn runId task status answer createdAt } }
    pageInfo { endCursor hasNextPage } } } }`

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
