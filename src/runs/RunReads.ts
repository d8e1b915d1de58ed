import { Context, Effect, Layer, Option, Schema, Stream, SubscriptionRef } from "effect"
import { RunNotFoundError, type RunRecordDamagedError } from "../domain/Errors.js"
import type { RunEvent } from "../domain/RunEvent.js"
import { RunMode } from "../domain/SimpleIteration.js"
import type { LlmOutputDelta } from "../journal/RunOutput.js"
import { foldEvents } from "../record/RunRecord.js"
import { resultOf, type RunStatus } from "../record/RunResult.js"
import { RunStore, type StoredRun, type StoreError } from "../store/RunStore.js"
import { StoreOutages } from "../store/StoreOutages.js"
import { fieldOf, stringField } from "../support/Fields.js"
import { feed, feedBatches, type FeedSource } from "./EventFeed.js"
import { type LiveRun, RunsHere } from "./LiveRun.js"
import { outputFeed } from "./OutputFeed.js"
import { RunPlacement } from "./Placement.js"
import { type FollowError, layer as journalsLayer, RunJournals } from "./RunJournals.js"
import type { RunFile, RunModel } from "./RunModel.js"
import { storeWaitChanges, storeWaitOf, type StoreWaitView } from "./StoreWaitFeed.js"

/** The API's read model: runs as resolvers see them (live here, or as stored), listed, followed. */
export interface Reads {
  readonly get: (runId: string) => Effect.Effect<Option.Option<RunModel>, StoreError>
  readonly getOrFail: (runId: string) => Effect.Effect<RunModel, StoreError | RunNotFoundError>
  readonly list: Context.Tag.Service<typeof RunStore>["listRuns"]
  /** Replay from fromSeq, then live, as a subscription's iterator of views; a finished run replays from the store. */
  readonly follow: <A>(
    runId: string,
    fromSeq: number,
    view: (event: RunEvent) => A
  ) => Effect.Effect<AsyncIterableIterator<A>, FollowError>
  /** The same as lists of events, one per burst (runEventBatches). */
  readonly followBatches: <A>(
    runId: string,
    fromSeq: number,
    view: (events: ReadonlyArray<RunEvent>) => A
  ) => Effect.Effect<AsyncIterableIterator<A>, FollowError>
  /** The live output of a run's model calls (runOutput); a run not running here ends with it, with no pieces. */
  readonly followOutput: <A>(
    runId: string,
    view: (delta: LlmOutputDelta) => A
  ) => Effect.Effect<AsyncIterableIterator<A>, FollowError>
  /** Whether the run's events wait for its store now, then each change, until the run ends (runStoreWaits). */
  readonly followStoreWaits: <A>(runId: string, view: (wait: StoreWaitView) => A) => Effect.Effect<AsyncIterable<A>>
  /** Whether the run's events wait for its store now (read from memory: answered while the store is away). */
  readonly storeWait: (runId: string) => StoreWaitView
  /** Subscriptions open now. */
  readonly subscriptions: () => number
}

export class RunReads extends Context.Tag("aeon/RunReads")<RunReads, Reads>() {}

/** A run as the API shows it: its row (when stored) and the fold of its events (kept up to date for a live run). */
const modelOf = (runner: string | null) =>
(
  row: StoredRun | undefined,
  id: string,
  events: ReadonlyArray<RunEvent>,
  live?: LiveRun
): RunModel => {
  const record = live?.prepared.events.record() ?? foldEvents(events)
  const lastAt = events.at(-1)?.at
  const result = resultOf(record)
  const started = record.started !== undefined
  const status: RunStatus = result.status === "RUNNING" ? (started ? "RUNNING" : "QUEUED") : result.status
  return {
    id,
    userId: row?.userId ?? live?.userId ?? null,
    runner: row?.runner ?? runner,
    status,
    createdAt: row?.createdAt ?? live?.createdAt ?? new Date(result.startedAt),
    updatedAt: lastAt !== undefined ? new Date(lastAt) : row?.updatedAt ?? new Date(),
    result: {
      ...result,
      runId: id,
      task: result.task || live?.prepared.input.task || row?.task || "",
      mode: started ? result.mode : live?.prepared.input.mode ?? result.mode
    },
    files: filesOf(live?.prepared.input.attachments ?? fieldOf(row?.input, "attachments")),
    events,
    record
  }
}

