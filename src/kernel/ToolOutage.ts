import { Either } from "effect"
import { isExecuted, liveSteps, type Plan } from "../domain/Plan.js"
import { termsOf } from "../memory/Relevance.js"
import { toolCallInput } from "../record/Attempt.js"
import { callKey } from "../record/Calls.js"
import type { RunRecord } from "../record/RunRecord.js"
import type { ToolError } from "../tools/ToolRegistry.js"
import type { ToolInfo } from "../validation/ToolInfo.js"

/**
 * A tool failure that retrying the same plan cannot fix: the tool's MCP server is gone or dropped the call, or the
 * tool ran out its timeout (another try waits the whole timeout again, and a hung server stays hung). A run meeting
 * one stops asking its model — no further simple iteration, no escalation, no refinement — unless another tool could
 * do the failed tool's work, and answers saying what failed. A refusal (the tool's own error) is not one: the same
 * refusal twice is (SimpleMode's `tool_refused`).
 */

/** A tool's failure as a step's error says it; the words `lastingFailure` reads. */
export const describeToolError = (e: ToolError) =>
  e._tag === "UnknownToolError" ?
    `unknown tool ${e.tool} (available: ${e.available.join(", ")})`
    : e._tag === "ToolTimeoutError" ?
    `tool ${e.tool} timed out after ${e.timeoutMs} ms`
    : e._tag === "McpServerUnavailableError" ?
    `McpServerUnavailable: ${e.tool}: ${e.message}`
    : `${e.tool}: ${e.message}`

const LASTING = /^(?:McpServerUnavailable: |tool \S+ timed out after \d+ ms$)/

/** Whether a step's error is a tool failure that retrying the same plan cannot fix. */
export const isLastingToolError = (error: string) => LASTING.test(error)

/** Words a tool's description shares with almost any step: they do not say that it does the same work. */
const GENERIC = new Set(termsOf("get return result value data tool input output text name list call run make new one"))

/** The server a tool belongs to ("weather" of "weather.forecast"); a built-in tool has none. */
const serverOf = (tool: string) => (tool.includes(".") ? tool.slice(0, tool.indexOf(".")) : undefined)

/**
 * Another tool that could do the failed tool's work: one of another server (a gone server's other tools are gone
 * too) whose name and description share a content word with the failed step and its tool.
 */
export const alternativeTo = (
  failed: { readonly tool: string; readonly description: string },
  tools: ReadonlyArray<ToolInfo>
): ToolInfo | undefined => {
  const described = tools.find((t) => t.name === failed.tool)?.description ?? ""
  const wanted = new Set(
    termsOf(`${failed.tool.replace(/[._-]/g, " ")} ${described} ${failed.description}`).filter((t) => !GENERIC.has(t))
  )
  const server = serverOf(failed.tool)
  return tools.find((t) =>
    t.name !== failed.tool && (server === undefined || serverOf(t.name) !== server) &&
    termsOf(`${t.name.replace(/[._-]/g, " ")} ${t.description}`).some((term) => wanted.has(term))
  )
}

export interface ToolOutage {
  readonly stepId: string
  readonly tool: string
  /** What failed, in words: the step's error and why the run stops there. */
  readonly message: string
}

/** A step of the plan that failed so, with no other tool to do its work; undefined when there is none. */
export const toolOutageIn = (plan: Plan, tools: ReadonlyArray<ToolInfo>): ToolOutage | undefined => {
  for (const s of liveSteps(plan.steps)) {
    if (s.status !== "failed" || s.tool === undefined || s.error === undefined || !isLastingToolError(s.error)) continue
    if (alternativeTo({ tool: s.tool, description: s.description }, tools)) continue
    return {
      stepId: s.stepId,
      tool: s.tool,
      message: `step ${s.stepId} could not be done: ${s.error}. Retrying the same plan cannot fix this, and no ` +
        `other tool does ${s.tool}'s work`
    }
  }
  return undefined
}

/**
 * A plan about to run that repeats a call which failed so in an earlier pass (the same tool, the same input): it would
 * wait out the same timeout, or meet the same gone server, again. The run ends before it runs — whatever other tool
 * exists, a plan that does not change the failing call does not use it. Undefined when the plan changed that call.
 */
export const repeatedOutage = (plan: Plan, record: RunRecord, passNumber: number): ToolOutage | undefined => {
  for (const s of liveSteps(plan.steps)) {
    if (s.tool === undefined || isExecuted(s)) continue
    const input = toolCallInput(record.attempt, s)
    if (Either.isLeft(input)) continue
    const failed = record.callsFailed.get(callKey(s.tool, input.right))
    if (failed?.error === undefined || failed.passNumber >= passNumber || !isLastingToolError(failed.error)) continue
    return {
      stepId: s.stepId,
      tool: s.tool,
      message: `step ${s.stepId} would call ${s.tool} again with the input that failed in pass ${failed.passNumber} ` +
        `(${failed.error}). Retrying the same call cannot fix this; the plan did not change it`
    }
  }
  return undefined
}

/** The error of a step of the plan whose tool failed so that retrying cannot fix it (another tool may do its work). */
export const lastingFailureIn = (plan: Plan): string | undefined => {
  const failed = liveSteps(plan.steps).find((s) =>
    s.status === "failed" && s.tool !== undefined && s.error !== undefined && isLastingToolError(s.error)
  )
  return failed ? `step ${failed.stepId} could not be done: ${failed.error}` : undefined
}
