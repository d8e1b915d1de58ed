import {
  type AgentCard,
  type Artifact,
  type Message,
  type Part,
  Role,
  type SendMessageRequest,
  type StreamResponse,
  type Task,
  type TaskPushNotificationConfig,
  TaskState
} from "@a2a-js/sdk"
import { TaskNotFoundError, UnsupportedOperationError } from "@a2a-js/sdk/errors"
import type { A2ARequestHandler, ServerCallContext } from "@a2a-js/sdk/server"
import { Effect, Exit, Runtime } from "effect"
import { randomUUID } from "node:crypto"
import { a2aTaskState } from "../../domain/A2aTaskState.js"
import { openRequests } from "../../record/Requests.js"
import { requestMessage } from "../../record/Requests.js"
import { answerRequest, type RequestAnswer } from "../../runs/Answering.js"
import { ownRun } from "../../runs/RunAccess.js"
import { RunManager } from "../../runs/RunManager.js"
import type { RunModel } from "../../runs/RunModel.js"
import { fieldOf, recordField } from "../../support/Fields.js"
import { pushHandlers, setPush } from "./A2aPush.js"
import { attachmentFromUrl, conversationTag, publicFailure, threadOf } from "./Http.js"
import { pausesOrEnds, runItems } from "./RunItems.js"

/**
 * A2A's tasks over Aeon's runs (the request handler the SDK's transports call; server/protocols/A2a serves them). A run
 * is a task (working → completed / failed / canceled; input-required while it waits for a person, answered by the next
 * message on the task), its answer an artifact, its context the message's contextId — its thread: the next message on
 * it is the conversation's next turn (kept as the run's `context:` tag too). The SDK's task store is not used: the
 * run's log is the task's only state.
 */

const textPart = (text: string): Part => ({
  content: { $case: "text", value: text },
  metadata: undefined,
  filename: "",
  mediaType: "text/plain"
})

const agentMessage = (task: { id: string; contextId: string }, text: string): Message => ({
  messageId: randomUUID(),
  contextId: task.contextId,
  taskId: task.id,
  role: Role.ROLE_AGENT,
  parts: [textPart(text)],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: []
})

const CONTEXT_TAG = "context:"
const contextOf = (run: RunModel) =>
  run.record.started?.tags?.find((t) => t.startsWith(CONTEXT_TAG))?.slice(CONTEXT_TAG.length) ?? run.id

const stateOf = (run: RunModel): TaskState => TaskState[a2aTaskState(run.status, run.result.finalAnswer !== undefined)]

/** Why a run that ended without a converged answer ended, in words (the task's status message). */
const endedWhy = (run: RunModel) => {
  const r = run.result
  const reason = r.ttlExpiration?.exhausted
    ? `${r.terminationReason ?? "budget_exhausted"}: ${r.ttlExpiration.exhausted}`
    : r.terminationReason
  return `the run ended ${run.status}${reason ? ` (${reason})` : ""}${r.error ? `: ${r.error}` : ""}${
    run.status === "NOT_CONVERGED" && r.finalAnswer ? "; its best answer, not converged, is the artifact answer" : ""
  }`
}

const ANSWER_ARTIFACT = "answer"

const dataPart = (value: unknown): Part => ({
  content: { $case: "data", value },
  metadata: undefined,
  filename: "",
  mediaType: "application/json"
})

/**
 * The answer as an artifact; one the run did not converge on is labeled so (its description and metadata). A typed
 * run's (an output schema) carries its value as a data part after the text.
 */
const answerArtifact = (text: string, converged = true, data?: unknown): Artifact => ({
  artifactId: ANSWER_ARTIFACT,
  name: "answer",
  description: converged ? "the run's final answer" : "the run's best answer: NOT CONVERGED, not validated",
  parts: data === undefined ? [textPart(text)] : [textPart(text), dataPart(data)],
  metadata: converged ? undefined : { converged: false },
  extensions: []
})

