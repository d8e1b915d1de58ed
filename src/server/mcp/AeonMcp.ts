import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema
} from "@modelcontextprotocol/sdk/types.js"
import { type Cause, Effect, Exit, type Runtime } from "effect"
import { RunNotFoundError } from "../../domain/Errors.js"
import type { RunEvent } from "../../domain/RunEvent.js"
import type { AskedEvent } from "../../record/Requests.js"
import { requestMessage } from "../../record/Requests.js"
import {
  asks,
  openRequests,
  pendingApprovals,
  pendingBudgetExtensions,
  pendingGuidance,
  pendingPlanApprovals
} from "../../record/RunRecord.js"
import { endsRun } from "../../record/RunRecord.js"
import { responseOf } from "../../runs/Answering.js"
import { publicFailure } from "../../runs/PublicFailure.js"
import { RunManager } from "../../runs/RunManager.js"
import type { RunModel } from "../../runs/RunModel.js"
import type { StoreError } from "../../store/StoreValues.js"
import { recordOf } from "../../support/Fields.js"
import { version } from "../../support/PackageFiles.js"
import { argumentProblem, taskInput, tools } from "./AeonTools.js"
import { askClient } from "./McpAsking.js"

/**
 * Aeon as an MCP server, for other agents and editors: tools `run_task`, `get_run`, `respond` and `cancel_run`, and each run as a
 * resource (`aeon://runs/{id}`). One implementation for both transports (`aeon mcp` on stdio, `/mcp` on the server),
 * on the run manager the GraphQL API uses: the same runs, store, queue and per-user rules.
 */

/** What a client reads of a run. */
export const runView = (run: RunModel) => {
  const r = run.result
  return {
    runId: run.id,
    status: run.status,
    task: r.task,
    mode: r.mode,
    model: r.model,
    terminationReason: r.terminationReason ?? null,
    answer: r.finalAnswer?.answerText ?? null,
    answerLabel: r.finalAnswer?.label ?? null,
    data: r.finalAnswer?.data ?? null,
    error: r.error ?? null,
    errorCode: r.errorCode ?? null,
    usage: r.usage,
    pendingApprovals: pendingApprovals(run.record),
    pendingPlanApproval: pendingPlanApprovals(run.record)[0] ?? null,
    pendingBudgetExtensions: pendingBudgetExtensions(run.record),
    pendingGuidance: pendingGuidance(run.record),
    plan: r.plan?.steps.map((s) => ({ stepId: s.stepId, description: s.description, status: s.status })) ?? []
  }
}

/** The respond actions that answer each kind of request. */
const ACTIONS: Record<AskedEvent["_tag"], string> = {
  ApprovalRequested: "approve, reject or edit (input: the call's input)",
  PlanApprovalRequested: "approve, reject or edit (input: refinement actions)",
  BudgetExtensionRequested: "approve, reject or extend (input: the caps)",
  GuidanceRequested: "guide (text: the guidance)"
}

/**
 * How a run left waiting is answered (the client could not ask its user), in the text a host gives its model: each
 * request with the exact respond call that answers it — its runId and requestId written out.
 */
const waitingHint = (runId: string, asked: ReadonlyArray<AskedEvent>) =>
  asked.map((r) =>
    `To answer it, call the tool respond with {"runId": ${JSON.stringify(runId)}, "requestId": ${
      JSON.stringify(r.requestId)
    }, "action": …} — action ${ACTIONS[r._tag]}.`
  ).concat("Or answer through GraphQL (respondToApproval, provideGuidance); a client with forms is asked directly.")
    .join("\n")

const URI = /^aeon:\/\/runs\/(.+)$/

/** A failure a client may read, as its words (its code in `_meta`, never in the text); a defect stays in the log. */
const failureResult = (cause: Cause.Cause<unknown>): CallToolResult => {
  const f = publicFailure(cause)
  return errorResult(f.message, f.code)
}

const errorResult = (text: string, code = "INVALID_ARGUMENTS"): CallToolResult => ({
  content: [{ type: "text", text }],
  isError: true,
  _meta: { "aeon/code": code }
})

