import type { Deferred, Effect, Fiber } from "effect"
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
