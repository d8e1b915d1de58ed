import { Context, Data, type Effect, Schema } from "effect"
import type { PersonAnswer } from "../run/Answers.js"

/** The cluster could not take a message for a run (its storage failed, or the runner's mailbox is full). */
export class ClusterUnavailableError extends Schema.TaggedError<ClusterUnavailableError>()("ClusterUnavailableError", {
  runId: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `the cluster could not take the request for run ${this.runId}; try again`
  }
}

/**
 * Where runs execute when they are not this process's own: on a cluster, a run is an entity on the runner that owns
 * its shard. `start` places a stored run there (persisted: it survives the runner); `cancel` reaches it wherever it is.
 */
export interface Placement {
  /** This runner's address (what a run it takes up records as its runner). */
  readonly runner: string
  readonly start: (runId: string) => Effect.Effect<void, ClusterUnavailableError>
  readonly cancel: (runId: string) => Effect.Effect<void, ClusterUnavailableError>
  /** A person's answer to a run waiting on its runner (approval or guidance), wherever the request came in. */
  readonly answer: (
    runId: string,
    answer: PersonAnswer
  ) => Effect.Effect<void, ClusterUnavailableError | ForwardedError>
}

export type { PersonAnswer }

/** A refusal from the runner that holds the run (ApprovalNotFoundError, …), with its code and message as they were. */
export class ForwardedError extends Data.Error<{ readonly _tag: string; readonly message: string }> {}
export class RunPlacement extends Context.Tag("aeon/RunPlacement")<RunPlacement, Placement>() {}