/** The task a run is now: its state, what it waits for or why it failed, its answer. */
export const taskOf = (run: RunModel): Task => {
  const ids = { id: run.id, contextId: contextOf(run) }
  const state = stateOf(run)
  const [waiting] = openRequests(run.record)
  const said = state === TaskState.TASK_STATE_INPUT_REQUIRED && waiting
    ? requestMessage(waiting)
    : state === TaskState.TASK_STATE_FAILED
    ? endedWhy(run)
    : undefined
  const answer = run.result.finalAnswer?.answerText
  const data = run.result.finalAnswer?.data
  return {
    ...ids,
    status: { state, message: said ? agentMessage(ids, said) : undefined, timestamp: run.updatedAt.toISOString() },
    artifacts: answer ? [answerArtifact(answer, run.status !== "NOT_CONVERGED", data)] : [],
    history: [],
    metadata: { aeonStatus: run.status }
  }
}

const userOf = (context: ServerCallContext) => context.user?.userName || undefined

const textOfMessage = (m: Message | undefined) =>
  (m?.parts ?? []).flatMap((p) => (p.content?.$case === "text" ? [p.content.value] : [])).join("")

/** The message's file parts (bytes or a URL): the task's attachments. */
const filesOf = (m: Message | undefined) => {
  const attachments = (m?.parts ?? []).flatMap((p) =>
    p.content?.$case === "raw"
      ? [{
        mediaType: p.mediaType || "application/octet-stream",
        data: Buffer.from(p.content.value).toString("base64"),
        ...(p.filename ? { name: p.filename } : {})
      }]
      : p.content?.$case === "url"
      ? [attachmentFromUrl(p.content.value, p.mediaType || undefined, p.filename || undefined)]
      : []
  )
  return attachments.length > 0 ? { attachments } : {}
}

/** A message on a waiting task as the answer to its request: a data part's `{ action, … }`, else its words. */
const answerOf = (m: Message | undefined, guidance: boolean): RequestAnswer => {
  const data = (m?.parts ?? []).find((p) => p.content?.$case === "data")?.content
  if (data?.$case === "data" && typeof data.value === "object" && data.value !== null) {
    return data.value
  }
  const text = textOfMessage(m).trim()
  if (guidance) return { action: "guide", text }
  const [word = "", ...rest] = text.split(/\s+/)
  const refused = /^(reject|refuse|no|deny)\b/i.test(word)
  return refused
    ? { action: "reject", reason: rest.join(" ") || "refused over A2A" }
    : { action: /^(approve|yes|ok)\b/i.test(word) ? "approve" : word.toLowerCase() }
}

/** A JSON Schema as a data part carries it: the part's media type says it is one, or its value is `{ outputSchema }`. */
const schemaOfPart = (p: Part): unknown => {
  if (p.content?.$case !== "data") return undefined
  const value: unknown = p.content.value
  return p.mediaType === "application/schema+json" ? value : fieldOf(value, "outputSchema")
}

/**
 * The schema the answer of a new task must meet, as the message carries it: its metadata's `outputSchema`, or a data
 * part (`application/schema+json`, or `{ "outputSchema": … }`); the request's `metadata.aeon.outputSchema` otherwise.
 */
const schemaOfMessage = (m: Message | undefined): unknown =>
  fieldOf(m?.metadata, "outputSchema") ??
    (m?.parts ?? []).map(schemaOfPart).find((s) => s !== undefined)

