import { type Context, Effect, JSONSchema, Option, Schema, SubscriptionRef } from "effect"
import { GraphQLError } from "graphql"
import type { Agents } from "../../agents/Agents.js"
import { InvalidRunInputError } from "../../domain/Errors.js"
import { UntrustedPolicy } from "../../domain/UntrustedPolicy.js"
import * as Guardrails from "../../guardrails/Guardrails.js"
import { LanguageModel } from "../../llm/LanguageModel.js"
import * as Servers from "../../mcp/Servers.js"
import { registry } from "../../prompts/PromptRegistry.js"
import type * as Fork from "../../run/Fork.js"
import { formatIssues } from "../../run/RunInput.js"
import * as RunAccess from "../../runs/RunAccess.js"
import { RunManager } from "../../runs/RunManager.js"
import type { RunModel } from "../../runs/RunModel.js"
import { Quotas } from "../../store/QuotaLedger.js"
import { cursorOf, isCursor } from "../../store/RunStore.js"
import * as StoreOutages from "../../store/StoreOutages.js"
import { ToolRegistry } from "../../tools/ToolRegistry.js"
import type { Adapter } from "../EffectAdapter.js"
import { agentMutations, agentQueries, runAgentFields } from "./AgentResolvers.js"
import type * as G from "./generated/graphql.js"
import type { GraphQLContext } from "./GraphQLContext.js"
import * as V from "./GraphQLViews.js"
import { memoryMutations, memoryQueries } from "./MemoryResolvers.js"
import { pageRefusal, takeEvents } from "./QueryLimits.js"
import * as Asks from "./RequestViews.js"
import { scheduleFields, scheduleMutations, scheduleQueries } from "./ScheduleResolvers.js"
import { threadFields, threadMutations, threadQueries } from "./ThreadResolvers.js"
import { runWebhookFields } from "./WebhookResolvers.js"

export interface ServerInfo {
  readonly version: string
  readonly database: string
}

/** GraphQL leaves absent optional inputs as null; the library's schema wants them absent. */
const withoutNulls = (value: unknown): unknown =>
  Array.isArray(value) ?
    value.map(withoutNulls)
    : value !== null && typeof value === "object"
    ? Object.fromEntries(
      Object.entries(value).filter(([, v]) => v !== null && v !== undefined).map(([k, v]) => [k, withoutNulls(v)])
    )
    : value

/** What resolvers run on. */
export type R = RunManager | ToolRegistry | LanguageModel | Agents

/**
 * The run, when its stored events decode. A damaged run is listed from its row; each field that needs its events
 * answers RunRecordDamagedError (the fields are nullable: the error stays on that node, the page is served).
 */
const intact = (r: RunModel): RunModel => {
  if (r.damaged) throw new GraphQLError(r.damaged.message, { extensions: { code: r.damaged._tag } })
  return r
}

/** How resolvers reach the engine: a resolver's Effect run for its request, the caller's runs, the services. */
const accessOf = (adapter: Adapter<R>) => {
  /** Runs a resolver's Effect, interrupted when the client goes away. */
  const run = <A, E>(ctx: GraphQLContext, effect: Effect.Effect<A, E, R>) => adapter.run(effect, ctx.signal)
  /**
   * The in-memory services, taken from the runtime once (it is built before the first request): health and
   * tools answer from them as plain functions (an Effect per request costs ~12 % of a small query's throughput).
   */
  let services: {
    readonly manager: Context.Tag.Service<typeof RunManager>
    readonly model: Context.Tag.Service<typeof LanguageModel>
    readonly tools: Context.Tag.Service<typeof ToolRegistry>
    readonly mcp: Servers.Service
    readonly outages: StoreOutages.Service | undefined
    readonly guardrails: Guardrails.Service | undefined
  } | undefined
  const inMemory = () => (services ??= adapter.read(Effect.all({
    manager: RunManager,
    model: LanguageModel,
    tools: ToolRegistry,
    mcp: Effect.map(Effect.serviceOption(Servers.McpServers), Option.getOrElse(() => Servers.none)),
    outages: Effect.map(Effect.serviceOption(StoreOutages.StoreOutages), Option.getOrUndefined),
    guardrails: Effect.map(Effect.serviceOption(Guardrails.Guardrails), Option.getOrUndefined)
  })))
  /**
   * The caller's run by id: the id as given (a generated one, or a full `user:runId`), else for a user the id they
   * chose, scoped to them. One lookup for the ids most requests carry.
   */
  const ownRun = (ctx: GraphQLContext, id: string) => RunAccess.ownRun(ctx.userId, id)
  /** Something done with the caller's own run (found as ownRun finds it), by the run manager. */
  const withOwnRun = <A, E>(
    ctx: GraphQLContext,
    id: string,
    f: (manager: Context.Tag.Service<typeof RunManager>, runId: string) => Effect.Effect<A, E>
  ) => run(ctx, ownRun(ctx, id).pipe(Effect.flatMap((r) => Effect.flatMap(RunManager, (m) => f(m, r.id)))))
  return { run, ownRun, withOwnRun, inMemory }
}
type Access = ReturnType<typeof accessOf>

