/**
 * Agents as tools: `agent:<name>` in an agent's tools offers the planner a tool `agent.<name>` (input `{ task }`),
 * whose call is a child run of that agent. The child's caps are reserved from what the parent has left beside its
 * other calls under way (held in the parent's guard while the child runs), so together they never cross the parent's
 * caps; the child's usage counts in the parent's (its ToolInvoked event's `childRun`). Its id is the parent's and
 * the step's: after a crash the parent's reopened step finds the child and resumes it, the two as one. Cancelling
 * the parent interrupts the call, which cancels the child. Nesting stops at five levels.
 */
import { Effect, Schema } from "effect"
import { agentToolName, type ResolvedAgent } from "../agents/Agent.js"
import { DEFAULT_BUDGET } from "../domain/Budget.js"
import { MAX_SUBPLAN_DEPTH } from "../domain/Plan.js"
import type * as BudgetGuard from "../kernel/BudgetGuard.js"
import { PromptId } from "../prompts/PromptId.js"
import type { RunResult } from "../record/RunResult.js"
import { messageOf } from "../support/Thrown.js"
import { type Tool, tool, ToolFailedError } from "../tools/ToolRegistry.js"

/** The most levels of runs calling agents: the design documents' five levels of nesting (a subplan's). */
export const MAX_AGENT_DEPTH = MAX_SUBPLAN_DEPTH

/** Starts (or, after a crash, resumes) a child run and runs it to its end. */
export type ChildRunner = (
  request: Record<string, unknown>,
  options: { readonly runId: string; readonly parentRunId: string; readonly depth: number }
) => Effect.Effect<RunResult, { readonly message: string }>

/** Where a run stands among runs calling agents. */
export interface Lineage {
  readonly parentRunId?: string | undefined
  readonly depth: number
}

/** A child's id: its parent's, the pass and the step that called it. */
export const childRunId = (parentRunId: string, passNumber: number, stepId: string) =>
  `${parentRunId}.p${passNumber}.${stepId}`

const failed = (name: string, message: string) =>
  new ToolFailedError({ tool: agentToolName(name), message: `AGENT_CALL_FAILED: ${message}` })

/** The child's caps: the agent's (else the defaults), each within what the parent has left. */
const childBudget = (agent: ResolvedAgent, left: BudgetGuard.Remaining) => {
  const own = agent.definition.budget ?? {}
  return {
    ...(own.ttl !== undefined ? { ttl: own.ttl } : {}),
    deadlineMs: Math.max(1, Math.min(own.deadlineMs ?? DEFAULT_BUDGET.deadlineMs, left.deadlineMs)),
    maxCostUsd: Math.min(own.maxCostUsd ?? DEFAULT_BUDGET.maxCostUsd, left.costUsd),
    maxTokens: Math.min(own.maxTokens ?? DEFAULT_BUDGET.maxTokens, left.tokens),
    // one call is left to the parent, to answer with what the child gave
    maxLlmCalls: Math.min(own.maxLlmCalls ?? DEFAULT_BUDGET.maxLlmCalls, left.llmCalls - 1),
    maxSteps: Math.min(own.maxSteps ?? DEFAULT_BUDGET.maxSteps, Math.max(0, left.steps - 1))
  }
}

/** What the child gave: its value when it has an output schema, else its answer's text. */
const outputOf = (result: RunResult) =>
  result.finalAnswer?.data !== undefined ? result.finalAnswer.data : result.finalAnswer?.answerText ?? ""

/** The tool through which a run calls `agent`. */
export const agentTool = (
  agent: ResolvedAgent,
  parent: {
    readonly runId: string
    readonly userId: string | undefined
    readonly depth: number
    readonly guard: BudgetGuard.BudgetGuard
    readonly children: ChildRunner
  }
): Tool =>
  tool({
    name: agentToolName(agent.name),
    description: agent.definition.description ?? `the agent ${agent.name}: give it a task, it answers`,
    input: Schema.Struct({ task: Schema.String.pipe(Schema.minLength(1)) }),
    output: Schema.Unknown,
    inputJsonSchema: {
      type: "object",
      properties: { task: { type: "string", description: "what the agent should do, in full" } },
      required: ["task"]
    },
    timeoutMs: 24 * 3_600_000,
    idempotent: true,
    interruptible: true,
    // the child may have read the outside world: what it answers is untrusted data for the parent's calls
    readsOutside: true,
    run: (input, context) =>
      Effect.gen(function*() {
        if (parent.depth >= MAX_AGENT_DEPTH) {
          return yield* failed(agent.name, `runs nest at most ${MAX_AGENT_DEPTH} levels deep`)
        }
        const step = context.step ?? { stepId: "call", passNumber: 0 }
        const hold = parent.guard.hold()
        const caps = childBudget(agent, yield* parent.guard.remainingBeside(hold))
        if (caps.maxLlmCalls < 1 || caps.maxCostUsd <= 0 || caps.maxTokens < 1 || caps.maxSteps < 1) {
          return yield* failed(agent.name, "the run has no budget left for the agent")
        }
        // held in the parent's guard while the child runs: the parent's other calls are admitted beside it
        yield* parent.guard.admitCall({
          promptId: PromptId.REASONING_STEP_USER,
          inputTokens: caps.maxTokens,
          maxOutputTokens: 0,
          maxCostUsd: caps.maxCostUsd
        }, hold).pipe(Effect.mapError((e) => failed(agent.name, e.message)))
        hold.requests = caps.maxLlmCalls
        const runId = childRunId(parent.runId, step.passNumber, step.stepId)
        const result = yield* parent.children({
          agent,
          task: input.task,
          budget: caps,
          ...(parent.userId !== undefined ? { userId: parent.userId } : {})
        }, { runId, parentRunId: parent.runId, depth: parent.depth + 1 }).pipe(
          Effect.mapError((e) => failed(agent.name, e.message)),
          // let go on a failure or an interruption; once recorded on success (below)
          Effect.onExit((
            exit
          ) => (exit._tag === "Success" ? Effect.void : Effect.sync(() => parent.guard.release(hold))))
        )
        // the child's usage counts in the parent's from its ToolInvoked event on, whether it answered or not; the
        // hold is let go only then, so no call is admitted in between as if the child had used nothing
        context.report?.({
          childRun: { runId, agent: agent.name, version: agent.version, status: result.status, usage: result.usage },
          onRecorded: () => parent.guard.release(hold)
        })
        if (result.finalAnswer === undefined) {
          return yield* failed(
            agent.name,
            `the agent's run ${runId} ended ${result.status}${result.error ? `: ${result.error}` : ""}`
          )
        }
        return outputOf(result)
      }).pipe(Effect.catchAllDefect((d) => Effect.fail(failed(agent.name, messageOf(d)))))
  })

/** The tool of an agent the run's user cannot run (none of that name): its call fails, saying so. */
export const missingAgentTool = (name: string): Tool =>
  tool({
    name: agentToolName(name),
    description: `the agent ${name} (not found)`,
    input: Schema.Struct({ task: Schema.String }),
    output: Schema.Unknown,
    timeoutMs: 1_000,
    idempotent: true,
    synchronous: true,
    run: () => Effect.fail(failed(name, `AGENT_NOT_FOUND: no agent ${name}`))
  })
