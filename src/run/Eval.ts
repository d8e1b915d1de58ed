import { Clock, Effect, Either, ParseResult, Schema } from "effect"
import { isDeepStrictEqual } from "node:util"
import { failedAnswerPredicates } from "../convergence/AnswerPredicates.js"
import { ConvergenceCriteria } from "../convergence/Criteria.js"
import { prepareOutputSchema, violationsOf } from "../convergence/OutputSchema.js"
import { InvalidRunInputError } from "../domain/Errors.js"
import { FINAL_STATUSES } from "../domain/RunStatus.js"
import { RunMode } from "../domain/SimpleIteration.js"
import * as LanguageModel from "../llm/LanguageModel.js"
import * as PromptRegistry from "../prompts/PromptRegistry.js"
import { Contracts } from "../prompts/PromptRegistry.js"
import { beginsRun } from "../record/RunRecord.js"
import { executionPasses, type RunResult } from "../record/RunResult.js"
import { RunStore } from "../store/RunStore.js"
import { messageOf } from "../support/Thrown.js"
import * as ToolRegistry from "../tools/ToolRegistry.js"
import { fork } from "./Fork.js"
import { prepare } from "./Run.js"
import { decodeRunInput } from "./RunInput.js"

const Status = Schema.Literal(...FINAL_STATUSES)

/** One case of an eval set: a task, how to run it, what its result must be. */
export const EvalCase = Schema.Struct({
  id: Schema.String.pipe(
    Schema.filter((s) => /^[A-Za-z0-9_.:-]{1,64}$/.test(s) || "id is 1-64 letters, digits, _ . : -")
  ),
  task: Schema.String,
  mode: Schema.optional(RunMode),
  budget: Schema.optional(Schema.Unknown),
  criteria: Schema.optional(Schema.Unknown),
  /** The JSON Schema the case's answer must meet (the run's outputSchema): its value is the result's data. */
  outputSchema: Schema.optional(Schema.Unknown),
  expect: Schema.optionalWith(
    Schema.Struct({
      /** The answer matches this regular expression (JavaScript syntax). */
      answerMatches: Schema.optional(Schema.String),
      /** The answer contains this text. */
      answerContains: Schema.optional(Schema.String),
      /** The run ends so (CONVERGED unless given). */
      status: Schema.optional(Status),
      /**
       * The convergence engine's own criteria, held against the final answer (answerMatches, answerMentions,
       * answerSchema) and the last assessment (the thresholds and reason codes given).
       */
      criteria: Schema.optional(ConvergenceCriteria),
      /** The answer's value (a typed run's data) equals this, deeply. */
      data: Schema.optional(Schema.Unknown),
      /** The answer's value (a typed run's data) meets this JSON Schema of the case's own. */
      dataSchema: Schema.optional(Schema.Unknown),
      /** What a good answer does, in words: judged by a model (the eval_rubric prompt), its call in the report. */
      rubric: Schema.optional(Schema.String.pipe(Schema.minLength(1, { message: () => "rubric must not be empty" })))
    }),
    { default: () => ({}) }
  )
})
export type EvalCase = typeof EvalCase.Type

export interface CaseResult {
  readonly id: string
  readonly runId: string
  readonly status: string
  readonly passed: boolean
  /** Why it failed (empty when it passed). */
  readonly why: ReadonlyArray<string>
  readonly passes: number
  readonly llmCalls: number
  readonly replayedCalls: number
  readonly tokens: number
  readonly costUsd: number
  readonly wallMs: number
  /** The rubric's verdict, when the case has one: the judging call as recorded (its cost is in costUsd). */
  readonly rubric?: RubricVerdict | undefined
}

export interface RubricVerdict {
  readonly passed: boolean
  readonly score: number
  readonly reasoning: string
  readonly call: {
    readonly model: string
    readonly inputTokens: number
    readonly outputTokens: number
    readonly costUsd: number
    readonly system: string
    readonly user: string
    readonly response: string
    /** Taken from an earlier report's call of the same prompt (`--replay`): not sent, not paid. */
    readonly replayed?: boolean | undefined
  }
}

export interface EvalReport {
  readonly evalId: string
  readonly cases: ReadonlyArray<CaseResult>
  readonly totals: {
    readonly cases: number
    readonly passed: number
    readonly passRate: number
    readonly costUsd: number
    readonly wallP50Ms: number
    readonly wallP95Ms: number
  }
}

