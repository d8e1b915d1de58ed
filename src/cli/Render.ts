import type { ExecutionHistory } from "../domain/Execution.js"
import type { Forecast, ForecastFigures } from "../domain/Forecast.js"
import type { Memory } from "../domain/Memory.js"
import { liveSteps, type Plan } from "../domain/Plan.js"
import type { RunEvent } from "../domain/RunEvent.js"
import { triggerInWords } from "../guardrails/Words.js"
import { costUnknown } from "../llm/Pricing.js"
import type { ServerHealth } from "../mcp/Servers.js"
import { memorySource } from "../prompts/PromptViews.js"
import type { LlmCall } from "../record/LlmCalls.js"
import { executionPasses, type RunResult } from "../record/RunResult.js"
import type { StoredRun } from "../runs/StoredRuns.js"
import { pc } from "./Colors.js"

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)}s`

/**
 * One line: converged or why not, passes, LLM calls, tokens, cost, time; a failed run's error too unless
 * `withError` is false (printed above it, by problemLines).
 */
export const summaryLine = (r: RunResult, withError = true): string => {
  const passes = executionPasses(r)
  const why = r.converged ?
    pc.green("converged")
    : r.terminationReason === "dry_run" ?
    pc.green("dry run: planned, nothing executed")
    : r.status === "CANCELLED" ?
    pc.yellow("cancelled")
    : r.status === "FAILED" ?
    pc.red(withError ? `failed: ${r.error ?? r.terminationReason}` : "failed")
    : r.status === "AWAITING_INPUT" ?
    pc.yellow("waiting for a person (aeon approve or aeon guide answers it)")
    : r.status === "RUNNING" ?
    pc.yellow("running")
    : pc.yellow(
      `not converged (${r.terminationReason}${r.ttlExpiration?.exhausted ? `: ${r.ttlExpiration.exhausted}` : ""})`
    )
  const time = r.finishedAt !== undefined ? seconds(r.finishedAt - r.startedAt) : "not finished"
  const replayed = r.usage.replayed ? ` (${r.usage.replayed.llmCalls} replayed, not paid)` : ""
  return `${why} · ${passes} pass${passes === 1 ? "" : "es"} · ${r.usage.llmCalls} LLM call${
    r.usage.llmCalls === 1 ? "" : "s"
  }${replayed}${r.planReusedFrom ? ` (plan reused from run ${r.planReusedFrom})` : ""} · ${
    r.usage.inputTokens + r.usage.outputTokens
  } tokens${r.usage.cachedTokens ? ` (${r.usage.cachedTokens} cached)` : ""} · ${
    costUnknown(r.advisories) ?
      pc.yellow("cost unknown (the model has no price: AEON_PRICE_TABLE)") :
      `$${r.usage.costUsd.toFixed(4)}`
  } · ${time} · ${r.models.length > 1 ? r.models.join(" → ") : r.model} · run ${r.runId}`
}

/** Why a run that did not converge went wrong: its error and each failed step's, once each (none for a converged run). */
export const problemLines = (r: RunResult): Array<string> => {
  if (r.converged) return []
  const live = liveSteps(r.plan?.steps ?? [])
  const lines = [
    ...(r.error !== undefined ? [`error${r.errorCode !== undefined ? ` (${r.errorCode})` : ""}: ${r.error}`] : []),
    ...live.filter((s) => s.error !== undefined).map((s) => `step ${s.stepId} ${s.status}: ${s.error}`),
    ...live.filter((s) => s.error === undefined && s.clarityState === "BLOCKED").map((s) =>
      `step ${s.stepId} blocked: ${s.stepOutput}`
    ),
    ...r.advisories.map((a) => `note: ${a}`)
  ]
  return [...new Set(lines)].map((l) => pc.red(l))
}

/**
 * The offline stand-in's label, above an answer it wrote: where the answer is shown, not inside its text (which
 * memories keep and later runs recall).
 */
export const standInLabel = (
  r: RunResult
) => (r.model === "offline" ? `${pc.dim("[offline rule-based stand-in]")}\n` : "")

/** The run result as one JSON document (`--json`). */
export const jsonResult = (r: RunResult) => ({
  runId: r.runId,
  status: r.status,
  converged: r.converged,
  terminationReason: r.terminationReason ?? null,
  finalAnswer: r.finalAnswer ?? null,
  mode: r.mode,
  model: r.model,
  models: r.models,
  simpleIterations: r.simple.iterations,
  escalation: r.simple.escalation ?? null,
  failureSummary: r.simple.failureSummary ?? null,
  ttlExpiration: r.ttlExpiration ?? null,
  passes: r.history.passes,
  usage: r.usage,
  budget: r.history.configuration.budget ?? null,
  forecast: r.forecast ?? null,
  forecastError: r.forecastError ?? null,
  advisories: r.advisories,
  error: r.error ?? null,
  errorCode: r.errorCode ?? null
})

/** An answer as a person reads it: a typed run's value as indented JSON (what a script takes), else its text. */
export const answerShown = (a: NonNullable<RunResult["finalAnswer"]>) =>
  a.data !== undefined ? JSON.stringify(a.data, null, 2) : a.answerText

/** The history as a readable tree (`aeon inspect`). */
export const historyTree = (r: RunResult): string => {
  const out: Array<string> = []
  const h: ExecutionHistory = r.history
  out.push(`${pc.bold(`run ${r.runId}`)} · ${r.mode} · ${r.status} · ${r.model}`)
  out.push(`task: ${r.task}`)
  if (r.simple.iterations.length > 0) {
    out.push(`simple mode: ${r.simple.iterations.length} iteration(s)`)
    for (const i of r.simple.iterations) {
      out.push(
        `  #${i.iteration} ${i.testStatus}${i.failedTests.length ? ` (${i.failedTests.join(", ")})` : ""}${
          i.errorMessages.length ? ` — ${i.errorMessages.join("; ")}` : ""
        }`
      )
    }
  }
  if (r.simple.escalation) {
    out.push(`escalated: ${r.simple.escalation.reason}\n  context: ${r.simple.escalation.failureSummary.summary}`)
  }
  for (const p of h.passes) {
    out.push(
      `├─ pass ${p.passNumber} · ${p.phases.join(" → ")} · TTL ${p.ttlRemaining} · ${
        p.timingInformation.durationSeconds.toFixed(2)
      }s`
    )
    if (p.taskProfile) {
      out.push(
        `│  profile v${p.taskProfile.profileVersion}: depth ${p.taskProfile.reasoningDepth}, sufficiency ${p.taskProfile.informationSufficiency}`
      )
    }
    if (p.depthConfiguration) {
      out.push(
        `│  depth: ${p.depthConfiguration.reasoningMode}, ${p.depthConfiguration.allocatedTtl} cycles — ${p.depthConfiguration.adjustmentReason}`
      )
    }
    out.push(`│  plan: ${p.planState.goal}`)
    for (const s of p.planState.steps) {
      const result = p.executionResults[s.stepId]
      out.push(
        `│   ${s.stepIndex}. [${result?.status ?? s.status}] ${s.stepId} ${s.description}${
          s.tool ? ` (${s.tool})` : ""
        }${result?.stepOutput ? ` → ${result.stepOutput.replace(/\n/g, " ").slice(0, 100)}` : ""}${
          result?.error ? pc.red(` ✗ ${result.error}`) : ""
        }`
      )
    }
    const v = p.evaluationResults.validationReport
    if (v) {
      out.push(
        `│  validation: ${v.issues.length} issue(s), severity ${v.overallSeverity}${
          v.decidedBy === "checks" ? " · by the checks (no model review)" : ""
        }`
      )
      for (const i of v.issues) {
        out.push(`│   - ${i.severity} ${i.type}${i.location?.stepId ? ` @${i.location.stepId}` : ""}: ${i.description}`)
      }
    }
    const c = p.evaluationResults.convergence
    if (c) {
      out.push(
        `│  convergence: ${c.converged ? pc.green("converged") : pc.yellow("not converged")} · completeness ${
          c.scores.completenessScore.toFixed(2)
        } · coherence ${c.scores.coherenceScore.toFixed(2)} · ${c.reasonCodes.join(", ")}${
          c.decidedBy === "checks" ? " · by the checks (no model assessment)" : ""
        }`
      )
    }
    for (const a of p.refinementChanges) {
      out.push(`│  refine: ${a.actionType}${a.targetStepId ? ` ${a.targetStepId}` : ""} — ${a.justification}`)
    }
    for (const a of p.advisories) out.push(`│  note: ${a}`)
  }
  out.push(`└─ ${summaryLine(r)}`)
  if (r.finalAnswer) out.push(`\n${standInLabel(r)}${answerShown(r.finalAnswer)}`)
  return out.join("\n")
}

/** Columns padded to their widest cell. */
export const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>) => {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)))
  const line = (cells: ReadonlyArray<string>) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join("  ").trimEnd()
  return [line(header), ...rows.map(line)].join("\n")
}

export const runsTable = (
  runs: ReadonlyArray<Pick<StoredRun, "id" | "mode" | "userId" | "createdAt" | "task"> & { readonly status: string }>
): string => {
  if (runs.length === 0) return "no runs"
  const rows = runs.map((
    r
  ) => [
    r.id,
    r.status,
    r.mode,
    r.userId ?? "-",
    r.createdAt.toISOString().replace("T", " ").slice(0, 19),
    r.task.replace(/\s+/g, " ").slice(0, 50)
  ])
  return table(["ID", "STATUS", "MODE", "USER", "CREATED", "TASK"], rows)
}

/** `aeon memory list|search`: each memory's id, kind, source, age and text (cut to a line). */
export const memoriesTable = (memories: ReadonlyArray<Memory & { readonly coverage?: number | undefined }>) =>
  memories.length === 0 ? "no memories" : table(
    ["ID", "KIND", "FROM", "CREATED", ...(memories.some((m) => m.coverage !== undefined) ? ["COVERS"] : []), "TEXT"],
    memories.map((m) => [
      m.id,
      m.kind,
      memorySource(m),
      m.createdAt.replace("T", " ").slice(0, 19),
      ...(m.coverage !== undefined ? [`${Math.round(m.coverage * 100)}%`] : []),
      m.text.replace(/\s+/g, " ").slice(0, 60)
    ])
  )

/** What a turn quoted of its conversation, as `aeon inspect` says it. */
const conversationLine = (e: Extract<RunEvent, { _tag: "ConversationQuoted" }>) => {
  const summary = e.summary ?? e.prior
  return `${
    e.threadId ? `turn ${e.turn ?? "?"} of thread ${e.threadId}: ` : "conversation: "
  }${e.total} earlier message${e.total === 1 ? "" : "s"} quoted in ${e.tokens} tokens${
    summary ? `, the first ${summary.covers} as a summary${e.summary ? " this run made" : ""}` : ""
  }${e.threadId ? ` — aeon threads ${e.threadId}` : ""}`
}

/** A call with side effects not made again: whose result the step took instead. */
export const reusedLine = (
  stepId: string,
  tool: string,
  from: { readonly passNumber: number; readonly stepId: string }
) =>
  `step ${stepId}: ${tool} not called again — the same call (side effects) was made in pass ${from.passNumber} ` +
  `(step ${from.stepId}); its result reused`

/**
 * What a run took from before it, as `aeon inspect` says it: its conversation, the plan it started from, the memories
 * it quoted.
 */
export const memoryLines = (events: ReadonlyArray<RunEvent>): Array<string> =>
  events.flatMap((e) =>
    e._tag === "ConversationQuoted"
      ? [conversationLine(e)]
      : e._tag === "PlanReused"
      ? [`plan reused from run ${e.fromRun} (${e.match} task: ${e.task}) — aeon inspect ${e.fromRun}`]
      : e._tag === "ToolInvoked" && e.reusedFrom
      ? [reusedLine(e.stepId, e.tool, e.reusedFrom)]
      : e._tag === "MemoryRecalled"
      ? [
        `recalled ${e.memories.length} memor${e.memories.length === 1 ? "y" : "ies"} of earlier runs:`,
        ...e.memories.map((m) =>
          `  ${memorySource(m)} (covers ${Math.round(m.coverage * 100)}% of the task, rank ${m.rank}): ${
            m.text.replace(/\s+/g, " ").slice(0, 80)
          }`
        )
      ]
      : []
  )

export { triggerInWords as guardrailLine }

/** The run's guardrail triggers, one line each. */
export const guardrailLines = (events: ReadonlyArray<RunEvent>): Array<string> =>
  events.flatMap((e) => (e._tag === "GuardrailTriggered" ? [triggerInWords(e)] : []))

/** `aeon tools`: the tools, then each MCP server's state. */
export const toolsTable = (
  tools: ReadonlyArray<
    {
      readonly name: string
      readonly server: string | null
      readonly kind: string
      readonly destructive: boolean
      readonly description: string
    }
  >,
  servers: ReadonlyArray<ServerHealth>
): string => {
  const rows = tools.map((t) => [
    t.name,
    t.server ?? "(aeon)",
    t.kind + (t.destructive ? ", destructive" : ""),
    t.description.replace(/\s+/g, " ").slice(0, 70)
  ])
  const serverLines = servers.map((s) =>
    `MCP server ${s.name} (${s.transport}): ${s.status}, ${s.toolCount} tool(s)${
      s.lastError ? ` — ${s.lastError}` : ""
    }`
  )
  return [table(["TOOL", "SERVER", "CALLS", "DESCRIPTION"], rows), ...(serverLines.length ? ["", ...serverLines] : [])]
    .join("\n") + "\n"
}

/** The recorded model calls (`aeon inspect RUN --calls`): where each was made, its figures, prompt and answer. */
export const callsText = (calls: ReadonlyArray<LlmCall>): string => {
  if (calls.length === 0) return "no model calls recorded for this run (AEON_RECORD_PROMPTS=0 when it ran?)"
  return calls.map((c) => {
    const where = [
      c.passNumber !== undefined ? `pass ${c.passNumber}` : "",
      c.phase ?? "",
      c.stepId ? `step ${c.stepId}` : ""
    ]
      .filter(Boolean).join(" · ")
    return [
      pc.bold(`#${c.seq} ${c.promptId}`) +
      ` · ${c.model}${c.attempt > 1 ? ` · attempt ${c.attempt}` : ""}${where ? ` · ${where}` : ""}` +
      ` · ${c.inputTokens}+${c.outputTokens} tokens${
        c.cachedTokens > 0 ? ` (${c.cachedTokens} read from the cache)` : ""
      }${c.cacheWriteTokens > 0 ? ` (${c.cacheWriteTokens} written to it)` : ""} · ${c.latencyMs} ms`,
      `── system\n${c.system}`,
      `── user\n${c.user}`,
      c.error ? pc.red(`── error\n${c.error}`) : `── response (${c.finishReason ?? "stop"})\n${c.response ?? ""}`,
      ...(c.decodeError ? [pc.red(`── decode error\n${c.decodeError}`)] : [])
    ].join("\n")
  }).join("\n\n")
}

