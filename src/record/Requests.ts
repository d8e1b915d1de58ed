/** What a run asked a person and what it was told: the projections of its record's requests. */
import { Either, ParseResult, Schema } from "effect"
import { type Budget, BudgetCaps } from "../domain/Budget.js"
import type { Forecast } from "../domain/Forecast.js"
import type { RunEvent } from "../domain/RunEvent.js"

type Event<T extends RunEvent["_tag"]> = Extract<RunEvent, { _tag: T }>
/** The part of a run's record these read. */
interface Asked {
  readonly requests: ReadonlyMap<string, PersonRequest>
}

export type AskedEvent = Event<
  "ApprovalRequested" | "GuidanceRequested" | "PlanApprovalRequested" | "BudgetExtensionRequested"
>
export type AnsweredEvent = Event<"ApprovalAnswered" | "GuidanceProvided">

/** The events by which a run asks a person: one list, for every place that needs to know them. */
export const ASKED_TAGS: ReadonlyArray<RunEvent["_tag"]> = [
  "ApprovalRequested",
  "GuidanceRequested",
  "PlanApprovalRequested",
  "BudgetExtensionRequested"
] satisfies ReadonlyArray<AskedEvent["_tag"]>

/** Whether the event asks a person something. */
export const asks = (e: RunEvent): e is AskedEvent => ASKED_TAGS.includes(e._tag)

/** Whether the event asks a person something or is a person's answer (what changes whether a run waits). */
export const asksOrAnswers = (e: RunEvent) => asks(e) || e._tag === "ApprovalAnswered" || e._tag === "GuidanceProvided"
export interface PersonRequest {
  readonly request: AskedEvent
  answer?: AnsweredEvent | undefined
  /** A plan approval answered EDIT: its edits were applied to the plan (a RefinementApplied naming the request). */
  applied?: boolean | undefined
}

const pendingOf = <T extends AskedEvent["_tag"]>(r: Asked, tag: T): Array<Event<T>> =>
  [...r.requests.values()].flatMap((q) => (!q.answer && q.request._tag === tag ? [q.request as Event<T>] : []))

/** Approval requests not answered yet. */
export const pendingApprovals = (r: Asked) => pendingOf(r, "ApprovalRequested")

/** Guidance requests not answered yet. */
export const pendingGuidance = (r: Asked) => pendingOf(r, "GuidanceRequested")

/** Plan approval requests not answered yet (one at most). */
export const pendingPlanApprovals = (r: Asked) => pendingOf(r, "PlanApprovalRequested")

/** Budget extension requests not answered yet. */
export const pendingBudgetExtensions = (r: Asked) => pendingOf(r, "BudgetExtensionRequested")

/** Every request of the run open now, plans first (a plan waits before anything else can ask). */
export const openRequests = (r: Asked): Array<AskedEvent> => [
  ...pendingPlanApprovals(r),
  ...pendingBudgetExtensions(r),
  ...pendingApprovals(r),
  ...pendingGuidance(r)
]

/** The caps an answered budget extension gave: its answer's own caps, or the request's proposal (none if refused). */
export const capsGiven = (q: PersonRequest): BudgetCaps | undefined => {
  if (q.request._tag !== "BudgetExtensionRequested" || q.answer?._tag !== "ApprovalAnswered") return undefined
  if (q.answer.decision === "REJECT") return undefined
  return (q.answer.input as BudgetCaps | undefined) ?? q.request.proposed
}

/** What a budget extension request says the run spent, in words: "has used 4 of its 4 llmCalls". */
export const spentText = (r: Pick<Event<"BudgetExtensionRequested">, "dimension" | "used" | "limit">) =>
  r.dimension === "ttl"
    ? `has made the ${r.used} pass${r.used === 1 ? "" : "es"} its TTL allowed without converging`
    : `has used ${r.used} of its ${r.limit} ${r.dimension}`

/** The request for more passes at the end of pass `passNumber` (one per pass: a restart finds it, answered or not). */
export const passesRequestId = (passNumber: number) => `budget-ttl-pass-${passNumber}`

/** The passes a request gave beyond those the run had made: none if it is not for passes, unanswered or refused. */
const passesOf = (q: PersonRequest): number => {
  if (q.request._tag !== "BudgetExtensionRequested" || q.request.dimension !== "ttl") return 0
  return Math.max(0, (capsGiven(q)?.ttl ?? q.request.limit) - q.request.limit)
}

/** The passes a person gave at the end of pass `passNumber` (beyond those its TTL allowed): none if not asked or refused. */
export const passesGranted = (r: Asked, passNumber: number): number => {
  const q = r.requests.get(passesRequestId(passNumber))
  return q ? passesOf(q) : 0
}

/** The passes people gave the run in all. */
export const passesGiven = (r: Asked): number => [...r.requests.values()].reduce((n, q) => n + passesOf(q), 0)

/** The run's budget now: its own, with every cap a person raised since (budget extensions: the highest given). */
export const budgetNow = (r: Asked, budget: Budget): Budget => {
  let b = budget
  for (const q of r.requests.values()) {
    const caps = capsGiven(q)
    if (!caps) continue
    b = {
      ...b,
      ttl: Math.max(b.ttl, caps.ttl ?? 0),
      maxCostUsd: Math.max(b.maxCostUsd, caps.maxCostUsd ?? 0),
      maxTokens: Math.max(b.maxTokens, caps.maxTokens ?? 0),
      maxLlmCalls: Math.max(b.maxLlmCalls, caps.maxLlmCalls ?? 0),
      maxSteps: Math.max(b.maxSteps, caps.maxSteps ?? 0)
    }
  }
  return b
}