const oneLine = (e: ParseResult.ParseError) =>
  ParseResult.ArrayFormatter.formatErrorSync(e).map((i) =>
    `${i.path.length > 0 ? `${i.path.join(".")}: ` : ""}${i.message}`
  ).join("; ")

/** The cases of a file: a JSON array, or one JSON object per line (JSONL); a bad case is refused with its place. */
export const parseCases = (text: string): Either.Either<ReadonlyArray<EvalCase>, string> => {
  const trimmed = text.trim()
  let entries: Array<{ readonly where: string; readonly json: string }>
  if (trimmed.startsWith("[")) {
    let all: unknown
    try {
      all = JSON.parse(trimmed)
    } catch (e) {
      return Either.left(`not JSON: ${messageOf(e)}`)
    }
    entries = (all as Array<unknown>).map((c, i) => ({ where: `case ${i + 1}`, json: JSON.stringify(c) }))
  } else {
    entries = text.split("\n").flatMap((
      line,
      i
    ) => (line.trim() === "" ? [] : [{ where: `line ${i + 1}`, json: line }]))
  }
  const cases: Array<EvalCase> = []
  for (const { json, where } of entries) {
    let value: unknown
    try {
      value = JSON.parse(json)
    } catch (e) {
      return Either.left(`${where} is not JSON: ${messageOf(e)}`)
    }
    const decoded = Schema.decodeUnknownEither(EvalCase)(value, { onExcessProperty: "error" })
    if (Either.isLeft(decoded)) return Either.left(`${where}: ${oneLine(decoded.left)}`)
    if (cases.some((c) => c.id === decoded.right.id)) {
      return Either.left(`${where}: the id ${decoded.right.id} is used twice`)
    }
    cases.push(decoded.right)
  }
  return cases.length > 0 ? Either.right(cases) : Either.left("has no case")
}

/** Whether a result is what its case expects, and why not. */
export const judge = (c: EvalCase, r: RunResult): ReadonlyArray<string> => {
  const why: Array<string> = []
  const expected = c.expect.status ?? "CONVERGED"
  if (r.status !== expected) why.push(`status ${r.status}, expected ${expected}`)
  const answer = r.finalAnswer?.answerText ?? ""
  if (c.expect.answerContains !== undefined && !answer.includes(c.expect.answerContains)) {
    why.push(`the answer does not contain ${JSON.stringify(c.expect.answerContains)}`)
  }
  if (c.expect.answerMatches !== undefined && !new RegExp(c.expect.answerMatches).test(answer)) {
    why.push(`the answer does not match /${c.expect.answerMatches}/`)
  }
  if (c.expect.criteria) why.push(...criteriaFailed(c.expect.criteria, r))
  why.push(...dataFailed(c, r.finalAnswer?.data))
  return why
}

/** What of the case's expectations on the answer's value (its data) the result fails. */
const dataFailed = (c: EvalCase, data: unknown): Array<string> => {
  const why: Array<string> = []
  if ((c.expect.data !== undefined || c.expect.dataSchema !== undefined) && data === undefined) {
    return ["the answer has no data (a value of the run's output schema)"]
  }
  if (c.expect.data !== undefined && !isDeepStrictEqual(data, c.expect.data)) {
    why.push(`the data is ${JSON.stringify(data)}, expected ${JSON.stringify(c.expect.data)}`)
  }
  if (c.expect.dataSchema !== undefined) {
    const checked = prepareOutputSchema(c.expect.dataSchema, false)
    if (!checked.ok) why.push(`expect.dataSchema: ${checked.refusal.message}`)
    else why.push(...violationsOf(checked.prepared, data).map((v) => `the data breaks expect.dataSchema at ${v}`))
  }
  return why
}

