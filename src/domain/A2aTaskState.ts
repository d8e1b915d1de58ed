import type { RunStatus } from "./RunStatus.js"

/** A2A's task states, by the protocol's names (as its JSON and `@a2a-js/sdk`'s TaskState enum have them). */
export type A2aTaskState =
  | "TASK_STATE_SUBMITTED"
  | "TASK_STATE_WORKING"
  | "TASK_STATE_INPUT_REQUIRED"
  | "TASK_STATE_COMPLETED"
  | "TASK_STATE_CANCELED"
  | "TASK_STATE_FAILED"

/**
 * The A2A task state a run is in — one rule for a task read (tasks/get, message/send) and for a push notification.
 * A run that ended without an answer it stands behind (not converged: a budget ran out, the checks never agreed;
 * converged with no answer) is FAILED: its best answer is the artifact, and the status message says why.
 */
export const a2aTaskState = (status: RunStatus, answered: boolean): A2aTaskState => {
  switch (status) {
    case "QUEUED":
      return "TASK_STATE_SUBMITTED"
    case "RUNNING":
      return "TASK_STATE_WORKING"
    case "AWAITING_INPUT":
      return "TASK_STATE_INPUT_REQUIRED"
    case "CANCELLED":
      return "TASK_STATE_CANCELED"
    case "FAILED":
    case "NOT_CONVERGED":
      return "TASK_STATE_FAILED"
    case "CONVERGED":
      return answered ? "TASK_STATE_COMPLETED" : "TASK_STATE_FAILED"
  }
}