/** Whether the unfinished run waits for a person: while it does, it is AWAITING_INPUT. */
export const awaitingInput = (r: Asked) => [...r.requests.values()].some((q) => !q.answer)

/** The guidance given so far, as the prompts get it. */
export const guidanceGiven = (r: Asked): Array<string> =>
  [...r.requests.values()].flatMap(({ answer, request }) =>
    answer?._tag === "GuidanceProvided" && request._tag === "GuidanceRequested" && answer.text.trim() !== ""
      ? [`on ${request.stepId}: ${answer.text}`]
      : []
  )

/** How long the run has waited for answers by `now` (the time between each request and its answer, or now). */
export const waitedMs = (r: Asked, now: number) => {
  let total = 0
  for (const q of r.requests.values()) total += Math.max(0, (q.answer?.at ?? now) - q.request.at)
  return total
}

/**
 * Why the caps a person gave a budget extension are refused, if they are: not caps (maxCostUsd, maxTokens,
 * maxLlmCalls, maxSteps), or the refused cap not raised above what it was. None given: the request's proposal.
 */
export const capsRefusal = (request: Event<"BudgetExtensionRequested">, input: unknown): string | undefined => {
  if (input === undefined) return undefined
  const decoded = decodeCaps(input)
  if (Either.isLeft(decoded)) {
    return `the caps are not a budget: ${
      ParseResult.ArrayFormatter.formatErrorSync(decoded.left).map((i) =>
        `${i.path.length > 0 ? `${i.path.join(".")}: ` : ""}${i.message}`
      ).join("; ")
    }`
  }
  const key = CAP_OF[request.dimension]
  const given = decoded.right[key]
  if (given === undefined) return `the run waits for more ${request.dimension}: give ${key}`
  if (given <= request.limit) return `${key} must be above ${request.limit} (the cap that stopped the run)`
  return undefined
}

/** The budget field of each dimension a person can raise. */
export const CAP_OF = {
  ttl: "ttl",
  llmCalls: "maxLlmCalls",
  tokens: "maxTokens",
  cost: "maxCostUsd",
  steps: "maxSteps"
} as const satisfies Record<Event<"BudgetExtensionRequested">["dimension"], keyof BudgetCaps>

const decodeCaps = Schema.decodeUnknownEither(
  BudgetCaps.pipe(Schema.filter((c) => Object.keys(c).length > 0 || "give at least one cap")),
  { onExcessProperty: "error" }
)

/** Each cap in words, as a confirmation says it. */
const CAP_WORDS: Record<keyof BudgetCaps, (n: number) => string> = {
  ttl: (n) => `the passes to ${n}`,
  maxLlmCalls: (n) => `the call budget to ${n}`,
  maxTokens: (n) => `the token budget to ${n}`,
  maxCostUsd: (n) => `the cost budget to $${n}`,
  maxSteps: (n) => `the step budget to ${n}`
}

/** What an answer to `request` did, in words ("raised the call budget to 50"), for the CLI and Aeon as an MCP server. */
export const answerText = (
  request: AskedEvent | undefined,
  answer: { readonly decision: "APPROVE" | "EDIT" | "REJECT"; readonly input?: unknown; readonly reason?: string }
): string => {
  const what = request === undefined
    ? "the request"
    : request._tag === "PlanApprovalRequested"
    ? "the plan"
    : request._tag === "ApprovalRequested"
    ? `the call of ${request.tool} (step ${request.stepId})`
    : request._tag === "BudgetExtensionRequested"
    ? `more ${request.dimension === "ttl" ? "passes" : request.dimension}`
    : "the request"
  if (answer.decision === "REJECT") return `refused ${what}${answer.reason ? ` (${answer.reason})` : ""}`
  if (request?._tag === "BudgetExtensionRequested") {
    const caps = { ...(answer.input === undefined ? request.proposed : answer.input as BudgetCaps) }
    const raised = (Object.keys(CAP_WORDS) as Array<keyof BudgetCaps>).flatMap((k) =>
      typeof caps[k] === "number" ? [CAP_WORDS[k](caps[k])] : []
    )
    return raised.length > 0 ? `raised ${raised.join(", ")}` : `gave ${what}`
  }
  if (answer.decision === "EDIT") {
    return request?._tag === "PlanApprovalRequested"
      ? "approved the plan with your edits"
      : `approved ${what} with your input`
  }
  return `approved ${what}`
}

const expected = (f: Forecast) =>
  `${Math.round(f.expected.llmCalls)} model calls, $${f.expected.costUsd.toFixed(4)} expected (at most $${
    f.worstCase.costUsd.toFixed(4)
  })`

/** What the run asks, in the words the client's user reads. */
export const requestMessage = (r: AskedEvent): string => {
  switch (r._tag) {
    case "ApprovalRequested":
      return `Aeon run ${r.runId} asks to call ${r.tool} with ${
        JSON.stringify(r.input)
      } (step ${r.stepId}: ${r.description}).${r.reason ? ` Held: ${r.reason}.` : ""}`
    case "PlanApprovalRequested":
      return [
        `Aeon run ${r.runId} waits for approval of its plan: ${r.plan.goal}`,
        ...r.plan.steps.map((s) => `${s.stepId}. ${s.description}${s.tool ? ` [${s.tool}]` : ""}`),
        `Forecast: ${expected(r.forecast)}.`
      ].join("\n")
    case "BudgetExtensionRequested":
      return `Aeon run ${r.runId} ${spentText(r)} and asks for more: ${r.needs}. ` +
        `Approving gives it ${JSON.stringify(r.proposed)}${r.forecast ? `; the rest: ${expected(r.forecast)}` : ""}.`
    case "GuidanceRequested":
      return `Aeon run ${r.runId} asks for guidance on step ${r.stepId}: ${r.reason}`
  }
}
