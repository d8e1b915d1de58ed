import logUpdate from "log-update"
import type { RunEvent } from "../domain/RunEvent.js"
import { ANSWER_PROMPTS } from "../prompts/PromptId.js"
import { attemptPlan } from "../record/Attempt.js"
import { applyEvent, emptyRecord, type RunRecord } from "../record/RunRecord.js"
import type { LlmOutputDelta } from "../run/Run.js"
import { pc } from "./Colors.js"
import { guardrailLine, reusedLine } from "./Render.js"

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

/** The frame: a projection of the run's record (the one fold of its events), plus the last few tool and refinement lines. */
const frame = (r: RunRecord, model: string, lines: ReadonlyArray<string>, writing = "") => {
  const pass = r.passes.at(-1)
  const a = r.attempt
  const steps = a
    ? attemptPlan(a).steps.map((s) => {
      const status = a.abandoned.has(s.stepId) ? "abandoned" : s.status
      return `  ${icon(status)} ${s.stepId} ${s.description}${s.tool ? pc.dim(` (${s.tool})`) : ""}`
    })
    : []
  const report = pass?.validationReport
  const assessment = pass?.convergence
  const lastIteration = r.simpleRecords.at(-1)
  return [
    r.started ? `${pc.bold("aeon")} · ${r.started.mode} · ${model} · run ${r.runId}` : "",
    r.escalation
      ? pc.magenta(`escalated to full mode: ${r.escalation.reason}`)
      : lastIteration
      ? `simple mode: iteration ${lastIteration.iteration} ${lastIteration.testStatus}`
      : "",
    pass ? `pass ${pass.passNumber} · ${pass.phases.at(-1) ?? `TTL ${pass.ttlRemaining}`}` : "",
    ...steps,
    report ? `validation: ${report.issues.length} issue(s), ${report.overallSeverity}` : "",
    assessment
      ? `convergence: completeness ${assessment.scores.completenessScore.toFixed(2)} · coherence ${
        assessment.scores.coherenceScore.toFixed(2)
      } · ${assessment.converged ? pc.green("converged") : pc.yellow(assessment.reasonCodes.join(", "))}`
      : "",
    ...lines.slice(-3),
    writing ? `\n${pc.bold("answer")} ${pc.dim("(being written)")}\n${writing}` : ""
  ].filter(Boolean).join("\n")
}

/**
 * Live progress of a run on a terminal, redrawn in place by log-update. It folds the stored events as they arrive
 * (the one reducer) rather than reading the run's live record: a frame per event shows each state the run went
 * through, where the live record, ahead of the stream, would skip them in a fast run.
 */
export const makeProgress = (model: string) => {
  const record = emptyRecord()
  const lines: Array<string> = []
  // while a question is on the screen, the frame is not redrawn over it
  let paused = false
  // the final answer as the model writes it, below the frame until the run ends (then printed in its place)
  let writing = ""
  const draw = () => {
    if (!paused) logUpdate(frame(record, model, lines, writing))
  }
  const onEvent = (e: RunEvent) => {
    applyEvent(record, e)
    if (e._tag === "ToolInvoked") {
      lines.push(
        pc.dim(
          e.reusedFrom
            ? reusedLine(e.stepId, e.tool, e.reusedFrom)
            : `tool ${e.tool} ${e.error ? pc.red(e.error) : "ok"} (${Math.round(e.durationMs)} ms)`
        )
      )
    }
    if (e._tag === "GuardrailTriggered") lines.push(pc.yellow(guardrailLine(e)))
    if (e._tag === "RefinementApplied") {
      const changes = e.actions.map((a) => `${a.actionType} ${a.targetStepId ?? a.newStep?.stepId ?? ""}`).join(", ")
      lines.push(`refined: ${changes || "no change"}`)
    }
    if (e._tag !== "LlmCalled" && e._tag !== "ManualInterventionRequired") draw()
  }
  const onOutput = (d: LlmOutputDelta) => {
    if (!ANSWER_PROMPTS.includes(d.promptId) || d.answerText === undefined) return
    writing = d.answerText
    draw()
  }
  return {
    onEvent,
    onOutput,
    done: () => {
      writing = ""
      draw()
      logUpdate.done()
    },
    pause: () => {
      logUpdate.done()
      paused = true
    },
    resume: () => void (paused = false)
  }
}
