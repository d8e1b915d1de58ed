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
