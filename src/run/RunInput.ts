import { Effect, Either, Schema } from "effect"
import { agentToolName, ResolvedAgent } from "../agents/Agent.js"
import { calledAgents } from "../agents/AgentChecks.js"
import { compileSchema } from "../convergence/AnswerPredicates.js"
import { ConvergenceCriteria } from "../convergence/Criteria.js"
import { prepareOutputSchema } from "../convergence/OutputSchema.js"
import { AttachmentInput, MAX_ATTACHMENTS } from "../domain/Attachment.js"
import { Budget } from "../domain/Budget.js"
import { ConversationMessage, ThreadId } from "../domain/Conversation.js"
import { InvalidOutputSchemaError, InvalidRunInputError } from "../domain/Errors.js"
import { RunMode } from "../domain/SimpleIteration.js"
import { WebhookSpec } from "../domain/Webhook.js"
import { GuardrailsSpec } from "../guardrails/GuardrailSpec.js"
import { formatIssues } from "../support/ParseIssues.js"
import { OnBusy } from "./ThreadTurns.js"

export const MAX_TASK_LENGTH = 20_000
/** A client-sent history's most messages. */
export const MAX_HISTORY = 1_000
/** A run tag's longest. */
export const MAX_TAG_LENGTH = 100

// the defaults, decoded once (immutable values shared by every run that gives none)
const DEFAULT_BUDGET = Schema.decodeSync(Budget)({})
const DEFAULT_CRITERIA = Schema.decodeSync(ConvergenceCriteria)({})
/**
 * Independent ready steps run this many at a time: a fan-out's tool calls and reasoning calls at once, as a ReAct
 * model makes parallel tool calls (bench row 41, fan-out wall time); their model calls are admitted beside each other.
 */
export const DEFAULT_PARALLELISM = 4

