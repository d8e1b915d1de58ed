import { Schema } from "effect"
import { BudgetDimension } from "./Budget.js"

/** A budget would be crossed: the call or step was not made. */
export class BudgetExhaustedError extends Schema.TaggedError<BudgetExhaustedError>()("BudgetExhaustedError", {
  dimension: BudgetDimension,
  message: Schema.String
}) {}

/** The run's input is invalid; nothing was started. */
export class InvalidRunInputError extends Schema.TaggedError<InvalidRunInputError>()("InvalidRunInputError", {
  message: Schema.String
}) {}

export class RunNotFoundError extends Schema.TaggedError<RunNotFoundError>()("RunNotFoundError", {
  runId: Schema.String
}) {
  override get message() {
    return `run ${this.runId} does not exist`
  }
}

/**
 * A stored run whose events no longer decode (written by an older or broken version, or edited by hand). It is
 * listed with what its row holds; what needs its events answers with this error. The decoder's own message stays
 * in the server's log (`detail`), not in what a client sees.
 */
export class RunRecordDamagedError extends Schema.TaggedError<RunRecordDamagedError>()("RunRecordDamagedError", {
  runId: Schema.String,
  seq: Schema.Number,
  detail: Schema.String
}) {
  override get message() {
    return `the stored record of run ${this.runId} is damaged (event ${this.seq} cannot be read); only its stored summary is available`
  }
}
