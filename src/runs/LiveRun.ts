import { Context, type Deferred, type Effect, type Fiber } from "effect"
import type { RunTail } from "../journal/RunTail.js"
import type * as Answers from "../run/Answers.js"
import type { prepare, PreparedRun, prepareResume } from "../run/Run.js"

/** What setting a run up, resuming it and answering it need from the server's layer. */
export type RunNeeds =
  | Effect.Effect.Context<ReturnType<typeof prepare>>
  | Effect.Effect.Context<ReturnType<typeof prepareResume>>
  | Effect.Effect.Context<ReturnType<typeof Answers.answer>>

/** A run going on (or waiting to be admitted) in this process. */
export interface LiveRun {
  readonly prepared: PreparedRun
  readonly userId: string | null
  readonly createdAt: Date
  fiber?: Fiber.RuntimeFiber<unknown, unknown>
  /** Done when this attempt has ended: the run finished, stopped here, or was taken up again by the next attempt. */
  readonly done: Deferred.Deferred<void>
  /** Cancelled by a person (on a cluster, any other interruption hands the run over: it stays unfinished). */
  cancelled?: boolean
  /** Taken up by another process (this one no longer holds it): it stops here, writing nothing more. */
  lost?: boolean
}

/**
 * The runs executing in this process as their readers see them (runs/RunReads, runs/RunJournals): looked up, never
 * started or stopped — reading sits below executing (runs/LiveRuns provides it).
 */
export interface RunsHereView {
  readonly live: (runId: string) => LiveRun | undefined
  /**
   * The run's tail (journal/RunTail) while an attempt runs here, or while someone follows a run waiting here to be
   * taken up again: every attempt publishes into it.
   */
  readonly tail: (runId: string) => RunTail | undefined
}

export class RunsHere extends Context.Tag("aeon/RunsHere")<RunsHere, RunsHereView>() {}
