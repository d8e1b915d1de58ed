/**
 * The CLI's commands beside a server holding the data directory, through its GraphQL API: a person's answers, memory,
 * quotas, a run's recorded calls, fork and replay. The server holds the store; the CLI reads none of it itself.
 */
import { Effect, Schema } from "effect"
import type { Memory } from "../domain/Memory.js"
import type { QuotaUsage } from "../domain/Quota.js"
import type { LlmCall } from "../record/LlmCalls.js"
import { type AskedEvent, asks } from "../record/Requests.js"
import type { PersonAnswer } from "../run/Answers.js"
import { CliError } from "./CliError.js"
import { Connection, eventsOnServer, operation } from "./ViaServer.js"

const RunStatus = Schema.Struct({ status: Schema.String })

const PageInfo = Schema.Struct({ endCursor: Schema.NullOr(Schema.String), hasNextPage: Schema.Boolean })

/** A connection's nodes over its pages (at most 100 a request, as the API serves them), up to `limit`. */
const paged = <A, E, R>(
  limit: number,
  page: (first: number, after: string | undefined) => Effect.Effect<
    {
      readonly nodes: ReadonlyArray<A>
      readonly pageInfo: typeof PageInfo.Type
    },
    E,
    R
  >
) =>
  Effect.gen(function*() {
    const nodes: Array<A> = []
    let after: string | undefined
    for (;;) {
      const p = yield* page(Math.min(100, limit - nodes.length), after)
      nodes.push(...p.nodes)
      if (!p.pageInfo.hasNextPage || p.pageInfo.endCursor === null || nodes.length >= limit) return nodes
      after = p.pageInfo.endCursor
    }
  })

/** The request a run asked (its event, from the server's log of the run), for the words of an answer to it. */
const requestOnServer = (url: string, runId: string, requestId: string) =>
  Effect.flatMap(eventsOnServer(url, runId), (events) =>
    events === undefined
      ? Effect.fail(new CliError(`run ${runId} does not exist`))
      : Effect.succeed(
        events.find((e): e is AskedEvent => asks(e) && "requestId" in e && e.requestId === requestId)
      ))

/** Answers a run's request on the server (`aeon approve`, `aeon guide`): the request it answered, if it was asked. */
export const answerOnServer = (url: string, runId: string, answer: PersonAnswer) =>
  Effect.gen(function*() {
    const request = yield* requestOnServer(url, runId, answer.requestId)
    if (answer._tag === "Guidance") {
      yield* operation(
        url,
        `mutation($runId: ID!, $requestId: ID!, $text: String!) {
          provideGuidance(runId: $runId, requestId: $requestId, text: $text) { status } }`,
        { runId, requestId: answer.requestId, text: answer.text },
        Schema.Struct({ provideGuidance: RunStatus })
      )
    } else {
      yield* operation(
        url,
        `mutation($runId: ID!, $requestId: ID!, $decision: ApprovalDecision!, $input: JSON, $reason: String) {
          respondToApproval(runId: $runId, requestId: $requestId, decision: $decision, input: $input, reason: $reason) {
            status } }`,
        {
          runId,
          requestId: answer.requestId,
          decision: answer.answer.decision,
          input: answer.answer.input,
          reason: answer.answer.reason
        },
        Schema.Struct({ respondToApproval: RunStatus })
      )
    }
    return request
  })

/** GraphQL's MemoryKind as the store names it. */
const KINDS = { ANSWER: "answer", STEP: "step", NOTED: "noted" } as const

const MemoryRow = Schema.Struct({
  id: Schema.String,
  kind: Schema.Literal("ANSWER", "STEP", "NOTED"),
  text: Schema.String,
  task: Schema.String,
  runId: Schema.NullOr(Schema.String),
  stepId: Schema.NullOr(Schema.String),
  passNumber: Schema.NullOr(Schema.Number),
  tags: Schema.Array(Schema.String),
  createdAt: Schema.String,
  coverage: Schema.NullOr(Schema.Number)
})

