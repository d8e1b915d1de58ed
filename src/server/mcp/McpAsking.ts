import type { Server } from "@modelcontextprotocol/sdk/server/index.js"
import type { ElicitRequestFormParams, ElicitResult } from "@modelcontextprotocol/sdk/types.js"
import { Effect, Exit } from "effect"
import { type AskedEvent, requestMessage } from "../../record/Requests.js"
import { RunManager } from "../../runs/RunManager.js"

/**
 * A run started by `run_task` that asks a person something (a tool call's approval, its plan's, more budget, guidance)
 * asks the MCP client's user, when the client can show a form (MCP elicitation): their answer goes to the run as a
 * GraphQL or CLI answer would, and `run_task` follows the run on. A client without elicitation, or a user who dismisses
 * the form, gets the run back waiting (AWAITING_INPUT; `get_run` shows the request; GraphQL or `aeon approve` answer it).
 */

const DAY_MS = 24 * 3_600_000

type Runner = <A, E>(effect: Effect.Effect<A, E, RunManager>) => Promise<Exit.Exit<A, E>>

const decisionForm: ElicitRequestFormParams["requestedSchema"] = {
  type: "object",
  properties: {
    decision: {
      type: "string",
      title: "Decision",
      oneOf: [{ const: "APPROVE", title: "Approve" }, { const: "REJECT", title: "Refuse" }]
    },
    reason: { type: "string", title: "Why (for a refusal)" }
  },
  required: ["decision"]
}
const guidanceForm: ElicitRequestFormParams["requestedSchema"] = {
  type: "object",
  properties: { guidance: { type: "string", title: "What the run should do", minLength: 1 } },
  required: ["guidance"]
}

/** The answer the user's reply gives the request: none when they dismissed the form (the request stays open). */
const answerOf = (r: AskedEvent, reply: ElicitResult, by: string) => {
  if (reply.action === "cancel") return undefined
  const content = reply.content ?? {}
  if (r._tag === "GuidanceRequested") {
    const text = typeof content.guidance === "string" ? content.guidance : ""
    return reply.action === "accept" && text.trim() !== ""
      ? Effect.flatMap(RunManager, (m) => m.guide(r.runId, r.requestId, text, by))
      : undefined
  }
  const approved = reply.action === "accept" && content.decision === "APPROVE"
  const reason = typeof content.reason === "string" && content.reason.trim() !== ""
    ? content.reason
    : approved
    ? undefined
    : "refused in the MCP client"
  return Effect.flatMap(RunManager, (m) =>
    m.respond(r.runId, r.requestId, {
      decision: approved ? "APPROVE" : "REJECT",
      ...(reason !== undefined ? { reason } : {}),
      by
    }))
}

/**
 * Asks the client's user what the run asks, when the client can show a form and the request is still open; true
 * when the run got an answer (or another person answered first) and goes on, false when it still waits.
 */
export const askClient = (server: Server, run: Runner) => async (r: AskedEvent, signal: AbortSignal) => {
  const stillOpen = async () => {
    const now = await run(Effect.flatMap(RunManager, (m) => m.getOrFail(r.runId)))
    return Exit.isSuccess(now) && now.value.record.requests.get(r.requestId)?.answer === undefined
  }
  // answered already (by respond, or another person): the run goes on; a client without forms cannot be asked
  if (!(await stillOpen())) return true
  if (!server.getClientCapabilities()?.elicitation?.form) return false
  // the form stays up as long as the request does (its expiresAt, from the run's approvalTimeoutMs), else a day
  const timeout = r.expiresAt !== undefined ? Math.max(1, r.expiresAt - Date.now()) : DAY_MS
  const reply = await server.elicitInput({
    mode: "form",
    message: requestMessage(r),
    requestedSchema: r._tag === "GuidanceRequested" ? guidanceForm : decisionForm
  }, { signal, timeout }).catch(() => undefined)
  const answer = reply && answerOf(r, reply, `mcp:${server.getClientVersion()?.name ?? "client"}`)
  if (answer) await run(answer)
  // answered by this reply, by another person first, or by its time running out: the run goes on
  return !(await stillOpen())
}
