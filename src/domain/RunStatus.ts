import { isOneOf } from "../support/OneOf.js"

/**
 * A run's status, the one list: read by the record (RunResult), the CLI's `--status`, the viewer's filter; GraphQL's
 * enum and the store's constraint say the same (a test checks GraphQL's against this list).
 */
export const RUN_STATUSES = [
  "QUEUED",
  "RUNNING",
  "AWAITING_INPUT",
  "CONVERGED",
  "NOT_CONVERGED",
  "FAILED",
  "CANCELLED"
] as const

export type RunStatus = (typeof RUN_STATUSES)[number]

/** The statuses a run ends in (RunFinished's): the rest of the list is a run on its way. */
export const FINAL_STATUSES = ["CONVERGED", "NOT_CONVERGED", "FAILED", "CANCELLED"] as const satisfies ReadonlyArray<
  RunStatus
>
export type FinalStatus = (typeof FINAL_STATUSES)[number]

/** Whether a run with this status has ended. */
export const isFinal = (status: string): status is FinalStatus => isOneOf(FINAL_STATUSES, status)