/** What a caller gives to start a run (library, GraphQL and CLI share it). */
export const RunTaskInput = Schema.Struct({
  task: Schema.String.pipe(
    Schema.filter((s) => s.trim().length > 0 || "task must not be empty", { jsonSchema: { minLength: 1 } }),
    Schema.filter((s) => s.length <= MAX_TASK_LENGTH || `task must be at most ${MAX_TASK_LENGTH} characters`, {
      jsonSchema: { maxLength: MAX_TASK_LENGTH }
    })
  ).annotations({ description: "what to do" }),
  mode: Schema.optionalWith(
    RunMode.annotations({
      description:
        "AUTO (default): cheap single passes first, escalating when they fail; SIMPLE: single passes only; " +
        "FULL: plan, execute, validate and refine in passes"
    }),
    { default: () => "AUTO" as const }
  ),
  simpleIterations: Schema.optionalWith(
    Schema.Int.pipe(
      Schema.filter((n) => (n >= 1 && n <= 50) || `simpleIterations must be between 1 and 50 (was ${n})`, {
        jsonSchema: { minimum: 1, maximum: 50 }
      })
    ).annotations({ description: "single passes (SIMPLE mode, or AUTO before it escalates)" }),
    { default: () => 5 }
  ),
  escalate: Schema.optionalWith(
    Schema.Boolean.annotations({ description: "AUTO: go on in FULL mode when the single passes did not converge" }),
    { default: () => true }
  ),
  userId: Schema.optional(
    Schema.String.annotations({ description: "the user the run belongs to (one running run per user)" })
  ),
  budget: Schema.optionalWith(Budget.annotations({ description: "caps of the run" }), {
    default: () => DEFAULT_BUDGET
  }),
  criteria: Schema.optionalWith(ConvergenceCriteria, { default: () => DEFAULT_CRITERIA }),
  tools: Schema.optional(
    Schema.Array(Schema.String).annotations({ description: "the tools the run may use (default: all)" })
  ),
  parallelism: Schema.optionalWith(
    Schema.Int.pipe(Schema.filter((n) => (n >= 1 && n <= 32) || `parallelism must be between 1 and 32 (was ${n})`, {
      jsonSchema: { minimum: 1, maximum: 32 }
    }))
      .annotations({
        description:
          `independent ready steps run this many at a time (default ${DEFAULT_PARALLELISM}; 1: one after the other)`
      }),
    { default: () => DEFAULT_PARALLELISM }
  ),
  runId: Schema.optional(
    Schema.String.pipe(
      Schema.filter((s) => /^[A-Za-z0-9_-]{1,64}$/.test(s) || "runId must be 1-64 letters, digits, - or _")
    )
  ),
  /** More tools whose calls wait for a person's approval in this run (`*`: every tool with side effects). */
  approvalTools: Schema.optional(
    Schema.Array(Schema.String).annotations({
      description: "tools whose calls wait for your approval (\"*\": every tool with side effects)"
    })
  ),
  /** Where the run would need manual intervention, it asks for guidance and waits for it. */
  interactive: Schema.optionalWith(
    Schema.Boolean.annotations({
      description: "the run asks for guidance where it is stuck, and for more budget where a cap would stop it"
    }),
    { default: () => false }
  ),
  /** The deadline stands still while the run waits for a person's approval. */
  pauseDeadlineWhileWaiting: Schema.optionalWith(
    Schema.Boolean.annotations({ description: "the deadline stands still while the run waits for you" }),
    { default: () => false }
  ),
  /** An approval request not answered within this many milliseconds is rejected. */
  approvalTimeoutMs: Schema.optional(
    Schema.Int.pipe(Schema.filter((n) => n >= 1 || `approvalTimeoutMs must be a positive integer (was ${n})`, {
      jsonSchema: { minimum: 1 }
    }))
      .annotations({ description: "reject a call nobody approved in this time (milliseconds)" })
  ),
  /** Plan and forecast only: the run stops before executing anything (only the planning calls are paid). */
  dryRun: Schema.optionalWith(
    Schema.Boolean.annotations({
      description: "plan and forecast only: the plan and what it would cost, nothing executed"
    }),
    { default: () => false }
  ),
  /** The validated plan waits, with its forecast, for a person's approval before it executes. */
  approvePlan: Schema.optionalWith(
    Schema.Boolean.annotations({
      description: "the validated plan and its cost forecast wait for your approval before anything executes"
    }),
    { default: () => false }
  ),
  /** Memory across runs: recall the user's earlier runs before planning, and remember this one if it converges. */
  memory: Schema.optionalWith(
    Schema.Boolean.annotations({
      description: "recall what your earlier runs established, and remember this run's answer if it converges"
    }),
    { default: () => true }
  ),
  /** A task an earlier converged run answered starts from that run's final plan (no profile or plan call). */
  reusePlans: Schema.optionalWith(
    Schema.Boolean.annotations({
      description: "start from the plan of an earlier converged run of the same (or a similar) task"
    }),
    { default: () => true }
  ),
  /** The JSON Schema the answer's value must meet: the result's finalAnswer.data is that value (convergence/OutputSchema). */
  outputSchema: Schema.optional(
    Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
      description: "a JSON Schema the answer must meet: the result's finalAnswer.data is a value of it"
    })
  ),
  /** Strict structured output: true asks it (a schema that cannot have it is refused), false never; default when it can. */
  outputStrict: Schema.optional(
    Schema.Boolean.annotations({
      description: "strict structured output for outputSchema (default: whenever the schema can have it)"
    })
  ),
  /**
   * The operator's instructions for this run (trusted, like the task): added to the system prompt of its plan and
   * answer calls — a house style, a language, a rule the answer keeps. A client's system message, a Responses API
   * request's `instructions`.
   */
  instructions: Schema.optional(
    Schema.String.pipe(
      Schema.filter((s) => s.length <= 8000 || `instructions must be at most 8000 characters (was ${s.length})`)
    ).annotations({
      description: "the operator's instructions: added to the system prompt of the run's plan and answer calls"
    })
  ),
  /** TRUSTED: this run takes its tools' outputs as trusted — no call it makes is held for them (docs/untrusted-data.md). */
  toolOutputs: Schema.optional(
    Schema.Literal("TRUSTED", "UNTRUSTED").annotations({
      description: "UNTRUSTED (default, or AEON_TOOL_OUTPUTS): a call with side effects that a tool's output steered " +
        "waits for your approval; TRUSTED: the run takes its tools' outputs as trusted"
    })
  ),
  /** More guardrails for this run (the server's and an agent's stay: a run adds checks, never removes one). */
  guardrails: Schema.optional(
    GuardrailsSpec.annotations({
      description: "more guardrails for this run, per point (input, tool_call, tool_result, output): " +
        "{ type: pii|secrets|denylist|maxLength, action: redact|block, … } — added to the server's"
    })
  ),
  /** The conversation the run is a turn of: it sees the thread's earlier turns (a new id starts a thread). */
  /** A message while the thread's turn runs: ENQUEUE (the default: after it), INTERRUPT it, or REJECT (ThreadBusyError). */
  onBusy: Schema.optional(OnBusy),
  threadId: Schema.optional(
    ThreadId.annotations({
      description:
        "the thread (conversation) this run is the next turn of: it sees the earlier turns; a new id starts one"
    })
  ),
  /** The conversation before the task as a client holds it (quoted as data, compacted past the context bound). */
  history: Schema.optional(
    Schema.Array(
      ConversationMessage.pipe(
        Schema.filter((m) =>
          m.text.length <= MAX_TASK_LENGTH || `a history message is at most ${MAX_TASK_LENGTH} characters`
        )
      )
    ).pipe(
      Schema.filter((ms) =>
        ms.length <= MAX_HISTORY || `history holds at most ${MAX_HISTORY} messages (was ${ms.length})`
      )
    ).annotations({
      description:
        "the conversation before the task, oldest first, as your client holds it (wins over the thread's turns)"
    })
  ),
  /** A thinking budget for each model call (Claude's extended thinking, Gemini's thinkingBudget). */
  thinkingTokens: Schema.optional(
    Schema.Int.pipe(
      Schema.filter((n) => (n >= 1024 && n <= 64_000) || `thinkingTokens must be 1024 to 64000 (was ${n})`)
    )
      .annotations({
        description: "a thinking budget for each model call (Claude, Gemini): reserved in the call's output cap, " +
          "so the budget admits it; the thinking is recorded with the call, never in the answer"
      })
  ),
  /** Files and images the task carries: the plan and the answer calls see them (stored once, by their hash). */
  attachments: Schema.optional(
    Schema.Array(AttachmentInput).pipe(
      Schema.filter((as) => as.length <= MAX_ATTACHMENTS || `at most ${MAX_ATTACHMENTS} attachments (was ${as.length})`)
    ).annotations({ description: "files and images for the task: { mediaType, data (base64) or url, name? }" })
  ),
  /**
   * The agent the run is a run of: `math` (its latest version) or `math@2` — a named configuration whose
   * definition gives what the request leaves out and bounds what it gives. A run holds the whole definition it ran.
   */
  /** Where the run's events are told (Standard Webhooks, signed), its host among the server's AEON_WEBHOOK_HOSTS. */
  webhook: Schema.optional(WebhookSpec),
  agent: Schema.optional(
    Schema.Union(Schema.String, ResolvedAgent).annotations({
      description: "the agent to run: its name (the latest version) or name@version"
    })
  ),
  /** Labels kept with the run (an eval's id and its case's: `eval:…`, `case:…`). */
  tags: Schema.optional(
    Schema.Array(
      Schema.String.pipe(
        Schema.filter((t) => (t.length >= 1 && t.length <= MAX_TAG_LENGTH) || `a tag is 1-${MAX_TAG_LENGTH} characters`)
      )
    ).pipe(Schema.filter((ts) => ts.length <= 10 || `at most 10 tags (was ${ts.length})`))
  )
})
export type RunTaskInput = typeof RunTaskInput.Type
export type RunTaskInputEncoded = typeof RunTaskInput.Encoded

