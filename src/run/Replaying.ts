import { Effect, Option } from "effect"
import { NotReplayableError, RunNotFoundError } from "../domain/Errors.js"
import type { RunEvent } from "../domain/RunEvent.js"
import { beginsRun, reachesEnd } from "../record/RunRecord.js"
import type { RunResult } from "../record/RunResult.js"
import { Attachments } from "../store/Attachments.js"
import * as Database from "../store/Database.js"
import { Memories } from "../store/Memories.js"
import { RunStore } from "../store/RunStore.js"
import { fieldOf, stringField } from "../support/Fields.js"
import { create } from "./Fork.js"
import { recordedMemories } from "./MemoryReplay.js"
import { prepareResume } from "./Run.js"

/** A stored run's attachments with their bytes (those its input names by hash). */
const filesOf = (input: unknown) =>
  Effect.gen(function*() {
    const listed = fieldOf(input, "attachments")
    const named = (Array.isArray(listed) ? listed : []).flatMap((a: unknown) => {
      const sha256 = stringField(a, "sha256")
      const mediaType = stringField(a, "mediaType")
      return sha256 !== undefined && mediaType !== undefined ? [{ sha256, mediaType }] : []
    })
    const store = yield* Effect.serviceOption(Attachments)
    if (Option.isNone(store) || named.length === 0) return []
    return yield* Effect.forEach(named, (a) =>
      Effect.map(store.value.get(a.sha256), (data) => ({
        mediaType: a.mediaType,
        data: Option.getOrElse(data, () => "")
      })))
  })

/** Where a replay first departs from its recording: the recorded event (its seq) and what came instead. */
export interface Divergence {
  readonly seq: number
  readonly expected: { readonly type: string; readonly event: unknown } | undefined
  readonly got: { readonly type: string; readonly event: unknown } | undefined
}

/** What differs between two runs of the same work and says nothing about it: times, ids, the replay's own marks. */
const VOLATILE = new Set([
  "at",
  "seq",
  "runId",
  "latencyMs",
  "durationMs",
  "totalDurationMs",
  "durationSeconds",
  "startTime",
  "endTime",
  "totalTimeSeconds",
  "timingInformation",
  "replayed",
  "repeats",
  "startedAt",
  "finishedAt"
])

/** The event without its volatile fields, its keys in order (two events built in another order compare equal). */
const comparable = (e: RunEvent, rename: (text: string) => string): unknown =>
  JSON.parse(rename(JSON.stringify(e)), (k, v) => {
    if (VOLATILE.has(k)) return undefined
    if (v === null || typeof v !== "object" || Array.isArray(v)) return v
    return Object.fromEntries(Object.keys(v).sort().map((key) => [key, v[key]]))
  })

/**
 * The events a replay is compared on: the run's own, not the marks of a fork or a restart, nor its forecast (made
 * from the store's other runs and the time calls took, not from the run's recordings).
 */
const ownEvents = (events: ReadonlyArray<RunEvent>) =>
  events.filter((e) =>
    e._tag !== "RunForked" && e._tag !== "RunResumed" && e._tag !== "RunStarted" && e._tag !== "ForecastMade"
  )

/** The first event where `got` departs from `expected` (names renamed), or none: identical. */
export const firstDivergence = (
  expected: ReadonlyArray<RunEvent>,
  got: ReadonlyArray<RunEvent>,
  rename: (text: string) => string
): Divergence | undefined => {
  const [a, b] = [ownEvents(expected), ownEvents(got)]
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const [x, y] = [a[i], b[i]]
    const [cx, cy] = [x && comparable(x, (t) => t), y && comparable(y, rename)]
    if (JSON.stringify(cx) !== JSON.stringify(cy)) {
      return {
        seq: x?.seq ?? (a.at(-1)?.seq ?? 0) + 1,
        expected: x && { type: x._tag, event: cx },
        got: y && { type: y._tag, event: cy }
      }
    }
  }
  return undefined
}

/**
 * Runs a recorded run again with today's code, its model calls answered from its recordings only (a call that no
 * recording answers fails: nothing is sent anywhere), in a store of its own in memory (nothing is kept), and compares
 * the events: the first divergence, or none.
 */
export const replay = (sourceId: string) =>
  Effect.gen(function*() {
    const store = yield* RunStore
    const row = yield* store.getRun(sourceId)
    if (Option.isNone(row)) return yield* new RunNotFoundError({ runId: sourceId })
    const events = yield* store.events(sourceId)
    const started = events.find(beginsRun)
    if (!started) return yield* new RunNotFoundError({ runId: sourceId })
    // a run whose model calls were not recorded (AEON_RECORD_PROMPTS=0) has nothing to replay them from
    if (events.some((e) => e._tag === "LlmCalled" && e.call === undefined && e.replayed !== true)) {
      return yield* new NotReplayableError({
        runId: sourceId,
        message:
          `run ${sourceId} cannot be replayed: its model calls were not recorded (AEON_RECORD_PROMPTS was off when it ran)`
      })
    }
    // the task's files, read from the store they are in, for the store of the replay's own
    const files = yield* filesOf(row.value.input)
    const replayed = yield* Effect.gen(function*() {
      const memory = yield* RunStore
      const own = yield* Effect.serviceOption(Attachments)
      if (Option.isSome(own)) yield* Effect.forEach(files, (f) => own.value.put(f.mediaType, f.data), { discard: true })
      const { input, mode, task, userId } = row.value
      yield* memory.createRun({
        id: sourceId,
        userId: userId ?? undefined,
        task,
        mode,
        input,
        status: "RUNNING",
        allowBusyUser: true
      })
      yield* memory.append(events, reachesEnd(events) ? events : undefined)
      const { log, runId, source } = yield* create(sourceId, started.seq)
      const prepared = yield* prepareResume(runId, { pureReplay: true, known: { past: log, source } })
      const result: RunResult = yield* prepared.execute
      return { runId, result, log: yield* prepared.events.log }
    }).pipe(
      // memory as the run had it: what it recalled and the plan it reused, from its events
      Effect.provideService(Memories, recordedMemories(events)),
      Effect.provide(Database.layer({ dataDir: "memory" }))
    )
    const divergence = firstDivergence(events, replayed.log, (text) => text.replaceAll(replayed.runId, sourceId))
    return { sourceId, events: events.length, result: replayed.result, divergence }
  })