/** Starts the message's task, or answers the request its task waits for: the run and the log's offset to follow. */
const beginTask = (params: SendMessageRequest, userId: string | undefined, agent: string | undefined) =>
  Effect.gen(function*() {
    const message = params.message
    if (message?.taskId) {
      const found = yield* ownRun(userId, message.taskId)
      const [asked] = openRequests(found.record)
      if (!asked) return { run: found, fromSeq: afterLast(found) }
      yield* answerRequest(
        found.id,
        asked.requestId,
        answerOf(message, asked._tag === "GuidanceRequested"),
        `a2a:${userId ?? "user"}`
      )
      return { run: found, fromSeq: asked.seq + 1 }
    }
    const options = recordField(params.metadata, "aeon") ?? {}
    const contextId = message?.contextId || randomUUID()
    const outputSchema = schemaOfMessage(message)
    const started = yield* (yield* RunManager).start({
      ...options,
      ...(outputSchema !== undefined ? { outputSchema } : {}),
      task: textOfMessage(message),
      ...filesOf(message),
      // the context is the thread: the next message on it continues the conversation
      ...threadOf(contextId),
      tags: ["a2a", conversationTag("context", contextId)],
      ...(agent !== undefined ? { agent } : {}),
      ...(userId !== undefined ? { userId } : {})
    }, userId)
    return { run: started, fromSeq: 0 }
  })

/** The offset after the run's last event: what a follower from now on reads from. */
const afterLast = (run: RunModel) => (run.events.at(-1)?.seq ?? 0) + 1

type Ids = { readonly taskId: string; readonly contextId: string }

const artifactUpdate = (ids: Ids, artifact: Artifact, append: boolean, lastChunk: boolean): StreamResponse => ({
  payload: { $case: "artifactUpdate", value: { ...ids, artifact, append, lastChunk, metadata: undefined } }
})

const statusUpdate = (ids: Ids, status: Task["status"]): StreamResponse => ({
  payload: { $case: "statusUpdate", value: { ...ids, status, metadata: undefined } }
})

/**
 * The run's updates from `fromSeq` as A2A stream responses (the answer's text as it is written, each phase as a
 * working status), ending where it waits or ends with the task as it is then: its whole answer, its status.
 */
async function* taskUpdates(
  runtime: Runtime.Runtime<RunManager>,
  first: RunModel,
  fromSeq: number,
  userId: string | undefined,
  signal: AbortSignal
): AsyncGenerator<StreamResponse> {
  const ids: Ids = { taskId: first.id, contextId: contextOf(first) }
  const items = await Runtime.runPromise(runtime)(runItems(first.id, { fromSeq, until: pausesOrEnds, signal }))
  let streamed = false
  for await (const item of items) {
    if (item._tag !== "Event") {
      yield artifactUpdate(ids, answerArtifact(item._tag === "Text" ? item.delta : item.text), streamed, false)
      streamed = true
      continue
    }
    const e = item.event
    if (e._tag === "PhaseEntered") {
      const said = agentMessage(
        { id: ids.taskId, contextId: ids.contextId },
        `pass ${e.passNumber}: ${e.phase.toLowerCase()}`
      )
      yield statusUpdate(ids, {
        state: TaskState.TASK_STATE_WORKING,
        message: said,
        timestamp: new Date(e.at).toISOString()
      })
    }
    if (!pausesOrEnds(item)) continue
    const now = taskOf(await Runtime.runPromise(runtime)(ownRun(userId, first.id)))
    const [answer] = now.artifacts
    if (answer) yield artifactUpdate(ids, answer, false, true)
    yield statusUpdate(ids, now.status)
  }
}

type Runner = <A, E>(effect: Effect.Effect<A, E, RunManager>) => Promise<A>

/** The push handlers over the caller's own runs (a task of another user's is not found). */
const pushesFor = (run: Runner) => {
  const access = (userId: string | undefined) => ({
    found: (taskId: string) => run(ownRun(userId, taskId)),
    contextOf,
    run: <A, E>(effect: Effect.Effect<A, E>) => run(effect)
  })
  const handlers = (context: ServerCallContext) => pushHandlers(access(userOf(context)))
  return {
    createTaskPushNotificationConfig: (params: TaskPushNotificationConfig, context: ServerCallContext) =>
      handlers(context).createTaskPushNotificationConfig(params),
    getTaskPushNotificationConfig: (params: { taskId: string; id: string }, context: ServerCallContext) =>
      handlers(context).getTaskPushNotificationConfig(params),
    listTaskPushNotificationConfigs: (params: { taskId: string }, context: ServerCallContext) =>
      handlers(context).listTaskPushNotificationConfigs(params),
    deleteTaskPushNotificationConfig: (params: { taskId: string; id: string }, context: ServerCallContext) =>
      handlers(context).deleteTaskPushNotificationConfig(params)
  }
}

