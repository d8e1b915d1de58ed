import { Effect } from "effect"
import { ApprovalInputError } from "../domain/Errors.js"
import { RunManager } from "./RunManager.js"

/**
 * A person's answer to a run's request as every protocol gives it: an `action` (approve, reject, edit, extend, guide)
 * with its `input` (edit: the edits or the call's input; extend: the caps), `reason` or `text` (guide).
 */
export interface RequestAnswer {
  readonly action?: unknown
  readonly input?: unknown
  readonly reason?: unknown
  readonly text?: unknown
}

/** respond's arguments as an answer through the run manager, or what is wrong with them. */
export const responseOf = (
  args: RequestAnswer,
  by: string
): string | ((m: RunManager["Type"], runId: string, requestId: string) => ReturnType<RunManager["Type"]["guide"]>) => {
  switch (args.action) {
    case "guide":
      return typeof args.text === "string" && args.text.trim() !== ""
        ? (m, runId, requestId) => m.guide(runId, requestId, String(args.text), by)
        : "guide needs text: the guidance"
    case "approve":
    case "reject":
    case "edit":
    case "extend": {
      if ((args.action === "edit" || args.action === "extend") && args.input === undefined) {
        return `${args.action} needs input (${args.action === "edit" ? "the edits or the call's input" : "the caps"})`
      }
      const decision = args.action === "reject" ? "REJECT" : args.action === "edit" ? "EDIT" : "APPROVE"
      return (m, runId, requestId) =>
        m.respond(runId, requestId, {
          decision,
          ...(args.input !== undefined && decision !== "REJECT" ? { input: args.input } : {}),
          ...(typeof args.reason === "string" ? { reason: args.reason } : {}),
          by
        })
    }
    default:
      return "action must be one of approve, reject, edit, extend, guide"
  }
}

/** Answers a run's request through the run manager; an answer that is not one is an ApprovalInputError. */
export const answerRequest = (runId: string, requestId: string, answer: RequestAnswer, by: string) =>
  Effect.gen(function*() {
    const respond = responseOf(answer, by)
    if (typeof respond === "string") return yield* new ApprovalInputError({ message: respond })
    return yield* respond(yield* RunManager, runId, requestId)
  })