export { formatIssues }

/** The agent a registered run is a run of (its whole definition), if any: a name is resolved at registration. */
export const resolvedAgentOf = (input: { readonly agent?: string | ResolvedAgent | undefined }) =>
  typeof input.agent === "object" ? input.agent : undefined

/** Decodes and checks a run's input against the tools available; a clear error and nothing started. */
export const decodeRunInput = (input: unknown, availableTools: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const result = Schema.decodeUnknownEither(RunTaskInput)(input, { onExcessProperty: "error", errors: "all" })
    if (Either.isLeft(result)) return yield* new InvalidRunInputError({ message: formatIssues(result.left) })
    const decoded = result.right
    // the agents the run's agent calls are tools of its own
    const agent = resolvedAgentOf(decoded)
    const known = [...availableTools, ...calledAgents(agent?.definition.tools).map(agentToolName)]
    const unknown = [...decoded.tools ?? [], ...(decoded.approvalTools ?? []).filter((t) => t !== "*")].filter((t) =>
      !known.includes(t)
    )
    if (unknown.length > 0) {
      return yield* new InvalidRunInputError({
        message: `unknown tool${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")} (available: ${known.join(", ")})`
      })
    }
    // a plan a person approves, or a dry run's, is one full-mode plan (simple mode plans again each iteration)
    if ((decoded.dryRun || decoded.approvePlan) && decoded.mode === "SIMPLE") {
      return yield* new InvalidRunInputError({
        message: `${decoded.dryRun ? "dryRun" : "approvePlan"} needs mode FULL or AUTO (AUTO runs FULL then)`
      })
    }
    if (decoded.criteria.answerSchema) {
      const compiled = compileSchema(decoded.criteria.answerSchema)
      if (!compiled.ok) {
        return yield* new InvalidRunInputError({
          message: `criteria.answerSchema is not a valid JSON Schema: ${compiled.message}`
        })
      }
    }
    if (decoded.outputSchema !== undefined || decoded.outputStrict !== undefined) {
      const checked = prepareOutputSchema(decoded.outputSchema, decoded.outputStrict)
      if (!checked.ok) {
        const { message, rule } = checked.refusal
        return yield* new InvalidOutputSchemaError({ rule, message: `${message} (rule ${rule})` })
      }
    }
    return decoded.dryRun || decoded.approvePlan ? { ...decoded, mode: "FULL" as const } : decoded
  })