/** message/send's `configuration.taskPushNotificationConfig`: kept for the task it started (or went on with). */
const pushOnSend = async (run: Runner, userId: string | undefined, taskId: string, params: SendMessageRequest) => {
  const config = params.configuration?.taskPushNotificationConfig
  if (!config?.url) return
  await setPush({ found: (id) => run(ownRun(userId, id)), contextOf, run: (e) => run(e) }, taskId, config)
}

/**
 * Aeon's A2A request handler: the SDK's task calls over the run manager, as the caller's user, each answering from
 * the run's log. A stream ends when `leaving` is aborted (its client went away): the SDK gives its handler no signal
 * of its own, and the run's follower must not outlive the client.
 */
export const handlerOf = (
  runtime: Runtime.Runtime<RunManager>,
  card: () => AgentCard,
  leaving: AbortSignal,
  /** The agent whose A2A endpoint it is (its tasks are its runs); none: the server's own. */
  agent?: string
): A2ARequestHandler => {
  const run = async <A, E>(effect: Effect.Effect<A, E, RunManager>): Promise<A> => {
    const exit = await Runtime.runPromiseExit(runtime)(effect)
    if (Exit.isSuccess(exit)) return exit.value
    const f = publicFailure(exit.cause)
    if (f.code === "RunNotFoundError") throw new TaskNotFoundError(f.message)
    throw new Error(`${f.code}: ${f.message}`)
  }
  const task = (id: string, userId: string | undefined) => run(Effect.map(ownRun(userId, id), taskOf))

  async function* streamOf(
    first: RunModel,
    fromSeq: number,
    userId: string | undefined
  ): AsyncGenerator<StreamResponse> {
    yield { payload: { $case: "task", value: taskOf(first) } }
    yield* taskUpdates(runtime, first, fromSeq, userId, leaving)
  }

  return {
    getAgentCard: () => Promise.resolve(card()),
    getAuthenticatedExtendedAgentCard: () => Promise.reject(new UnsupportedOperationError("no extended agent card")),
    sendMessage: async (params, context) => {
      const userId = userOf(context)
      const { fromSeq, run: started } = await run(beginTask(params, userId, agent))
      await pushOnSend(run, userId, started.id, params)
      if (!params.configuration?.returnImmediately) {
        for await (const _ of await run(runItems(started.id, { fromSeq, until: pausesOrEnds, signal: leaving }))) {
          continue
        }
      }
      return task(started.id, userId)
    },
    sendMessageStream: async function*(params, context) {
      const userId = userOf(context)
      const { fromSeq, run: started } = await run(beginTask(params, userId, agent))
      await pushOnSend(run, userId, started.id, params)
      yield* streamOf(started, fromSeq, userId)
    },
    getTask: (params, context) => task(params.id, userOf(context)),
    cancelTask: async (params, context) => {
      const userId = userOf(context)
      const found = await run(ownRun(userId, params.id))
      return run(Effect.map(Effect.flatMap(RunManager, (m) => m.cancel(found.id)), taskOf))
    },
    resubscribe: async function*(params, context) {
      const userId = userOf(context)
      const found = await run(ownRun(userId, params.id))
      yield* streamOf(found, afterLast(found), userId)
    },
    listTasks: async (params, context) => {
      const userId = userOf(context)
      const page = await run(Effect.flatMap(RunManager, (m) => m.list({ userId, first: params.pageSize || 50 })))
      const tasks = await Promise.all(page.runs.map((r) => task(r.id, userId)))
      return { tasks, nextPageToken: "", pageSize: tasks.length, totalSize: tasks.length }
    },
    ...pushesFor(run)
  }
}
