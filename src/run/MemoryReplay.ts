import { Effect, Option } from "effect"
import type { RunEvent } from "../domain/RunEvent.js"
import type { Service as Memories } from "../store/Memories.js"

type Event<T extends RunEvent["_tag"]> = Extract<RunEvent, { _tag: T }>

/**
 * Memory as a recorded run had it, for its replay (run/Replaying): the memories its plan prompt quoted and the plan it
 * started from, from its MemoryRecalled and PlanReused events — not what a store holds now (the replay's own store
 * holds the run itself, which would be its own memory). A replay remembers nothing.
 */
export const recordedMemories = (events: ReadonlyArray<RunEvent>): Memories => {
  const recalled = events.find((e): e is Event<"MemoryRecalled"> => e._tag === "MemoryRecalled")?.memories ?? []
  const reused = events.find((e): e is Event<"PlanReused"> => e._tag === "PlanReused")
  const plan = reused &&
    events.find((e): e is Event<"PlanCreated"> => e._tag === "PlanCreated" && e.seq > reused.seq)?.plan
  return {
    recall: () => Effect.succeed(recalled),
    reusablePlan: () =>
      Effect.succeed(
        reused && plan
          ? Option.some({ runId: reused.fromRun, task: reused.task, plan, match: reused.match })
          : Option.none()
      ),
    remember: (_, m) =>
      Effect.succeed({
        id: "replayed",
        kind: "noted" as const,
        text: m.text,
        task: m.task,
        runId: m.runId ?? null,
        stepId: m.stepId ?? null,
        passNumber: m.passNumber ?? null,
        tags: [...(m.tags ?? [])],
        createdAt: new Date(0).toISOString()
      }),
    list: () => Effect.succeed({ memories: [], endCursor: null, hasNextPage: false }),
    forget: () => Effect.succeed(false),
    forgetAll: () => Effect.succeed(0),
    purgeOlderThan: () => Effect.succeed(0)
  }
}
