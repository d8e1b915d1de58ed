import { Effect, Schema } from "effect"
import type { PlanStep } from "../../src/domain/Plan.js"
import type { RunEventBody } from "../../src/domain/RunEvent.js"
import { tool } from "../../src/tools/ToolRegistry.js"

export const step = (id: string, index: number, total: number, extra: Partial<PlanStep> = {}): PlanStep => ({
  stepId: id,
  stepIndex: index,
  totalSteps: total,
  description: `Compute part ${index} of the result`,
  dependencies: [],
  provides: [],
  incomingContext: "",
  handoffToNext: "",
  stepOutput: "",
  status: "pending",
  ...extra
})

export const plan = (n: number) => ({
  goal: "Compute a result",
  steps: Array.from({ length: n }, (_, i) => step(`s${i + 1}`, i + 1, n, { dependencies: i === 0 ? [] : [`s${i}`] }))
})

/** A tool with a side effect that must happen once: it writes each record into `into` (a non-empty record). */
export const ledgerTool = (into: Array<string>) =>
  tool({
    name: "ledger.write",
    description: "Writes a record to the ledger (a side effect that must happen once).",
    input: Schema.Struct({ record: Schema.String.pipe(Schema.minLength(1)) }),
    output: Schema.Struct({ written: Schema.String }),
    timeoutMs: 5_000,
    idempotent: false,
    run: ({ record }) =>
      Effect.sync(() => {
        into.push(record)
        return { written: record }
      })
  })

/** A run's end, converged and costing nothing: the body of its RunFinished (the log gives it runId, seq and at). */
export const convergedEnd = {
  _tag: "RunFinished",
  status: "CONVERGED",
  terminationReason: "converged",
  usage: { inputTokens: 0, outputTokens: 0, costUsd: 0, llmCalls: 0, steps: 0 },
  advisories: [],
  followUpQuestions: [],
  manualInterventions: []
} as const satisfies RunEventBody
