import { Schema } from "effect"
import { BudgetDimension } from "./Budget.js"

/** A budget would be crossed: the call or step was not made. */
export class BudgetExhaustedError extends Schema.TaggedError<BudgetExhaustedError>()("BudgetExhaustedError", {
  dimension: BudgetDimension,
  message: Schema.String
}) {}

/**
 * The run's model provider failed in a way retrying cannot fix (nothing listens at its URL, an unknown host, a
 * refused key, an unknown model): the run ends at once, naming the URL and the cause, instead of asking again.
 */
export class ProviderFailedError extends Schema.TaggedError<ProviderFailedError>()("ProviderFailedError", {
  message: Schema.String
}) {}

/** What ends a run's work wherever it is raised: a budget that would be crossed, a provider that cannot serve it. */
export type RunHalt = BudgetExhaustedError | ProviderFailedError

/** Whether a failure ends the run's work (it is never absorbed into a step failure or an advisory). */
export const isRunHalt = (e: { readonly _tag: string }): e is RunHalt =>
  e._tag === "BudgetExhaustedError" || e._tag === "ProviderFailedError"

/**
 * The store cannot take a run's events now for a reason that can pass by itself (the disk full, an I/O error, the
 * database away or read-only): the run's writer tries again while the run waits.
 */
export class StoreUnavailableError extends Schema.TaggedError<StoreUnavailableError>()("StoreUnavailableError", {
  /** Why, in words a person can act on. */
  cause: Schema.String
}) {
  override get message() {
    return `the store cannot take the run's events now: ${this.cause}`
  }
}

/**
 * The store stayed away past AEON_STORE_OUTAGE_MS while a run's events waited: the run's attempt ends in this
 * process (what was stored stays; nothing is marked failed) and the run resumes once the store is back.
 */
export class StoreOutageError extends Schema.TaggedError<StoreOutageError>()("StoreOutageError", {
  runId: Schema.String,
  cause: Schema.String,
  waitedMs: Schema.Number
}) {
  override get message() {
    return `the store failed: ${this.cause} (its writes waited ${Math.round(this.waitedMs / 100) / 10} s)`
  }
}

/** The user's quota (AEON_QUOTAS) has no room for the run or the call: what is left and when it resets. */
export class QuotaExceededError extends Schema.TaggedError<QuotaExceededError>()("QuotaExceededError", {
  userId: Schema.String,
  message: Schema.String
}) {}

/** The run's input is invalid; nothing was started. */
export class InvalidRunInputError extends Schema.TaggedError<InvalidRunInputError>()("InvalidRunInputError", {
  message: Schema.String
}) {}

/**
 * A run's output schema no provider can take, refused before the run starts: `rule` says which rule it broke
 * (not_an_object, invalid_schema, remote_ref, too_large, too_deep, unsupported_keyword, strict_unsupported).
 */
export class InvalidOutputSchemaError
  extends Schema.TaggedError<InvalidOutputSchemaError>()("InvalidOutputSchemaError", {
    rule: Schema.String,
    message: Schema.String
  })
{}

export class RunNotFoundError extends Schema.TaggedError<RunNotFoundError>()("RunNotFoundError", {
  runId: Schema.String
}) {
  override get message() {
    return `run ${this.runId} does not exist`
  }
}

/** No thread of the caller has this id (another user's thread is not found either: thread ids are per user). */
export class ThreadNotFoundError extends Schema.TaggedError<ThreadNotFoundError>()("ThreadNotFoundError", {
  threadId: Schema.String
}) {
  override get message() {
    return `thread ${this.threadId} does not exist`
  }
}

/**
 * A turn of the thread is under way (queued, running or waiting for a person): the next turn is refused until it ends,
 * so that every turn sees the one before it — on one server or across a cluster.
 */
/** A run that has not ended cannot be erased: it is cancelled first. */
export class RunUnfinishedError extends Schema.TaggedError<RunUnfinishedError>()("RunUnfinishedError", {
  runId: Schema.String,
  status: Schema.String
}) {
  override get message() {
    return `run ${this.runId} has not ended (${this.status}): cancel it first (cancelRun, aeon cancel ${this.runId})`
  }
}

export class ThreadBusyError extends Schema.TaggedError<ThreadBusyError>()("ThreadBusyError", {
  threadId: Schema.String,
  runId: Schema.optional(Schema.String)
}) {
  override get message() {
    return `thread ${this.threadId} has a turn under way${
      this.runId ? ` (run ${this.runId})` : ""
    }: send the next message when it has ended`
  }
}

/** A task's file or image the run's model cannot read (its media type, or by URL): refused before the run starts. */
export class AttachmentRefusedError extends Schema.TaggedError<AttachmentRefusedError>()("AttachmentRefusedError", {
  message: Schema.String
}) {}

/** A run that cannot be replayed from its recordings (its model calls were not recorded). */
export class NotReplayableError extends Schema.TaggedError<NotReplayableError>()("NotReplayableError", {
  runId: Schema.String,
  message: Schema.String
}) {}

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

/** An answer names a request the run does not have. */
export class ApprovalNotFoundError extends Schema.TaggedError<ApprovalNotFoundError>()("ApprovalNotFoundError", {
  runId: Schema.String,
  requestId: Schema.String
}) {
  override get message() {
    return `run ${this.runId} has no approval request ${this.requestId}`
  }
}

/** A request already answered (by a person or by its timeout): the first answer stands. */
export class ApprovalAlreadyAnsweredError
  extends Schema.TaggedError<ApprovalAlreadyAnsweredError>()("ApprovalAlreadyAnsweredError", {
    requestId: Schema.String,
    decision: Schema.String
  })
{
  override get message() {
    return `approval request ${this.requestId} was already answered (${this.decision})`
  }
}

/** An edited input the tool's schema refuses: the request stays open. */
export class ApprovalInputError extends Schema.TaggedError<ApprovalInputError>()("ApprovalInputError", {
  message: Schema.String
}) {}

/** The run is not running here (finished, or not resumed yet): nothing can answer for it. */
export class RunNotWaitingError extends Schema.TaggedError<RunNotWaitingError>()("RunNotWaitingError", {
  runId: Schema.String,
  status: Schema.String
}) {
  override get message() {
    return `run ${this.runId} is not waiting for input (status ${this.status})`
  }
}
