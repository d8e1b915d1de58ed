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