/** A user's memories as the server lists them (`aeon memory list|search`), in the store's shape. */
export const memoriesOnServer = (
  url: string,
  o: { readonly userId: string | undefined; readonly query: string | undefined; readonly first: number }
) =>
  Effect.map(
    paged(o.first, (first, after) =>
      Effect.map(
        operation(
          url,
          `query($query: String, $userId: ID, $first: Int, $after: String) {
            memories(query: $query, userId: $userId, first: $first, after: $after) {
              edges { node { id kind text task runId stepId passNumber tags createdAt coverage } }
              pageInfo { endCursor hasNextPage } } }`,
          { query: o.query, userId: o.userId, first, after },
          Schema.Struct({ memories: Schema.Struct({ ...Connection(MemoryRow).fields, pageInfo: PageInfo }) })
        ),
        (d) => ({ nodes: d.memories.edges.map((e) => e.node), pageInfo: d.memories.pageInfo })
      )),
    (rows): Array<Memory & { readonly coverage?: number | undefined }> =>
      rows.map(({ coverage, kind, ...m }) => ({
        ...m,
        kind: KINDS[kind],
        ...(coverage === null ? {} : { coverage })
      }))
  )

/** Forgets one memory, or every one of a user's, on the server (`aeon memory forget`): how many went. */
export const forgetMemoriesOnServer = (url: string, userId: string | undefined, id: string | undefined) =>
  id === undefined
    ? Effect.map(
      operation(
        url,
        `mutation($userId: ID) { forgetMemories(userId: $userId) }`,
        { userId },
        Schema.Struct({ forgetMemories: Schema.Number })
      ),
      (d) => d.forgetMemories
    )
    : Effect.map(
      operation(
        url,
        `mutation($id: ID!, $userId: ID) { forgetMemory(id: $id, userId: $userId) }`,
        { id, userId },
        Schema.Struct({ forgetMemory: Schema.Boolean })
      ),
      (d) => (d.forgetMemory ? 1 : 0)
    )

/** A user's quotas as the server counts them (`aeon quota`). */
export const quotaOnServer = (url: string, userId: string | undefined) =>
  Effect.map(
    operation(
      url,
      `query($userId: ID) { quota(userId: $userId) { userId metric period limit used left resetsAt } }`,
      { userId },
      Schema.Struct({
        quota: Schema.Array(Schema.Struct({
          userId: Schema.String,
          metric: Schema.Literal("cost", "tokens", "runs"),
          period: Schema.Literal("day", "month"),
          limit: Schema.Number,
          used: Schema.Number,
          left: Schema.Number,
          resetsAt: Schema.String
        }))
      })
    ),
    (d): Array<QuotaUsage> =>
      d.quota.map(({ limit, ...u }) => ({ ...u, amount: limit, resetsAt: Date.parse(u.resetsAt) }))
  )

const CallRow = Schema.Struct({
  seq: Schema.Number,
  at: Schema.String,
  promptId: Schema.String,
  model: Schema.String,
  attempt: Schema.Number,
  passNumber: Schema.NullOr(Schema.Number),
  phase: Schema.NullOr(Schema.String),
  stepId: Schema.NullOr(Schema.String),
  system: Schema.String,
  user: Schema.String,
  response: Schema.NullOr(Schema.String),
  thinking: Schema.NullOr(Schema.String),
  finishReason: Schema.NullOr(Schema.String),
  output: Schema.optional(Schema.Unknown),
  decodeError: Schema.NullOr(Schema.String),
  error: Schema.NullOr(Schema.String),
  inputTokens: Schema.Number,
  outputTokens: Schema.Number,
  cachedTokens: Schema.Number,
  cacheWriteTokens: Schema.Number,
  costUsd: Schema.Number,
  latencyMs: Schema.Number,
  failedModels: Schema.Array(Schema.String),
  estimated: Schema.Boolean,
  replayed: Schema.Boolean
})

/** A run's recorded model calls as the server keeps them (`aeon inspect RUN --calls`); undefined: no such run. */
export const callsOnServer = (url: string, runId: string) =>
  Effect.gen(function*() {
    let missing = false
    const rows = yield* paged(100_000, (first, after) =>
      Effect.map(
        operation(
          url,
          `query($id: ID!, $first: Int, $after: String) { run(id: $id) { llmCalls(first: $first, after: $after) {
            edges { node { seq at promptId model attempt passNumber phase stepId system user response thinking
              finishReason output decodeError error inputTokens outputTokens cachedTokens cacheWriteTokens costUsd
              latencyMs failedModels estimated replayed } }
            pageInfo { endCursor hasNextPage } } } }`,
          { id: runId, first, after },
          Schema.Struct({
            run: Schema.NullOr(Schema.Struct({
              llmCalls: Schema.Struct({ ...Connection(CallRow).fields, pageInfo: PageInfo })
            }))
          })
        ),
        (d) => {
          missing = d.run === null
          return d.run === null
            ? { nodes: [], pageInfo: { endCursor: null, hasNextPage: false } }
            : { nodes: d.run.llmCalls.edges.map((e) => e.node), pageInfo: d.run.llmCalls.pageInfo }
        }
      ))
    if (missing) return undefined
    return rows.map((row): LlmCall => ({
      ...row,
      passNumber: row.passNumber ?? undefined,
      phase: row.phase ?? undefined,
      stepId: row.stepId ?? undefined,
      response: row.response ?? undefined,
      thinking: row.thinking ?? undefined,
      finishReason: row.finishReason ?? undefined,
      decodeError: row.decodeError ?? undefined,
      error: row.error ?? undefined,
      at: Date.parse(row.at),
      failed: row.error !== null
    }))
  })

