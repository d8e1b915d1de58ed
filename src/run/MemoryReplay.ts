import { Effect, Option } from "effect"
import type { RunEvent } from "../domain/RunEvent.js"
import { noteOf, type Service as Memories } from "../store/Memories.js"

type Event<T extends RunEvent["_tag"]> = Extract<RunEvent, { _tag: T }>

/**
 * Memory as a run's log has it: what its plan prompt quoted (MemoryRecalled) and the plan it started from
 * (PlanReused), from its events; the rest of `base`. A resumed run plans with what it recalled before it stopped (or,
 * stopped before it recalled, with nothing: the same on every resume); a fork with what its source recalled — not
 * what the store holds now, where the source itself would be a memory to start from.
 */
export const asLogged = (events: ReadonlyArray<RunEvent>, base: Memories): Memories => {
  const recalled = events.find((e): e is Event<"MemoryRecalled"> => e._tag === "MemoryRecalled")?.memories ?? []
  const reused = events.find((e): e is Event<"PlanReused"> => e._tag === "PlanReused")
  const plan = reused &&
    events.find((e): e is Event<"PlanCreated"> => e._tag === "PlanCreated" && e.seq > reused.seq)?.plan
  return {
    ...base,
    recall: () => Effect.succeed(recalled),
    reusablePlan: () =>
      Effect.succeed(
        reused && plan
          ? Option.some({ runId: reused.fromRun, task: reused.task, plan, match: reused.match })
          : Option.none()
      )
  }
}

/** Memory that keeps nothing: a replay's (run/Replaying) remembers nothing and forgets nothing. */
const keepsNothing: Memories = {
  recall: () => Effect.succeed([]),
  reusablePlan: () => Effect.succeed(Option.none()),
  remember: (_, m) => Effect.succeed(noteOf(m, 0)),
  list: () => Effect.succeed({ memories: [], endCursor: null, hasNextPage: false }),
  forget: () => Effect.succeed(false),
  forgetAll: () => Effect.succeed(0),
  purgeOlderThan: () => Effect.succeed(0)
}

/** Memory as a recorded run had it, for its replay: its log's, keeping nothing. */
export const recordedMemories = (events: ReadonlyArray<RunEvent>): Memories => asLogged(events, keepsNothing)
