import type { RunResult, RunStatus } from "../record/RunResult.js"

/** A run as resolvers see it: its stored row and the result folded from its events. */
/** A file a run's task carried: its name and media type, and its hash in the store or its URL. */
export interface RunFile {
  readonly name?: string | undefined
  readonly mediaType: string
  readonly sha256?: string | undefined
  readonly url?: string | undefined
}

export interface RunModel {
  readonly id: string
  readonly userId: string | null
  readonly status: RunStatus
  readonly createdAt: Date
  readonly updatedAt: Date
  /** On a cluster: the runner that took the run up last. */
  readonly runner?: string | null
  readonly result: RunResult
  /** The files and images its task carried, as its input names them (their bytes stay in the store, by hash). */
  readonly files: ReadonlyArray<RunFile>
  readonly events: ReadonlyArray<import("../domain/RunEvent.js").RunEvent>
  /** The one fold of the events: result, trace and metadata are projections of it. */
  readonly record: import("../record/RunRecord.js").RunRecord
  /** Set when the stored events do not decode: the run is served from its row, its event-derived fields fail with this. */
  readonly damaged?: import("../domain/Errors.js").RunRecordDamagedError | undefined
}