/** The files an input names, read as far as they are files (no bytes: a stored input names their hash). */
const filesOf = (attachments: unknown): ReadonlyArray<RunFile> =>
  Array.isArray(attachments)
    ? attachments.flatMap((a): Array<RunFile> => {
      const mediaType = stringField(a, "mediaType")
      if (mediaType === undefined) return []
      return [{ mediaType, name: stringField(a, "name"), sha256: stringField(a, "sha256"), url: stringField(a, "url") }]
    })
    : []

const isRunMode = Schema.is(RunMode)

/** A run whose stored events do not decode, served from its row; what needs its events fails, coded. */
const damagedModel = (m: RunModel, row: StoredRun, damaged: RunRecordDamagedError): RunModel => ({
  ...m,
  status: row.status,
  result: { ...m.result, mode: isRunMode(row.mode) ? row.mode : m.result.mode },
  damaged
})

const make = Effect.gen(function*() {
  const store = yield* RunStore
  const runs = yield* RunsHere
  const journals = yield* RunJournals
  const model = modelOf(Option.getOrNull(Option.map(yield* Effect.serviceOption(RunPlacement), (p) => p.runner)))
  const outages = Option.getOrUndefined(yield* Effect.serviceOption(StoreOutages))
  const runtime = yield* Effect.runtime<never>()
  let subscriptions = 0

  const stored = (id: string, row: StoredRun) =>
    store.events(id).pipe(
      Effect.map((events) => model(row, id, events)),
      Effect.catchTag("RunRecordDamagedError", (damaged) =>
        Effect.as(
          Effect.logWarning(`run ${id} is damaged: event ${damaged.seq}: ${damaged.detail}`),
          damagedModel(model(row, id, []), row, damaged)
        ))
    )

  const get = (id: string) =>
    Effect.gen(function*() {
      const entry = runs.live(id)
      if (entry) return Option.some(model(undefined, id, yield* entry.prepared.events.log, entry))
      const row = yield* store.getRun(id)
      return Option.isNone(row) ? Option.none<RunModel>() : Option.some(yield* stored(id, row.value))
    })

  const counted = <A>(id: string, fromSeq: number, iterate: (source: FeedSource, onClose: () => void) => A) =>
    Effect.map(journals.events(id, fromSeq), (source) => {
      subscriptions++
      return iterate(source, () => void subscriptions--)
    })

  return RunReads.of({
    get,
    getOrFail: (id) =>
      Effect.flatMap(
        get(id),
        Option.match({
          onNone: () => Effect.fail(new RunNotFoundError({ runId: id })),
          onSome: Effect.succeed
        })
      ),
    list: store.listRuns,
    follow: (id, fromSeq, view) => counted(id, fromSeq, (source, onClose) => feed(source, view, onClose)),
    followBatches: (id, fromSeq, view) => counted(id, fromSeq, (source, onClose) => feedBatches(source, view, onClose)),
    followOutput: (id, view) =>
      Effect.map(journals.output(id), (source) => {
        subscriptions++
        return outputFeed(source, view, () => void subscriptions--)
      }),
    followStoreWaits: (id, view) =>
      Effect.sync(() => {
        subscriptions++
        return Stream.toAsyncIterableRuntime(
          storeWaitChanges(
            outages,
            id,
            journals.ended(id)
          ).pipe(
            Stream.map(view),
            Stream.ensuring(Effect.sync(() => void subscriptions--))
          ),
          runtime
        )
      }),
    storeWait: (id) => storeWaitOf(outages ? Effect.runSync(SubscriptionRef.get(outages.waiting)) : new Map(), id),
    subscriptions: () => subscriptions
  })
})

export const layer = Layer.effect(RunReads, make).pipe(Layer.provideMerge(journalsLayer))