/** A forecast in one line: expected, and at most. */
export const forecastText = (f: Forecast) =>
  `${figuresText(f.expected)} in all, at most ${figuresText(f.worstCase)} (${f.spent.llmCalls} calls spent so far)`

const figuresText = (f: ForecastFigures) =>
  `${Math.round(f.llmCalls)} LLM calls · ${Math.round(f.tokens)} tokens · $${f.costUsd.toFixed(4)} · ${
    seconds(f.wallMs)
  }`

/** A plan with its forecast: each step (its tool, what it waits for), then the expected and worst-case figures. */
export const planForecastLines = (plan: Plan, forecast: Forecast | undefined): Array<string> => [
  pc.bold(`plan: ${plan.goal} (${plan.steps.length} step${plan.steps.length === 1 ? "" : "s"})`),
  ...plan.steps.map((s) =>
    `  ${s.stepId}  ${s.description}${s.tool ? pc.dim(`  [${s.tool}]`) : ""}${
      s.dependencies.length > 0 ? pc.dim(`  (after ${s.dependencies.join(", ")})`) : ""
    }`
  ),
  ...(forecast
    ? [
      pc.bold("forecast"),
      `  expected:   ${figuresText(forecast.expected)} (${forecast.passes.expected} pass(es))`,
      `  worst case: ${figuresText(forecast.worstCase)} (${forecast.passes.worstCase} pass(es))`,
      `  spent on planning: ${figuresText(forecast.spent)}`,
      ...forecast.perStep.map((s) =>
        `  ${s.stepId}: expected $${s.expected.costUsd.toFixed(4)}, at most $${s.worstCase.costUsd.toFixed(4)}`
      ),
      pc.dim(`  basis: ${forecast.basis}`)
    ]
    : [])
]