type Runner = <A, E>(effect: Effect.Effect<A, E, RunManager>) => Promise<Exit.Exit<A, E>>

/**
 * Follows a run until it finishes or waits for a person `ask` could not get an answer from, reporting progress when
 * the client asked for it (a `progressToken`); a client that cancels the call cancels the run. Undefined when
 * followed to the end.
 */
const followUntilDone = async (
  run: Runner,
  runId: string,
  token: string | number | undefined,
  extra: { readonly signal: AbortSignal; readonly sendNotification: (n: any) => Promise<void> },
  ask: (r: AskedEvent, signal: AbortSignal) => Promise<boolean>
): Promise<CallToolResult | undefined> => {
  const followed = await run(Effect.flatMap(RunManager, (m) => m.follow(runId, 0, (e) => e)))
  if (Exit.isFailure(followed)) return failureResult(followed.cause)
  const events = followed.value
  // the client gave up on the call: the run is cancelled, not left working for nobody
  const onAbort = () => void run(Effect.flatMap(RunManager, (m) => m.cancel(runId)))
  extra.signal.addEventListener("abort", onAbort, { once: true })
  try {
    let progress = 0
    for await (const event of events) {
      if (token !== undefined && (event._tag === "PhaseEntered" || event._tag === "StepFinished" || endsRun(event))) {
        progress++
        await extra.sendNotification({
          method: "notifications/progress",
          params: { progressToken: token, progress, message: progressMessage(event) }
        }).catch(() => {})
      }
      if (endsRun(event)) break
      // waiting for a person (a call, guidance, its plan, more budget): asked of the client's user, else returned
      // waiting (get_run shows what it asks)
      if (asks(event) && !(await ask(event, extra.signal))) break
    }
  } finally {
    extra.signal.removeEventListener("abort", onAbort)
    await events.return?.()
  }
  return undefined
}

/** What a tool call returns of a run: its answer (a typed run's value as structured content), or what it waits for. */
const toolResult = (exit: Exit.Exit<RunModel, unknown>): CallToolResult => {
  if (Exit.isFailure(exit)) return failureResult(exit.cause)
  const view = runView(exit.value)
  const asked = openRequests(exit.value.record)
  const text = view.answer ?? [
    `run ${view.runId}: ${view.status}${view.error ? ` — ${view.error}` : ""}`,
    ...asked.map(requestMessage),
    ...(asked.length > 0 ? [waitingHint(view.runId, asked)] : [])
  ].join("\n")
  const data = exit.value.result.finalAnswer?.data
  // a typed run's value is its structured content (an object as it is, another value as { value }); the run's view
  // then travels in _meta
  return data === undefined
    ? { content: [{ type: "text", text }], structuredContent: view }
    : {
      content: [{ type: "text", text: JSON.stringify(data) }],
      structuredContent: recordOf(data) ?? { value: data },
      _meta: { "aeon/run": view }
    }
}

/** Who an MCP server answers and how it reaches the engine: its server, its runner, the caller's runs, its user. */
interface Caller {
  readonly server: Server
  readonly run: Runner
  readonly own: (id: string) => Effect.Effect<RunModel, RunNotFoundError | StoreError, RunManager>
  readonly userId: string | undefined
}

