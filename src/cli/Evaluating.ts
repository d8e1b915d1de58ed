import { Effect, Either, Layer, Option, Schema } from "effect"
import { writeFileSync } from "node:fs"
import { Budget } from "../domain/Budget.js"
import { resultFromEvents } from "../record/RunResult.js"
import * as Eval from "../run/Eval.js"
import * as Database from "../store/Database.js"
import { messageOf } from "../support/Thrown.js"
import { CliError } from "./CliError.js"
import { engineLayer, readText } from "./Handlers.js"
import { eventsOf } from "./Inspecting.js"
import { table } from "./Render.js"

export interface EvalOptions {
  readonly file: string
  readonly concurrency: Option.Option<number>
  readonly json: boolean
  readonly junit: Option.Option<string>
  readonly baseline: Option.Option<string>
  readonly replay: Option.Option<string>
  readonly provider: Option.Option<string>
  readonly script: Option.Option<string>
}

/** An earlier `aeon eval --json` report. */
const reportFile = (flag: string, path: string): Eval.EvalReport => {
  try {
    const report = JSON.parse(readText(flag, path)) as Eval.EvalReport
    if (!Array.isArray(report.cases)) throw new Error("it has no cases")
    return report
  } catch (e) {
    if (e instanceof CliError) throw e
    throw new CliError(`${flag}: ${path} is not an aeon eval --json report: ${messageOf(e)}`)
  }
}

const ms = (n: number) => `${Math.round(n)} ms`

/** The cases as a table, then the totals (and what changed against the baseline). */
const summary = (r: Eval.EvalReport, changes: ReturnType<typeof Eval.compare> | undefined) => {
  const mark = (id: string) =>
    changes?.regressions.includes(id) ? " (regression)" : changes?.improvements.includes(id) ? " (improvement)" : ""
  const rows = r.cases.map((c) => [
    c.id,
    c.status,
    `${c.passed ? "pass" : `FAIL: ${c.why.join("; ")}`}${mark(c.id)}`,
    String(c.passes),
    c.replayedCalls > 0 ? `${c.llmCalls} (${c.replayedCalls} replayed)` : String(c.llmCalls),
    String(c.tokens),
    `$${c.costUsd.toFixed(4)}`,
    ms(c.wallMs)
  ])
  const t = r.totals
  return [
    table(["CASE", "STATUS", "RESULT", "PASSES", "CALLS", "TOKENS", "COST", "WALL"], rows),
    "",
    `${t.passed}/${t.cases} passed (${(100 * t.passRate).toFixed(0)} %) · $${t.costUsd.toFixed(4)} · wall p50 ${
      ms(t.wallP50Ms)
    }, p95 ${ms(t.wallP95Ms)} · eval ${r.evalId}`,
    ...(changes ?
      [`against the baseline: ${changes.regressions.length} regression(s) ${
        changes.regressions.join(", ")
      }; ${changes.improvements.length} improvement(s) ${changes.improvements.join(", ")}`]
      : [])
  ].join("\n")
}

/**
 * `aeon eval FILE`: runs an eval set's cases as stored runs and prints how each did. Exit 1 when a case fails, or with
 * --baseline when a case that passed there fails now (a regression; failures it already had are allowed).
 */
export const evaluate = (o: EvalOptions) =>
  Effect.gen(function*() {
    const cases = Either.getOrThrowWith(Eval.parseCases(readText("the eval set", o.file)), (why) =>
      new CliError(`${o.file} ${why}`))
    const baseline = Option.map(o.baseline, (p) =>
      reportFile("--baseline", p))
    const previous = Option.map(o.replay, (p) => reportFile("--replay", p))
    const replayFrom = Option.getOrUndefined(
      Option.map(previous, (p) => Object.fromEntries(p.cases.map((c) => [c.id, c.runId])))
    )
    const flags: Record<string, string> = {
      ...(Option.isSome(o.provider) ? { AEON_MODEL_PROVIDER: o.provider.value } : {}),
      ...(Option.isSome(o.script) ? { AEON_SCRIPT: o.script.value, AEON_MODEL_PROVIDER: "scripted" } : {})
    }
    const judgedBefore = Option.getOrUndefined(
      Option.map(previous, (p) => Object.fromEntries(p.cases.flatMap((c) => (c.rubric ? [[c.id, c.rubric]] : []))))
    )
    const report = yield* Eval.run(cases, {
      concurrency: Option.getOrUndefined(o.concurrency),
      replayFrom,
      judgedBefore
    }).pipe(
      Effect.provide(Layer.mergeAll(engineLayer(flags), Database.layerConfig))
    )
    const changes = Option.getOrUndefined(Option.map(baseline, (b) => Eval.compare(report, b)))
    if (Option.isSome(o.junit)) writeFileSync(o.junit.value, Eval.junit(report))
    process.stdout.write(
      o.json
        ? `${JSON.stringify({ ...report, ...(changes ? { baseline: changes } : {}) }, null, 2)}\n`
        : `${summary(report, changes)}\n`
    )
    process.exitCode = (changes ? changes.regressions.length > 0 : report.totals.passed < report.totals.cases) ? 1 : 0
  })

/**
 * `aeon export RUN --as-case`: the run as an eval case (its task, mode and budget; expected to converge) on stdout or
 * in --out, and with --report FILE an eval report naming the run, so that `aeon eval CASE --replay FILE` runs the case
 * from the run's recordings: a run a user saw go wrong becomes a regression test. (The recordings stay in the store.)
 */
export const exportRun = (o: {
  readonly runId: string
  readonly asCase: boolean
  readonly out: Option.Option<string>
  readonly report: Option.Option<string>
}) =>
  Effect.gen(function*() {
    if (!o.asCase) throw new CliError("say what to export the run as: --as-case (an eval case)")
    // the run's events (through the server holding the data directory, else the store): the case is what it ran
    const events = yield* eventsOf(o.runId)
    const started = events?.find((e) => e._tag === "RunStarted")
    if (events === undefined || started === undefined) throw new CliError(`run ${o.runId} does not exist`)
    const status = resultFromEvents(events).status
    const id = `run-${o.runId.slice(0, 8)}`
    const line = JSON.stringify({
      id,
      task: started.task,
      mode: started.mode,
      budget: Schema.encodeSync(Budget)(started.budget),
      expect: { status: "CONVERGED" }
    })
    // the case goes to stdout, or to --out with a line saying so (on stderr: stdout stays the case's when piped)
    if (Option.isSome(o.out)) {
      writeFileSync(o.out.value, `${line}\n`)
      process.stderr.write(`wrote eval case ${id} (run ${o.runId}) to ${o.out.value}\n`)
    } else process.stdout.write(`${line}\n`)
    if (Option.isSome(o.report)) {
      const passed = status === "CONVERGED"
      const report: Eval.EvalReport = {
        evalId: `export-${id}`,
        cases: [{
          id,
          runId: o.runId,
          status,
          passed,
          why: passed ? [] : [`status ${status}, expected CONVERGED`],
          passes: 0,
          llmCalls: 0,
          replayedCalls: 0,
          tokens: 0,
          costUsd: 0,
          wallMs: 0
        }],
        totals: { cases: 1, passed: passed ? 1 : 0, passRate: passed ? 1 : 0, costUsd: 0, wallP50Ms: 0, wallP95Ms: 0 }
      }
      writeFileSync(o.report.value, `${JSON.stringify(report, null, 2)}\n`)
      process.stderr.write(
        `wrote eval report ${o.report.value}: aeon eval ${
          Option.getOrElse(o.out, () => "CASES.jsonl")
        } --replay ${o.report.value} replays the run\n`
      )
    }
  })
