import logUpdate from "log-update"
import type { RunEvent } from "../domain/RunEvent.js"
import { pc } from "./Colors.js"

/** Live progress of a run on a terminal, redrawn in place by log-update. */
export const makeProgress = (model: string) => {
  const steps = new Map<string, { description: string; status: string; tool?: string | undefined }>()
  const lines: Array<string> = []
  let header = ""
  let phase = ""
  let validation = ""
  let convergence = ""
  let simple = ""
  const icon = (s: string) =>
    s === "complete"
      ? pc.green("✓")
      : s === "running"
      ? pc.cyan("…")
      : s === "failed"
      ? pc.red("✗")
      : s === "invalid"
      ? pc.yellow("!")
      : s === "abandoned"
      ? pc.yellow("⊘")
      : pc.dim("·")
  const render = () =>
    logUpdate(
      [
        header,
        simple,
        phase,
        ...[...steps].map(([id, s]) =>
          `  ${icon(s.status)} ${id} ${s.description}${s.tool ? pc.dim(` (${s.tool})`) : ""}`
        ),
        validation,
        convergence,
        ...lines.slice(-3)
      ].filter(Boolean).join("\n")
    )
  const onEvent = (e: RunEvent) => {
    switch (e._tag) {
      case "RunStarted":
        header = `${pc.bold("aeon")} · ${e.mode} · ${model} · run ${e.runId}`
        break
      case "PassStarted":
        phase = `pass ${e.passNumber} · TTL ${e.ttlRemaining}`
        if (e.plan) {
          for (const s of e.plan.steps) {
            steps.set(s.stepId, { description: s.description, status: s.status, tool: s.tool })
          }
        }
        break
      case "PhaseEntered":
        phase = `pass ${e.passNumber} · ${e.phase}`
        break
      case "PlanCreated":
        steps.clear()
        for (const s of e.plan.steps) {
          steps.set(s.stepId, { description: s.description, status: s.status, tool: s.tool })
        }
        break
      case "RefinementApplied":
        for (const s of e.plan.steps) {
          steps.set(s.stepId, { description: s.description, status: s.status, tool: s.tool })
        }
        lines.push(
          `refined: ${
            e.actions.map((a) => `${a.actionType} ${a.targetStepId ?? a.newStep?.stepId ?? ""}`).join(", ") ||
            "no change"
          }`
        )
        break
      case "StepStarted": {
        const s = steps.get(e.stepId)
        if (s) s.status = "running"
        break
      }
      case "StepFinished": {
        const s = steps.get(e.stepId)
        if (s) s.status = e.status
        break
      }
      case "StepAbandoned": {
        const s = steps.get(e.stepId)
        if (s) s.status = "abandoned"
        break
      }
      case "ToolInvoked":
        lines.push(pc.dim(`tool ${e.tool} ${e.error ? pc.red(e.error) : "ok"} (${Math.round(e.durationMs)} ms)`))
        break
      case "ValidationReported":
        validation = `validation: ${e.report.issues.length} issue(s), ${e.report.overallSeverity}`
        break
      case "ConvergenceAssessed":
        convergence = `convergence: completeness ${e.assessment.scores.completenessScore.toFixed(2)} · coherence ${
          e.assessment.scores.coherenceScore.toFixed(2)
        } · ${e.assessment.converged ? pc.green("converged") : pc.yellow(e.assessment.reasonCodes.join(", "))}`
        break
      case "SimpleIterationFinished":
        simple = `simple mode: iteration ${e.record.iteration} ${e.record.testStatus}`
        break
      case "Escalated":
        simple = pc.magenta(`escalated to full mode: ${e.escalation.reason}`)
        break
      default:
        return
    }
    render()
  }
  return { onEvent, done: () => logUpdate.done() }
}
