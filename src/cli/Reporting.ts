import { Cause, Effect, Logger, Option } from "effect"
import { StoreOutageError } from "../domain/Errors.js"
import { stringField } from "../support/Fields.js"

/** What a command says to a person: its failure, once, without a stack; what a run says while it goes. */

export const fail = (e: unknown) =>
  Effect.sync(() => {
    const message = stringField(e, "message") ?? String(e)
    process.stderr.write(`aeon: ${message}\n`)
    process.exitCode = 1
  })

/**
 * The failure (typed error or thrown CliError) of a command, reported without a stack. A store that stayed away past
 * AEON_STORE_OUTAGE_MS: exit 4, and how to go on once it is back.
 */
export const report = (cause: Cause.Cause<unknown>) => {
  const failure = Option.getOrElse(Cause.failureOption(cause), () => Cause.squash(cause))
  if (!(failure instanceof StoreOutageError)) return fail(failure)
  return Effect.sync(() => {
    process.stderr.write(`aeon: ${failure.message}; resume with: aeon run --resume ${failure.runId}\n`)
    process.exitCode = 4
  })
}

/**
 * What a run says while it goes on (its store failing, then answering again), to a person on stderr — never on
 * stdout, which holds the answer or the --json document.
 */
export const personLogger = Logger.make(({ logLevel, message }) => {
  if (logLevel._tag === "Debug" || logLevel._tag === "Trace") return
  process.stderr.write(`aeon: ${Array.isArray(message) ? message.join(" ") : String(message)}\n`)
})