/** A tool call: its arguments checked, then the tool — a run started or answered, and followed until it is done. */
const callTool = async (
  { own, run, server, userId }: Caller,
  request: {
    readonly params: {
      readonly name: string
      readonly arguments?: unknown
      readonly _meta?: { readonly progressToken?: string | number } | undefined
    }
  },
  extra: { readonly signal: AbortSignal; readonly sendNotification: (n: any) => Promise<void> }
): Promise<CallToolResult> => {
  const args = recordOf(request.params.arguments) ?? {}
  const answer = toolResult
  const problem = argumentProblem(request.params.name, args)
  if (problem !== undefined) return errorResult(problem)
  switch (request.params.name) {
    case "get_run":
      return answer(await run(own(String(args.runId))))
    case "cancel_run":
      return answer(
        await run(Effect.zipRight(
          own(String(args.runId)),
          Effect.flatMap(RunManager, (m) => m.cancel(String(args.runId)))
        ))
      )
    case "run_task": {
      const input = taskInput(args, userId)
      const started = await run(Effect.flatMap(RunManager, (m) => m.start(input, userId)))
      if (Exit.isFailure(started)) return answer(started)
      const followed = await followUntilDone(
        run,
        started.value.id,
        request.params._meta?.progressToken,
        extra,
        askClient(server, run)
      )
      return followed ?? answer(await run(own(started.value.id)))
    }
    case "respond": {
      const runId = String(args.runId)
      const respond = responseOf(args, `mcp:${server.getClientVersion()?.name ?? "client"}`)
      if (typeof respond === "string") return errorResult(respond)
      const answered = await run(
        Effect.zipRight(own(runId), Effect.flatMap(RunManager, (m) => respond(m, runId, String(args.requestId))))
      )
      if (Exit.isFailure(answered)) return failureResult(answered.cause)
      const followed = await followUntilDone(
        run,
        runId,
        request.params._meta?.progressToken,
        extra,
        askClient(server, run)
      )
      return followed ?? answer(await run(own(runId)))
    }
    default:
      throw new McpError(-32602, `unknown tool ${request.params.name}`)
  }
}

/** Each run as the resource aeon://runs/{id}: its template, the caller's runs listed, one read. */
const serveResources = ({ own, run, server, userId }: Caller) => {
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [{
      uriTemplate: "aeon://runs/{id}",
      name: "run",
      title: "An Aeon run",
      description: "A run's status, final answer, usage and plan, as JSON",
      mimeType: "application/json"
    }]
  }))
  server.setRequestHandler(ListResourcesRequestSchema, async () => {
    const listed = await run(Effect.flatMap(RunManager, (m) => m.list({ userId, first: 50 })))
    if (Exit.isFailure(listed)) throw new McpError(-32603, publicFailure(listed.cause).message)
    return {
      resources: listed.value.runs.map((r) => ({
        uri: `aeon://runs/${r.id}`,
        name: r.id,
        title: `${r.status}: ${r.task.replace(/\s+/g, " ").slice(0, 80)}`,
        mimeType: "application/json"
      }))
    }
  })
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const id = request.params.uri.match(URI)?.[1]
    if (!id) throw new McpError(-32602, `not an Aeon run: ${request.params.uri} (aeon://runs/{id})`)
    const found = await run(own(decodeURIComponent(id)))
    if (Exit.isFailure(found)) throw new McpError(-32002, publicFailure(found.cause).message)
    return {
      contents: [{
        uri: request.params.uri,
        mimeType: "application/json",
        text: JSON.stringify(runView(found.value), null, 2)
      }]
    }
  })
}

/** The MCP server for one caller (`userId`: the API key's user, who sees only their own runs). */
export const make = (runtime: Runtime.Runtime<RunManager>, userId: string | undefined): Server => {
  const run: Runner = (effect) => Effect.runPromiseExit(Effect.provide(effect, runtime.context))
  /** The caller's run: another user's is not found. */
  const own = (id: string) =>
    Effect.flatMap(RunManager, (m) => m.getOrFail(id)).pipe(
      Effect.filterOrFail(
        (r) => userId === undefined || r.userId === userId,
        () => new RunNotFoundError({ runId: id })
      )
    )
  const server = new Server(
    { name: "aeon", title: "Aeon", version },
    {
      capabilities: { tools: {}, resources: {} },
      instructions:
        "Aeon is an adaptive reasoning engine. Call run_task with a task to get a checked, converged answer; " +
        "get_run and cancel_run act on a run by id, respond answers what it asks; each run is the resource " +
        "aeon://runs/{id}."
    }
  )
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools as unknown as Array<any> }))
  const caller: Caller = { server, run, own, userId }
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => callTool(caller, request, extra))
  serveResources(caller)
  return server
}

const progressMessage = (event: RunEvent): string =>
  event._tag === "PhaseEntered"
    ? `pass ${event.passNumber}: ${event.phase}`
    : event._tag === "StepFinished"
    ? `step ${event.stepId} ${event.status}`
    : event._tag === "RunFinished"
    ? `finished: ${event.status}`
    : event._tag
