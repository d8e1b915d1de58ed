import { Effect } from "effect"
import { RunNotFoundError } from "../domain/Errors.js"
import * as Approval from "../kernel/Approval.js"
import * as RunEvents from "../kernel/RunEvents.js"
import type { AskedEvent } from "../record/Requests.js"
import { RunStore } from "../store/RunStore.js"

export type { ApprovalAnswer } from "../kernel/Approval.js"

/** What a person answers a run that asked: an approval decision (a tool's call, a plan, more budget), or guidance. */
export type PersonAnswer =
  | { readonly _tag: "Approval"; readonly requestId: string; readonly answer: Approval.ApprovalAnswer }
  | { readonly _tag: "Guidance"; readonly requestId: string; readonly text: string; readonly by?: string | undefined }

/**
 * A person's answer recorded on the run's log, checked against what the run asked (an unknown or answered request,
 * an edit its tool refuses: refused, coded, nothing recorded). The one way an answer reaches a run: the run waiting
 * for it goes on as the answer is recorded.
 */
export const answer = (events: RunEvents.RunEvents, a: PersonAnswer) =>
  a._tag === "Approval" ?
    Approval.respond(events, a.requestId, a.answer) :
    Approval.guide(events, a.requestId, a.text, a.by)

/**
 * A stopped run's request answered in its store (a run no process runs: the CLI's, stopped to wait): its log taken
 * up, the answer recorded as `answer` records it, the log closed. The run goes on when it is resumed. What it asked.
 */
export const answerStored = (runId: string, a: PersonAnswer) =>
  Effect.gen(function*() {
    const past = yield* (yield* RunStore).events(runId)
    if (past.length === 0) return yield* new RunNotFoundError({ runId })
    const events = yield* RunEvents.make(runId, yield* RunEvents.EventSink, past)
    const request: AskedEvent | undefined = events.record().requests.get(a.requestId)?.request
    yield* answer(events, a).pipe(Effect.ensuring(events.close))
    return request
  })