/** The engine's criteria the result fails: its answer predicates on the final answer, the thresholds on the last assessment. */
const criteriaFailed = (criteria: ConvergenceCriteria, r: RunResult): Array<string> => {
  const failed = failedAnswerPredicates(criteria, r.finalAnswer?.answerText ?? "").map((code) => `criteria: ${code}`)
  const last = [...r.history.passes].reverse().find((p) => p.evaluationResults.convergence)?.evaluationResults
    .convergence
  if (!last) return [...failed, "criteria: the run made no convergence assessment"]
  const { coherenceScore, completenessScore, consistencyStatus } = last.scores
  if (completenessScore < criteria.completenessThreshold) {
    failed.push(`criteria: completeness ${completenessScore} < ${criteria.completenessThreshold}`)
  }
  if (coherenceScore < criteria.coherenceThreshold) {
    failed.push(`criteria: coherence ${coherenceScore} < ${criteria.coherenceThreshold}`)
  }
  if (criteria.requireConsistency && Object.values(consistencyStatus).some((ok) => !ok)) {
    failed.push("criteria: not consistent")
  }
  const missing = criteria.requiredReasonCodes.filter((code) => !last.reasonCodes.includes(code))
  if (missing.length > 0) failed.push(`criteria: reason codes missing: ${missing.join(", ")}`)
  return failed
}

/**
 * The case's rubric judged by the model (the eval_rubric prompt, its exchange recorded), or taken from `before` (an
 * earlier report's verdict) when its prompt is the same: free.
 */
const judgeRubric = (c: EvalCase, r: RunResult, before: RubricVerdict | undefined) =>
  Effect.gen(function*() {
    const input = {
      rubric: c.expect.rubric!,
      task: c.task,
      status: r.status,
      answer: r.finalAnswer?.answerText ?? "(no answer)"
    }
    const user = yield* PromptRegistry.render(Contracts.evalRubric.user.id, input)
    if (before && before.call.user === user) {
      return { ...before, call: { ...before.call, costUsd: 0, replayed: true } } as RubricVerdict
    }
    const model = yield* LanguageModel.LanguageModel
    const answer = yield* model.wrapped(LanguageModel.asIs, { recordExchanges: true }).generate(
      Contracts.evalRubric,
      input
    )
    const exchange = answer.usage.exchange
    return {
      passed: answer.output.passed,
      score: answer.output.score,
      reasoning: answer.output.reasoning,
      call: {
        model: answer.usage.model,
        inputTokens: answer.usage.inputTokens,
        outputTokens: answer.usage.outputTokens,
        costUsd: answer.usage.costUsd,
        system: exchange?.system ?? "",
        user: exchange?.user ?? user,
        response: exchange?.response ?? answer.text
      }
    } as RubricVerdict
  }).pipe(
    Effect.mapError((e) =>
      new EvalJudgeError({ caseId: c.id, message: `the rubric could not be judged: ${e.message}` })
    )
  )

/** A rubric the model could not judge (it failed, or its verdict did not decode). */
export class EvalJudgeError extends Schema.TaggedError<EvalJudgeError>()("EvalJudgeError", {
  caseId: Schema.String,
  message: Schema.String
}) {}

const percentile = (xs: ReadonlyArray<number>, p: number) => {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0
}

/** Checks every case's run input before any runs (a bad case changes nothing). */
const inputsOf = (cases: ReadonlyArray<EvalCase>, evalId: string) =>
  Effect.gen(function*() {
    const tools = yield* ToolRegistry.ToolRegistry
    return yield* Effect.forEach(cases, (c) => {
      const input = {
        task: c.task,
        ...(c.mode ? { mode: c.mode } : {}),
        ...(c.budget !== undefined ? { budget: c.budget } : {}),
        ...(c.criteria !== undefined ? { criteria: c.criteria } : {}),
        ...(c.outputSchema !== undefined ? { outputSchema: c.outputSchema } : {}),
        tags: [`eval:${evalId}`, `case:${c.id}`],
        // a case measures the engine, not what earlier runs left: it recalls nothing and leaves no memory
        memory: false
      }
      return decodeRunInput(input, tools.names).pipe(
        Effect.as(input),
        Effect.mapError((e) => new InvalidRunInputError({ message: `case ${c.id}: ${e.message}` }))
      )
    })
  })

/** A case run again from a previous run's recordings: a fork at its start (live once a call differs). */
const replayOf = (runId: string) =>
  Effect.gen(function*() {
    const events = yield* (yield* RunStore).events(runId)
    const started = events.find(beginsRun)
    if (!started) return yield* new InvalidRunInputError({ message: `run ${runId} has not started: nothing to replay` })
    return yield* fork(runId, started.seq)
  })

/**
 * Runs the cases (at most `concurrency` at once), each as a stored run tagged `eval:ID` and `case:ID`, or with
 * `replayFrom` (case id → a previous run of it) forked from that run's recordings; judges each result.
 */
