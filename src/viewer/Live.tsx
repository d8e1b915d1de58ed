import { useEffect, useState } from "preact/hooks"
import { messageOf } from "../support/Thrown.js"
import { gql, subscribe } from "./Api.js"
import type { RunViewStoreWaitsSubscription, StartRunInViewerMutation } from "./generated/operations.js"

/** The new-run form and the live output of a run's model calls. */

const OUTPUT = /* GraphQL */
  `subscription RunViewOutput($id: ID!) { runOutput(runId: $id) { callId promptId passNumber stepId text answerText done } }`

interface Delta {
  readonly callId: string
  readonly promptId: string
  readonly passNumber: number | null
  readonly stepId: string | null
  readonly text: string
  readonly answerText: string | null
  readonly done: boolean
}

interface Writing {
  readonly callId: string
  readonly promptId: string
  readonly stepId: string | null
  readonly text: string
  readonly answerText: string | null
}

const STORE_WAITS =
  /* GraphQL */ `subscription RunViewStoreWaits($id: ID!) { runStoreWaits(runId: $id) { waiting cause since } }`

/** The run's events wait for its store (the disk full, the database away): said while it lasts, from the server. */
export const StoreWait = ({ runId }: { runId: string }) => {
  const [wait, setWait] = useState<{ cause: string; since: string } | undefined>()
  useEffect(
    () =>
      subscribe<RunViewStoreWaitsSubscription>(
        STORE_WAITS,
        { id: runId },
        ({ runStoreWaits: w }) => setWait(w.waiting ? { cause: w.cause ?? "", since: w.since ?? "" } : undefined),
        () => setWait(undefined)
      ),
    [runId]
  )
  if (!wait) return null
  return (
    <p class="error" data-testid="store-wait">
      The run waits for its store since {new Date(wait.since).toLocaleTimeString()}:{" "}
      {wait.cause}. It goes on by itself when the store answers; nothing is lost.
    </p>
  )
}

/**
 * What the model is writing now: the call in progress (the latest one, when steps run in parallel), its readable
 * text when it is a structured answer (a step's output, the final answer), else its raw text. Live only: the stored
 * calls are under "Model calls".
 */
export const LiveOutput = ({ runId }: { runId: string }) => {
  const [writing, setWriting] = useState<Writing | undefined>()
  useEffect(() => {
    const calls = new Map<string, Writing>()
    return subscribe<{ runOutput: Delta }>(OUTPUT, { id: runId }, ({ runOutput: d }) => {
      const before = calls.get(d.callId)
      if (d.done) calls.delete(d.callId)
      else {
        calls.set(d.callId, {
          callId: d.callId,
          promptId: d.promptId,
          stepId: d.stepId,
          text: (before?.text ?? "") + d.text,
          answerText: d.answerText
        })
      }
      setWriting([...calls.values()].at(-1))
    }, () => setWriting(undefined))
  }, [runId])
  if (!writing) return null
  return (
    <section data-testid="live-output">
      <h2>
        Writing now <small>{writing.promptId}{writing.stepId ? ` · ${writing.stepId}` : ""}</small>
      </h2>
      <pre data-testid="live-text">{writing.answerText ?? writing.text}</pre>
    </section>
  )
}

const START_RUN = /* GraphQL */ `mutation StartRunInViewer($input: RunTaskInput!) { runTask(input: $input) { id } }`

const MODES = ["AUTO", "FULL", "SIMPLE"]

/** Starts a run (runTask) and opens it: the task, its mode, and the budget caps a person usually sets. */
export const NewRunForm = () => {
  const [task, setTask] = useState("")
  const [mode, setMode] = useState("AUTO")
  const [maxCostUsd, setMaxCostUsd] = useState("")
  const [ttl, setTtl] = useState("")
  const [maxLlmCalls, setMaxLlmCalls] = useState("")
  const [error, setError] = useState<string>()
  const start = async () => {
    const given: Record<string, string> = { maxCostUsd, ttl, maxLlmCalls }
    const budget = Object.fromEntries(
      Object.entries(given).map(([k, v]) => [k, Number(v)] as const).filter(([k, v]) => given[k] !== "" && !isNaN(v))
    )
    try {
      const d = await gql<StartRunInViewerMutation>(
        START_RUN,
        { input: { task, mode, ...(Object.keys(budget).length > 0 ? { budget } : {}) } }
      )
      location.href = `/runs/${encodeURIComponent(d.runTask.id)}`
    } catch (e) {
      setError(messageOf(e))
    }
  }
  return (
    <form
      class="new-run"
      data-testid="new-run"
      onSubmit={(e) => {
        e.preventDefault()
        void start()
      }}
    >
      <h2>New run</h2>
      <textarea placeholder="task" value={task} onInput={(e) => setTask(e.currentTarget.value)} name="task" />
      <label>
        mode{" "}
        <select value={mode} onChange={(e) => setMode(e.currentTarget.value)} name="mode">
          {MODES.map((m) => <option value={m}>{m}</option>)}
        </select>
      </label>
      <label>
        max cost (USD){" "}
        <input
          name="maxCostUsd"
          inputMode="decimal"
          value={maxCostUsd}
          onInput={(e) => setMaxCostUsd(e.currentTarget.value)}
        />
      </label>
      <label>
        passes (TTL) <input name="ttl" inputMode="numeric" value={ttl} onInput={(e) => setTtl(e.currentTarget.value)} />
      </label>
      <label>
        max LLM calls{" "}
        <input
          name="maxLlmCalls"
          inputMode="numeric"
          value={maxLlmCalls}
          onInput={(e) => setMaxLlmCalls(e.currentTarget.value)}
        />
      </label>
      <button type="submit">Start</button>
      {error && <p class="error" data-testid="new-run-error">{error}</p>}
    </form>
  )
}
