import { Effect } from "effect"
import { RunNotFoundError } from "../domain/Errors.js"
import * as RunJournal from "../journal/RunJournal.js"
import { foldEvents } from "../record/RunRecord.js"
import { resultOf } from "../record/RunResult.js"
import { RunStore } from "../store/RunStore.js"
import { cancelledEnd } from "./Run.js"

/**
 * A stored run no process executes (the CLI's, stopped to wait for a person, or left by a dead process) cancelled on
 * its log: it ends CANCELLED with what it had, as an interrupted run does. A run that has ended is as it was. Its
 * status, and whether this call ended it.
 */
export const cancelStored = (runId: string) =>
  Effect.gen(function*() {
    const past = yield* (yield* RunStore).events(runId)
    if (past.length === 0) return yield* new RunNotFoundError({ runId })
    const record = foldEvents(past)
    if (record.finished) return { status: record.finished.status, ended: false }
    const events = yield* RunJournal.make(runId, yield* RunJournal.EventSink, past)
    yield* events.emit(cancelledEnd(resultOf(record).usage)).pipe(Effect.ensuring(events.close))
    return { status: "CANCELLED", ended: true }
  })
