import { Effect, Schema } from "effect"
import { RunNotFoundError } from "../domain/Errors.js"
import { ApprovalAnswered, GuidanceProvided } from "../domain/RunEvent.js"
import * as RunJournal from "../journal/RunJournal.js"
import * as Approval from "../kernel/Approval.js"
import type { AskedEvent } from "../record/Requests.js"
import { RunStore } from "../store/RunStore.js"

export type { ApprovalAnswer } from "../kernel/Approval.js"

/**
 * What a person answers a run that asked: an approval decision (a tool's call, a plan, more budget), or guidance —
 * the answer's fields as the events that record them hold them. The schema carries it between processes (the run
 * owner's Answer message: runs/RunOwners, a cluster's run entity).
 */
export const PersonAnswerSchema = Schema.Union(
  Schema.TaggedStruct("Approval", {
    requestId: Schema.String,
    answer: ApprovalAnswered.pick("decision", "input", "reason", "by")
  }),
  Schema.TaggedStruct("Guidance", GuidanceProvided.pick("requestId", "text", "by").fields)
)
export type PersonAnswer = typeof PersonAnswerSchema.Type

/**
 * A person's answer recorded on the run's log, checked against what the run asked (an unknown or answered request,
 * an edit its tool refuses: refused, coded, nothing recorded). The one way an answer reaches a run: the run waiting
 * for it goes on as the answer is recorded.
 */
export const answer = (events: RunJournal.RunJournal, a: PersonAnswer) =>
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
    const events = yield* RunJournal.make(runId, yield* RunJournal.EventSink, past)
    const request: AskedEvent | undefined = events.record().requests.get(a.requestId)?.request
    yield* answer(events, a).pipe(Effect.ensuring(events.close))
    return request
  })