/** The caller's runs and quota. */
const runQueries = ({ ownRun, run }: Access): G.QueryResolvers => ({
  run: (_, { id }, ctx) =>
    run(
      ctx,
      ownRun(ctx, id).pipe(
        Effect.map((r): RunModel | null => r),
        Effect.catchTag("RunNotFoundError", () => Effect.succeed(null))
      )
    ),
  runs: (_, args, ctx) =>
    run(
      ctx,
      Effect.gen(function*() {
        const manager = yield* RunManager
        const refused = pageRefusal(args.first, args.after, isCursor)
        if (refused) return yield* new InvalidRunInputError({ message: refused })
        const page = yield* manager.list({
          userId: ctx.userId ?? args.userId ?? undefined,
          status: args.status ?? undefined,
          agent: args.filter?.agent ?? undefined,
          first: args.first ?? 20,
          after: args.after ?? undefined
        })
        const edges = yield* Effect.forEach(
          page.runs,
          (r) => manager.get(r.id).pipe(Effect.map((node) => ({ cursor: cursorOf(r), node: Option.getOrThrow(node) })))
        )
        return {
          edges,
          pageInfo: { endCursor: page.endCursor, hasNextPage: page.hasNextPage }
        }
      })
    ),
  quota: (_, { userId }, ctx) =>
    run(
      ctx,
      Effect.gen(function*() {
        const quotas = yield* Effect.serviceOption(Quotas)
        if (Option.isNone(quotas)) return []
        const usages = yield* quotas.value.usage(ctx.userId ?? userId ?? undefined)
        return usages.map((u) => ({
          userId: u.userId,
          metric: u.metric,
          period: u.period,
          limit: u.amount,
          used: u.used,
          left: u.left,
          resetsAt: new Date(u.resetsAt).toISOString()
        }))
      })
    )
})

/** What the server offers and how it is: its tools, prompts and health (from the in-memory services). */
const serverQueries = ({ inMemory }: Access, info: ServerInfo): G.QueryResolvers => ({
  tools: () =>
    inMemory().tools.tools.map((t) => ({
      name: t.name,
      description: t.description,
      idempotent: t.idempotent,
      readOnly: t.interruptible === true,
      destructive: t.destructive === true,
      server: t.server ?? null,
      timeoutMs: t.timeoutMs,
      inputSchema: t.inputJsonSchema ?? JSONSchema.make(Schema.encodedSchema(t.input))
    })),
  prompts: () =>
    [...registry.values()].map((d) => ({
      id: d.id,
      template: d.template,
      inputSchema: JSONSchema.make(Schema.encodedSchema(d.input)),
      outputSchema: d.output ? JSONSchema.make(Schema.typeSchema(d.output)) : null
    })),
  health: () => {
    const { guardrails, manager, mcp, model, outages } = inMemory()
    const stats = manager.stats()
    const waiting = outages ? [...Effect.runSync(SubscriptionRef.get(outages.waiting)).values()] : []
    return {
      ok: waiting.length === 0,
      storeFailure: waiting[0]?.cause ?? null,
      runsWaitingForStore: waiting.length,
      version: info.version,
      model: model.label,
      modelConditions: [model, ...(model.members ?? [])].flatMap((m) => m.condition?.() ?? []),
      database: info.database,
      activeRuns: stats.active,
      queuedRuns: stats.queued,
      subscriptions: stats.subscriptions,
      guardrailTriggers: [...guardrails?.counts() ?? []],
      mcpServers: mcp.health().map((h) => ({
        ...h,
        status: h.status.toUpperCase() as Uppercase<typeof h.status>,
        lastError: h.lastError ?? null
      }))
    }
  }
})

