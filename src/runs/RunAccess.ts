import { Effect, Option } from "effect"
import { RunNotFoundError } from "../domain/Errors.js"
import { scopedRunId } from "../run/Run.js"
import { RunManager } from "./RunManager.js"
import type { RunModel } from "./RunModel.js"

/** A caller bound to a user sees only that user's runs. */
export const visibleTo = (userId: string | undefined, run: RunModel) => userId === undefined || run.userId === userId

/**
 * The caller's run by id: the id as given (a generated one, or a full `user:runId`), else for a user the id they
 * chose, scoped to them. Not found when it is another user's.
 */
export const ownRun = (userId: string | undefined, id: string) =>
  Effect.gen(function*() {
    const manager = yield* RunManager
    const asGiven = yield* manager.get(id)
    if (Option.isSome(asGiven) && visibleTo(userId, asGiven.value)) return asGiven.value
    const scoped = userId !== undefined && !id.includes(":")
      ? yield* manager.get(scopedRunId(userId, id))
      : Option.none()
    if (Option.isNone(scoped) || !visibleTo(userId, scoped.value)) return yield* new RunNotFoundError({ runId: id })
    return scoped.value
  })
