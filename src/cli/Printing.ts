import { Effect } from "effect"
import type { RunResult } from "../record/RunResult.js"
import { answerShown, jsonResult, planForecastLines, problemLines, standInLabel, summaryLine } from "./Render.js"

/** How `aeon run` ends: the run's result printed (or its --json document), and the exit code it says. */

/** A run's result as `aeon run` prints it, and its exit code. */
export const printResult = (result: RunResult, json: boolean, typed = false) =>
  Effect.gen(function*() {
    if (result.terminationReason === "dry_run") return yield* dryRunDone(result, json)
    const answer = result.finalAnswer
    if (json) process.stdout.write(`${JSON.stringify(jsonResult(result), null, 2)}\n`)
    else if (typed && answer?.data === undefined) {
      // a typed run without a value (no convergence): stdout stays empty — a script reads no value — and why is said
      if (answer) process.stderr.write(`${answer.answerText}\n`)
      for (const line of problemLines(result)) process.stderr.write(`${line}\n`)
      process.stderr.write(`${summaryLine(result, false)}\n`)
    } else if (answer?.data !== undefined) {
      // a typed run: stdout is the value's JSON (what a script pipes on), the rest is said to a person on stderr
      process.stdout.write(`${answerShown(answer)}\n`)
      process.stderr.write(standInLabel(result))
      for (const line of problemLines(result)) process.stderr.write(`${line}\n`)
      process.stderr.write(`${summaryLine(result, false)}\n`)
    } else {
      if (answer) process.stdout.write(`\n${standInLabel(result)}${answerShown(answer)}\n\n`)
      // a failure's error once: in the problem lines, not again in the summary
      for (const line of problemLines(result)) process.stdout.write(`${line}\n`)
      process.stdout.write(`${summaryLine(result, false)}\n`)
    }
    process.exitCode = result.status === "CONVERGED" ? 0 : result.status === "FAILED" ? 1 : 2
    // with --json, stdout is the document: the failure is said once more to a person, on stderr
    if (result.status === "FAILED" && json) {
      process.stderr.write(`aeon: the run failed: ${result.error ?? result.terminationReason}\n`)
    }
  })

/** A dry run's plan and forecast (`--json`: `{ plan, forecast, usage }`), exit 0. */
export const dryRunDone = (result: RunResult, json: boolean) =>
  Effect.sync(() => {
    if (json) {
      const { forecast, plan, usage } = result
      process.stdout.write(`${JSON.stringify({ runId: result.runId, plan, forecast, usage }, null, 2)}\n`)
    } else {
      if (result.plan) process.stdout.write(`\n${planForecastLines(result.plan, result.forecast).join("\n")}\n\n`)
      process.stdout.write(`${summaryLine(result)}\n`)
    }
    process.exitCode = 0
  })