export const run = (
  cases: ReadonlyArray<EvalCase>,
  options: {
    readonly concurrency?: number | undefined
    readonly evalId?: string | undefined
    readonly replayFrom?: Readonly<Record<string, string>> | undefined
    /** Rubric verdicts of an earlier report (case id → verdict): reused while the judging prompt is the same. */
    readonly judgedBefore?: Readonly<Record<string, RubricVerdict>> | undefined
  } = {}
) =>
  Effect.gen(function*() {
    const evalId = options.evalId ?? `eval-${new Date().toISOString().replace(/[:.]/g, "-")}`
    const inputs = yield* inputsOf(cases, evalId)
    const results = yield* Effect.forEach(cases, (c, i) =>
      Effect.gen(function*() {
        const started = yield* Clock.currentTimeMillis
        const previous = options.replayFrom?.[c.id]
        const prepared = previous ? yield* replayOf(previous) : yield* prepare(inputs[i])
        const r = yield* prepared.execute
        const rubric = c.expect.rubric === undefined
          ? undefined
          : yield* Effect.either(judgeRubric(c, r, options.judgedBefore?.[c.id]))
        const why = [
          ...judge(c, r),
          ...(rubric === undefined
            ? []
            : Either.isLeft(rubric)
            ? [rubric.left.message]
            : rubric.right.passed
            ? []
            : [`the rubric is not met: ${rubric.right.reasoning}`])
        ]
        const verdict = rubric && Either.isRight(rubric) ? rubric.right : undefined
        return {
          id: c.id,
          runId: prepared.runId,
          status: r.status,
          passed: why.length === 0,
          why,
          passes: executionPasses(r),
          llmCalls: r.usage.llmCalls,
          replayedCalls: r.usage.replayed?.llmCalls ?? 0,
          tokens: r.usage.inputTokens + r.usage.outputTokens +
            (verdict && !verdict.call.replayed ? verdict.call.inputTokens + verdict.call.outputTokens : 0),
          costUsd: r.usage.costUsd - (r.usage.replayed?.costUsd ?? 0) + (verdict?.call.costUsd ?? 0),
          wallMs: (yield* Clock.currentTimeMillis) - started,
          ...(verdict ? { rubric: verdict } : {})
        } satisfies CaseResult
      }), { concurrency: options.concurrency ?? 4 })
    const passed = results.filter((r) => r.passed).length
    const walls = results.map((r) => r.wallMs)
    return {
      evalId,
      cases: results,
      totals: {
        cases: results.length,
        passed,
        passRate: passed / results.length,
        costUsd: results.reduce((sum, r) => sum + r.costUsd, 0),
        wallP50Ms: percentile(walls, 50),
        wallP95Ms: percentile(walls, 95)
      }
    } satisfies EvalReport
  })

/** Case by case against an earlier report: passed then and fails now (a regression), or the other way. */
export const compare = (report: EvalReport, baseline: EvalReport) => {
  const before = new Map(baseline.cases.map((c) => [c.id, c.passed]))
  return {
    regressions: report.cases.filter((c) => before.get(c.id) === true && !c.passed).map((c) => c.id),
    improvements: report.cases.filter((c) => before.get(c.id) === false && c.passed).map((c) => c.id)
  }
}

/** A JUnit XML report (a testsuite, a testcase per case, a failure with its reasons): what CI tools read. */
export const junit = (report: EvalReport): string => {
  const esc = (s: string) =>
    s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")
  const seconds = (ms: number) => (ms / 1000).toFixed(3)
  const total = report.cases.reduce((sum, c) => sum + c.wallMs, 0)
  const cases = report.cases.map((c) =>
    `  <testcase classname="${esc(report.evalId)}" name="${esc(c.id)}" time="${seconds(c.wallMs)}">` +
    (c.passed
      ? ""
      : `\n    <failure message="${esc(c.why.join("; "))}">run ${esc(c.runId)}: ${esc(c.status)}</failure>\n  `) +
    `</testcase>`
  )
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuite name="${
    esc(report.evalId)
  }" tests="${report.cases.length}" failures="${report.cases.length - report.totals.passed}" time="${
    seconds(total)
  }">\n${cases.join("\n")}\n</testsuite>\n`
}
