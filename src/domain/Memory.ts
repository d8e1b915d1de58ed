import { Schema } from "effect"

/**
 * What a memory is: a converged run's final answer (`answer`), the output of one of its validated, complete steps
 * (`step`), or a note the model kept with the `memory.remember` tool (`noted`).
 */
export const MemoryKind = Schema.Literal("answer", "step", "noted")
export type MemoryKind = typeof MemoryKind.Type

/** What a memory says and where it came from: the run, its step and pass, and the task that run answered. */
const MemoryFields = {
  id: Schema.String,
  kind: MemoryKind,
  text: Schema.String,
  task: Schema.String,
  runId: Schema.NullOr(Schema.String),
  stepId: Schema.NullOr(Schema.String),
  passNumber: Schema.NullOr(Schema.Int)
}

/** A memory of a user, with its source, tags and time. */
export const Memory = Schema.Struct({
  ...MemoryFields,
  tags: Schema.Array(Schema.String),
  createdAt: Schema.String
})
export type Memory = typeof Memory.Type

/** A memory given to a run's planner, and why: the share of the task's words it holds (0–1) and its search rank. */
export const RecalledMemory = Schema.Struct({
  ...MemoryFields,
  /** The share of the query's content words the memory holds (what the threshold is on). */
  coverage: Schema.Number,
  /** Its place in the store's full-text ranking (1: the best). */
  rank: Schema.Int
})
export type RecalledMemory = typeof RecalledMemory.Type