/** Forks a run on the server (`aeon fork`): the fork's id; the server runs it. */
export const forkOnServer = (url: string, runId: string, atSeq: number, changes: unknown) =>
  Effect.map(
    operation(
      url,
      `mutation($runId: ID!, $atSeq: Int!, $changes: ForkChanges) {
        forkRun(runId: $runId, atSeq: $atSeq, changes: $changes) { id } }`,
      { runId, atSeq, changes },
      Schema.Struct({ forkRun: Schema.Struct({ id: Schema.String }) })
    ),
    (d) => d.forkRun.id
  )

const Side = Schema.NullOr(Schema.Struct({ type: Schema.String, event: Schema.Unknown }))

/** Replays a run on the server (`aeon replay`): the events compared and the first divergence, if any. */
export const replayOnServer = (url: string, runId: string) =>
  Effect.map(
    operation(
      url,
      `mutation($runId: ID!) { replayRun(runId: $runId) { identical events divergence { seq expected got } } }`,
      { runId },
      Schema.Struct({
        replayRun: Schema.Struct({
          identical: Schema.Boolean,
          events: Schema.Number,
          divergence: Schema.NullOr(Schema.Struct({ seq: Schema.Number, expected: Side, got: Side }))
        })
      })
    ),
    (d) => ({
      events: d.replayRun.events,
      divergence: d.replayRun.divergence === null ? undefined : {
        seq: d.replayRun.divergence.seq,
        expected: d.replayRun.divergence.expected ?? undefined,
        got: d.replayRun.divergence.got ?? undefined
      }
    })
  )

/** A run's calls checked again on the server under another policy (`aeon replay --policy FILE`). */
export const recheckOnServer = (url: string, runId: string, policy: unknown) =>
  Effect.map(
    operation(
      url,
      `mutation($runId: ID!, $policy: JSON) {
        recheckRun(runId: $runId, policy: $policy) { seq passNumber stepId tool input held wouldHold reason } }`,
      { runId, policy },
      Schema.Struct({
        recheckRun: Schema.Array(Schema.Struct({
          seq: Schema.Number,
          passNumber: Schema.Number,
          stepId: Schema.String,
          tool: Schema.String,
          input: Schema.Unknown,
          held: Schema.Boolean,
          wouldHold: Schema.Boolean,
          reason: Schema.NullOr(Schema.String)
        }))
      })
    ),
    (d) => d.recheckRun.map((c) => ({ ...c, reason: c.reason ?? undefined }))
  )

/** Erases a run on the server (`aeon forget` beside it): whether there was one. */
export const forgetOnServer = (url: string, runId: string, userId: string | undefined) =>
  Effect.map(
    operation(
      url,
      `mutation($id: ID!, $userId: ID) { forgetRun(id: $id, userId: $userId) }`,
      { id: runId, userId },
      Schema.Struct({ forgetRun: Schema.Boolean })
    ),
    (d) => d.forgetRun
  )

/** The newest runs as the server lists them (`aeon runs` beside it), in the store's shape. */
export const runsOnServer = (
  url: string,
  filters: { readonly userId?: string | undefined; readonly status?: string | undefined; readonly first: number }
) =>
  Effect.map(
    operation(
      url,
      `query($userId: ID, $status: RunStatus, $first: Int) { runs(userId: $userId, status: $status, first: $first) {
        edges { node { id task status mode userId createdAt } } } }`,
      filters,
      Schema.Struct({
        runs: Connection(Schema.Struct({
          id: Schema.String,
          task: Schema.String,
          status: Schema.String,
          mode: Schema.String,
          userId: Schema.NullOr(Schema.String),
          createdAt: Schema.String
        }))
      })
    ),
    (d) => d.runs.edges.map(({ node }) => ({ ...node, createdAt: new Date(node.createdAt) }))
  )