const mutations = ({ run, withOwnRun }: Access): G.MutationResolvers => ({
  runTask: (_, { input }, ctx) =>
    run(
      ctx,
      Effect.gen(function*() {
        const body = withoutNulls(input) as Record<string, unknown>
        if (ctx.userId !== undefined) {
          if (body.userId !== undefined && body.userId !== ctx.userId) {
            return yield* new InvalidRunInputError({ message: `userId ${body.userId} is not the caller's user` })
          }
          body.userId = ctx.userId
        }
        return yield* (yield* RunManager).start(body, ctx.userId)
      })
    ),
  cancelRun: (_, { id }, ctx) => withOwnRun(ctx, id, (m, runId) => m.cancel(runId)),
  respondToApproval: (_, { decision, input, reason, requestId, runId }, ctx) =>
    withOwnRun(ctx, runId, (m, id) =>
      m.respond(id, requestId, {
        decision,
        ...(input !== null && input !== undefined ? { input } : {}),
        ...(reason ? { reason } : {}),
        ...(ctx.userId !== undefined ? { by: ctx.userId } : {})
      })),
  provideGuidance: (_, { requestId, runId, text }, ctx) =>
    withOwnRun(ctx, runId, (m, id) => m.guide(id, requestId, text, ctx.userId)),
  forkRun: (_, { atSeq, changes, runId }, ctx) =>
    withOwnRun(ctx, runId, (m, id) => m.fork(id, atSeq, forkChanges(changes), ctx.userId)),
  recheckRun: (_, { policy, runId }, ctx) =>
    withOwnRun(ctx, runId, (m, id) =>
      Effect.flatMap(
        Schema.decodeUnknown(Schema.NullishOr(UntrustedPolicy))(policy, { onExcessProperty: "error" }).pipe(
          Effect.mapError((e) => new InvalidRunInputError({ message: `policy: ${formatIssues(e)}` }))
        ),
        (p) =>
          Effect.map(
            m.recheck(id, p ?? undefined),
            (calls) => calls.map((c) => ({ ...c, input: c.input ?? null, reason: c.reason ?? null }))
          )
      )),
  replayRun: (_, { runId }, ctx) =>
    withOwnRun(ctx, runId, (m, id) =>
      Effect.map(m.replay(id), (r) => ({
        runId,
        identical: r.divergence === undefined,
        events: r.events,
        divergence: r.divergence ?? null
      })))
})

/** A fork's changes as the library takes them (GraphQL's nulls left out). */
const forkChanges = (changes: G.ForkChanges | null | undefined) => withoutNulls(changes ?? {}) as Fork.ForkChanges

const subscriptions = ({ withOwnRun }: Access) => ({
  runEvents: {
    subscribe: (_: unknown, { fromSeq, runId }: G.SubscriptionRunEventsArgs, ctx: GraphQLContext) =>
      withOwnRun(ctx, runId, (m, id) => m.follow(id, fromSeq ?? 0, V.sharedEventPayload))
  },
  runEventBatches: {
    subscribe: (_: unknown, { fromSeq, runId }: G.SubscriptionRunEventBatchesArgs, ctx: GraphQLContext) =>
      withOwnRun(
        ctx,
        runId,
        (m, id) => m.followBatches(id, fromSeq ?? 0, V.sharedBatchPayload)
      )
  },
  runOutput: {
    subscribe: (_: unknown, { runId }: G.SubscriptionRunOutputArgs, ctx: GraphQLContext) =>
      withOwnRun(ctx, runId, (m, id) => m.followOutput(id, V.outputDeltaPayload))
  },
  runStoreWaits: {
    subscribe: (_: unknown, { runId }: G.SubscriptionRunStoreWaitsArgs, ctx: GraphQLContext) =>
      withOwnRun(ctx, runId, (m, id) => m.followStoreWaits(id, (w) => ({ runStoreWaits: V.storeWaitView(w) })))
  }
})

/** A field's view of what the run has, null when it has none. */
const viewOf = <A, B>(a: A | undefined, view: (a: A) => B): B | null => (a === undefined ? null : view(a))

