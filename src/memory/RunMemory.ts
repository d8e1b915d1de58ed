import { Data, type Effect, type Option } from "effect"
import type { Memory, RecalledMemory } from "../domain/Memory.js"
import type { ReusablePlan } from "./PlanReuse.js"

/** The store could not read or keep a memory: the run goes on without it, and says so. */
export class MemoryFailedError extends Data.TaggedError("MemoryFailedError")<{ readonly reason: string }> {}

/** A note the model keeps with `memory.remember`, where in the run it was kept. */
export interface NoteToKeep {
  readonly text: string
  readonly tags?: ReadonlyArray<string> | undefined
  readonly stepId?: string | undefined
  readonly passNumber?: number | undefined
}

/**
 * Memory across runs as one run sees it: its user's memories, bound by the run's session (run/Session) to the run's
 * user and input. Absent when the run's memory is off (its input's `memory: false`, AEON_MEMORY=off, no store).
 */
export interface RunMemory {
  /** The user's memories most relevant to `query`, best first. */
  readonly recall: (query: string, limit?: number) => Effect.Effect<ReadonlyArray<RecalledMemory>, MemoryFailedError>
  /** The plan the run's task may start from; absent when the input turns plan reuse off. */
  readonly reusablePlan?: Effect.Effect<Option.Option<ReusablePlan>, MemoryFailedError> | undefined
  readonly remember: (note: NoteToKeep) => Effect.Effect<Memory, MemoryFailedError>
}

/** The notes a step's tools keep and read (tools/ToolRegistry's `memory.remember` and `memory.recall`). */
export const notesAt = (memory: RunMemory, stepId: string, passNumber: number) => ({
  remember: (text: string, tags?: ReadonlyArray<string>) => memory.remember({ text, tags, stepId, passNumber }),
  recall: (query: string, limit?: number) => memory.recall(query, limit)
})
