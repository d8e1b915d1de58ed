import { Clock, Data, Duration, Effect, Option, Schedule, Schema } from "effect"
import { RunNotFoundError } from "../domain/Errors.js"
import { ApprovalAnswered, GuidanceProvided } from "../domain/RunEvent.js"
import * as RunJournal from "../journal/RunJournal.js"
import * as Approval from "../kernel/Approval.js"
import type { AskedEvent } from "../record/Requests.js"
import { foldEvents } from "../record/RunRecord.js"
import { AnswerInbox, LEASE_MS } from "../store/AnswerInbox.js"
import { RunStore } from "../store/RunStore.js"

export type { ApprovalAnswer } from "../kernel/Approval.js"

/**
 * What a person answers a run that asked: an approval decision (a tool's call, a plan, more budget), or guidance —
 * the answer's fields as the events that record them hold them. The schema carries it between processes (a cluster's
 * Answer message, the answer inbox).
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

/** How often a posted answer's outcome is looked at. */
const ANSWER_POLL_MS = 100

/** The process holding the run refused the answer (its own coded error, as it said it). */
export class AnswerRefusedError extends Data.TaggedError("AnswerRefusedError")<{
  readonly code: string
  readonly reason: string
}> {
  override get message() {
    return `${this.code}: ${this.reason}`
  }
}

/** What asking the run was (its request's event), read from its stored log. */
const askedIn = (runId: string, requestId: string) => (store: RunStore["Type"]) =>
  Effect.map(store.events(runId), (past): AskedEvent | undefined => foldEvents(past).requests.get(requestId)?.request)

/**
 * A person's answer given in a process that does not execute the run (the CLI): posted to the process that holds it
 * (store/AnswerInbox), which records it on the log it writes — a run's log has one writer —, waited for until it says
 * it did (or refused, the refusal coded); answered on the stored log when no process holds the run (it goes on when
 * resumed). What the run asked, and whether a process running it took the answer.
 */
export const answerAnywhere = (runId: string, a: PersonAnswer) =>
  Effect.gen(function*() {
    const store = yield* RunStore
    const inbox = Option.getOrUndefined(yield* Effect.serviceOption(AnswerInbox))
    const held = inbox ? yield* inbox.holderOf(runId, yield* Clock.currentTimeMillis) : Option.none()
    if (!inbox || Option.isNone(held)) return { request: yield* answerStored(runId, a), heldBy: undefined }
    const id = yield* inbox.post(runId, Schema.encodeSync(PersonAnswerSchema)(a))
    const settled = yield* posted(inbox, runId, id).pipe(
      Effect.retry({ schedule: Schedule.spaced(Duration.millis(ANSWER_POLL_MS)), while: (e) => e._tag === "NotYet" })
    )
    if (settled === "withdrawn") return { request: yield* answerStored(runId, a), heldBy: undefined }
    return { request: yield* askedIn(runId, a.requestId)(store), heldBy: held.value }
  })

/** A posted answer not settled yet: looked at again. */
class NotYet extends Data.TaggedError("NotYet") {}

/**
 * One look at a posted answer: recorded by the holder ("recorded"), refused (its coded error), taken back because
 * its holder let the run go without taking it ("withdrawn": the poster answers on the stored log), or NotYet.
 * Taken and then let go without a word for a lease: its holder died.
 */
const posted = (inbox: AnswerInbox["Type"], runId: string, id: string) => {
  let lapsedAt: number | undefined
  return Effect.gen(function*() {
    const outcome = yield* inbox.outcome(id)
    if (Option.isSome(outcome)) {
      if (outcome.value.ok) return "recorded" as const
      return yield* new AnswerRefusedError({ code: outcome.value.code, reason: outcome.value.message })
    }
    const now = yield* Clock.currentTimeMillis
    if (Option.isSome(yield* inbox.holderOf(runId, now))) return yield* new NotYet()
    if (yield* inbox.take(id, "withdrawn")) return "withdrawn" as const
    lapsedAt ??= now
    if (now - lapsedAt <= LEASE_MS) return yield* new NotYet()
    return yield* new AnswerRefusedError({
      code: "HolderStopped",
      reason: `the process running run ${runId} took the answer and stopped before saying it recorded it: see the run`
    })
  })
}