/** A run's fields: projections of its record (a damaged run's event-derived fields fail, coded). */
const runFields = ({ inMemory }: Access): G.RunResolvers => ({
  id: (r) => r.id,
  task: (r) => r.result.task,
  mode: (r) => r.result.mode,
  status: (r) => r.status,
  userId: (r) => r.userId,
  model: (r) => r.result.model || null,
  models: (r) => [...r.result.models],
  createdAt: (r) => r.createdAt.toISOString(),
  runner: (r) => r.runner ?? null,
  tags: (r) => [...(r.record.started?.tags ?? [])],
  threadId: (r) => r.record.started?.threadId ?? null,
  conversation: (r) => viewOf(r.record.conversation, V.conversationView),
  updatedAt: (r) => r.updatedAt.toISOString(),
  finalAnswer: (r) =>
    viewOf(intact(r).result.finalAnswer, (a) => ({
      ...a,
      usedStepIds: [...a.usedStepIds],
      notes: a.notes ?? null,
      data: a.data ?? null
    })),
  result: (r) => V.outcomeView(intact(r).result),
  history: (r) => intact(r).events.length > 0 ? V.historyView(r.result.history) : null,
  escalation: (r) => V.escalationView(intact(r).result),
  prioritizedPlan: (r) => V.prioritizedPlanView(intact(r).result),
  trace: (r) => V.traceView(r.id, intact(r).record),
  metadata: (r) => V.metadataView(intact(r).record),
  usage: (r) => V.usageView(intact(r).result.usage),
  plan: (r) => viewOf(intact(r).result.plan, V.planView),
  timeline: (r) => V.timelineView(intact(r).record, Date.now()),
  forkedFrom: (r) => {
    const origin = intact(r).record.forkedFrom
    return origin ? { runId: origin.from, atSeq: origin.atSeq, changed: [...origin.changed] } : null
  },
  storeWait: (r) => {
    const wait = inMemory().manager.storeWait(r.id)
    return wait.waiting ? V.storeWaitView(wait) : null
  },
  pendingApprovals: (r) => Asks.pendingApprovalsView(intact(r).record),
  pendingGuidance: (r) => Asks.pendingGuidanceView(intact(r).record),
  pendingPlanApproval: (r) => Asks.pendingPlanApprovalView(intact(r).record),
  pendingBudgetExtensions: (r) => Asks.pendingBudgetExtensionsView(intact(r).record),
  forecast: (r) => viewOf(intact(r).result.forecast, V.forecastView),
  forecastError: (r) => viewOf(intact(r).result.forecastError, V.forecastErrorView),
  llmCalls: (r, { after, first }) => {
    const refused = pageRefusal(first, after, V.isCallCursor)
    if (refused) throw new GraphQLError(refused, { extensions: { code: "InvalidRunInputError" } })
    return V.llmCallsView(intact(r).events, first ?? 20, after ?? undefined)
  },
  events: (r, { first, fromSeq }, ctx) => {
    if (first !== null && first !== undefined && first < 0) {
      throw new GraphQLError(`first must not be negative (was ${first})`, {
        extensions: { code: "InvalidRunInputError" }
      })
    }
    const from = r.events.findIndex((e) => e.seq >= (fromSeq ?? 0))
    const events = from < 0
      ? []
      : r.events.slice(from, first === null || first === undefined ? undefined : from + first)
    takeEvents(ctx.events, events.length)
    return events.map(V.eventView)
  }
})

export const make = (adapter: Adapter<R>, info: ServerInfo): G.Resolvers => {
  const access = accessOf(adapter)
  return {
    Query: {
      ...runQueries(access),
      ...serverQueries(access, info),
      ...memoryQueries(access.run),
      ...threadQueries(access.run),
      ...agentQueries(access.run),
      ...scheduleQueries(access.run)
    },
    Mutation: {
      ...mutations(access),
      ...memoryMutations(access.run),
      ...threadMutations(access.run),
      ...agentMutations(access.run),
      ...scheduleMutations(access.run)
    },
    Thread: threadFields(access.run),
    Schedule: scheduleFields(access.run).Schedule,
    Subscription: subscriptions(access),
    Run: {
      ...runFields(access),
      ...runAgentFields(access.run),
      ...runWebhookFields(access.run),
      scheduleId: scheduleFields(access.run).scheduleId
    },
    RunEvent: { __resolveType: (e: V.EventView) => e.__typename }
  } as G.Resolvers
}
