import type { MemoryKind } from "../domain/Memory.js"
import { liveSteps } from "../domain/Plan.js"
import type { RunRecord } from "./RunRecord.js"
import { resultOf, type RunResult } from "./RunResult.js"

/** The longest text one memory keeps (an answer past it is cut: recall quotes memories into a plan prompt). */
export const MEMORY_TEXT_LIMIT = 2_000

/** A memory a converged run leaves, before the store gives it its owner and time. */
export interface RunMemory {
  readonly id: string
  readonly kind: Extract<MemoryKind, "answer" | "step">
  readonly text: string
  readonly task: string
  readonly runId: string
  readonly stepId: string | null
  readonly passNumber: number | null
  /** `model:<label>`: the model whose run established it (recall keeps the offline stand-in's from other models). */
  readonly tags: ReadonlyArray<string>
}

/** The tag of a memory a run of `model` left (`modelTag("offline")`: the offline stand-in's). */
export const modelTag = (model: string) => `model:${model}`

/** A memory's text within MEMORY_TEXT_LIMIT (cut with a mark). */
export const cutText = (text: string) =>
  text.length > MEMORY_TEXT_LIMIT ? `${text.slice(0, MEMORY_TEXT_LIMIT - 1)}…` : text

/**
 * What a run that converged establishes: its final answer and the outputs of its complete steps (the validation and
 * convergence that ended the run passed on them). A run that did not converge, or whose input turned memory off,
 * leaves nothing. Ids are per run and step: a run written twice (a resumed batch) leaves each memory once.
 */
export const memoriesOf = (record: RunRecord, result: RunResult = resultOf(record)): ReadonlyArray<RunMemory> => {
  const started = record.started
  const finished = record.finished
  if (!started || !finished || finished.status !== "CONVERGED" || started.memory === false) return []
  const runId = record.runId
  const answer = result.finalAnswer?.answerText.trim()
  const lastPass = record.lastPassNumber
  // a step's output the answer already holds adds nothing to remember
  const steps = liveSteps(result.plan?.steps ?? []).filter((s) =>
    s.status === "complete" && s.stepOutput.trim() !== "" && !(answer ?? "").includes(s.stepOutput.trim())
  )
  return [
    ...(answer
      ? [{
        id: `${runId}:answer`,
        kind: "answer" as const,
        text: cutText(answer),
        task: started.task,
        runId,
        stepId: null,
        passNumber: lastPass,
        tags: [modelTag(result.model)]
      }]
      : []),
    ...steps.map((s) => ({
      id: `${runId}:${s.stepId}`,
      kind: "step" as const,
      text: cutText(s.stepOutput.trim()),
      task: started.task,
      runId,
      stepId: s.stepId,
      passNumber: lastPass,
      tags: [modelTag(result.model)]
    }))
  ]
}
