import { Clock, Effect, type Scope, Stream } from "effect"
import type { TextSink } from "../llm/LanguageModel.js"
import { PromptId } from "../prompts/PromptId.js"
import * as Fanout from "../support/Fanout.js"
import { partialStringField } from "../support/PartialJson.js"

/**
 * A piece of a model call's output as it is written: what was appended since the call's previous piece (`text`), and
 * for a structured answer its readable text so far (`answerText`). Never stored: the call's LlmCalled event is its
 * record; these are for people watching.
 */
export interface LlmOutputDelta {
  readonly runId: string
  /** The call's id in the run's live output (unique within the run: the log's last event when it began, and a count). */
  readonly callId: string
  readonly promptId: string
  readonly passNumber?: number | undefined
  readonly stepId?: string | undefined
  /** The last event of the run's log when the piece was sent. */
  readonly afterSeq: number
  readonly text: string
  readonly answerText?: string | undefined
  /** The call has ended: nothing more comes for it. */
  readonly done: boolean
}

/** Where in the run a call is made (its pass and step, as the kernel sets them). */
export interface CallSite {
  readonly promptId: string
  readonly passNumber?: number | undefined
  readonly stepId?: string | undefined
}

export interface OutputFollowing {
  /** The text so far of each call in progress, one piece per call. */
  readonly past: ReadonlyArray<LlmOutputDelta>
  /** The run has ended: nothing will come. */
  readonly finished: boolean
  readonly stop: () => void
}

export interface RunOutput {
  /** A call begins: where its text goes as it is written. */
  readonly open: (site: CallSite) => Effect.Effect<TextSink>
  /** The calls in progress, then every piece as it is sent, until `stop` or the run's end (`onEnd`). */
  readonly follow: (onDelta: (delta: LlmOutputDelta) => void, onEnd: () => void) => OutputFollowing
  /** The same as a Stream, ending with the run. */
  readonly stream: Stream.Stream<LlmOutputDelta>
  /**
   * This attempt's output has ended: the run's (its followers are told; later ones get nothing), or only this attempt's
   * when the run goes on in another (its calls cut short end, its followers stay for the next attempt's calls).
   */
  readonly end: (runEnded?: boolean) => void
}

/** The field whose text a person reads in a structured answer, per prompt; `""`: the whole text (a typed answer's JSON). */
const READABLE_FIELD: Partial<Record<string, string>> = {
  [PromptId.ANSWER_SYNTHESIS_USER]: "answerText",
  [PromptId.ANSWER_TYPED_USER]: "",
  [PromptId.REASONING_STEP_USER]: "stepOutput"
}

export const DEFAULT_INTERVAL_MS = 50

interface CallState {
  readonly id: string
  readonly site: CallSite
  /** What followers have been sent, and what waits for the next piece. */
  sent: string
  pending: string
  lastSentAt: number
  timer: boolean
  closed: boolean
}

/** What a run's calls share of its output: where pieces go, how often, and the calls in progress. */
interface Outlet {
  readonly runId: string
  readonly intervalMs: number
  readonly lastSeq: () => number
  readonly scope: Scope.Scope
  readonly followers: Fanout.Fanout<LlmOutputDelta>
  readonly calls: Map<string, CallState>
}

/** A piece of a call: its text since the last piece, and for a structured answer its readable text so far. */
const deltaOf = (out: Outlet, call: CallState, text: string, done: boolean): LlmOutputDelta => {
  const field = READABLE_FIELD[call.site.promptId]
  const answerText = field === undefined
    ? undefined
    : field === ""
    ? call.sent.trimStart()
    : partialStringField(call.sent, field)
  return {
    runId: out.runId,
    callId: call.id,
    promptId: call.site.promptId,
    ...(call.site.passNumber !== undefined ? { passNumber: call.site.passNumber } : {}),
    ...(call.site.stepId !== undefined ? { stepId: call.site.stepId } : {}),
    afterSeq: out.lastSeq(),
    text,
    ...(answerText !== undefined ? { answerText } : {}),
    done
  }
}

/** What waits of a call goes out as one piece (`done`: its last; the call is over). */
const flush = (out: Outlet, call: CallState, now: number, done: boolean) => {
  if (call.closed || (!done && call.pending === "")) return
  const text = call.pending
  call.sent += text
  call.pending = ""
  call.lastSentAt = now
  if (done) {
    call.closed = true
    out.calls.delete(call.id)
  }
  if (out.followers.size() > 0) out.followers.publish([deltaOf(out, call, text, done)])
}

/** Text a call wrote: sent at once when the interval allows, else with the piece a timer sends once it has passed. */
const push = (out: Outlet, call: CallState) => (text: string) =>
  Effect.flatMap(Clock.currentTimeMillis, (now): Effect.Effect<void> => {
    if (call.closed) return Effect.void
    // nobody follows: the text is kept for a late joiner, no piece is made
    if (out.followers.size() === 0) return Effect.sync(() => void (call.sent += call.pending + text, call.pending = ""))
    call.pending += text
    if (call.timer) return Effect.void
    const wait = call.lastSentAt + out.intervalMs - now
    if (wait <= 0) return Effect.sync(() => flush(out, call, now, false))
    call.timer = true
    const later = Effect.zipRight(Effect.sleep(wait), Clock.currentTimeMillis).pipe(
      Effect.map((at) => {
        call.timer = false
        flush(out, call, at, false)
      })
    )
    return Effect.asVoid(Effect.forkIn(later, out.scope))
  })

/**
 * A run's live output. Pieces are coalesced per call: the first text goes out at once, later text at most every
 * `intervalMs`, the rest when the call ends. Followers are callbacks (support/Fanout, as RunJournal's are): a slow one
 * is the transport's to drop, the run never waits on it. `lastSeq` is the run log's last event; `scope` the run's.
 */
export const make = (
  runId: string,
  options: {
    readonly intervalMs: number
    readonly lastSeq: () => number
    readonly scope: Scope.Scope
    /** The run's followers, when they outlive this attempt (journal/RunTail's Tails). */
    readonly followers?: Fanout.Fanout<LlmOutputDelta> | undefined
  }
): RunOutput => {
  const out: Outlet = {
    runId,
    intervalMs: options.intervalMs,
    lastSeq: options.lastSeq,
    scope: options.scope,
    followers: options.followers ?? Fanout.make<LlmOutputDelta>(),
    calls: new Map()
  }
  let finished = false
  let next = 0
  const follow = (onDelta: (d: LlmOutputDelta) => void, onEnd: () => void): OutputFollowing => {
    if (finished) return { past: [], finished: true, stop: () => {} }
    const past = [...out.calls.values()].filter((c) => c.sent !== "").map((c) => deltaOf(out, c, c.sent, false))
    return { past, finished: false, stop: out.followers.add(onDelta, onEnd) }
  }
  return {
    open: (site) =>
      Effect.sync(() => {
        const call: CallState = {
          id: `${options.lastSeq()}.${++next}`,
          site,
          sent: "",
          pending: "",
          lastSentAt: Number.NEGATIVE_INFINITY,
          timer: false,
          closed: false
        }
        out.calls.set(call.id, call)
        const done = Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.sync(() => flush(out, call, now, true)))
        return { push: push(out, call), done }
      }),
    follow,
    stream: Stream.async<LlmOutputDelta>((emit) => {
      const { finished: ended, past, stop } = follow((d) => void emit.single(d), () => void emit.end())
      for (const d of past) void emit.single(d)
      if (ended) void emit.end()
      return Effect.sync(stop)
    }, { bufferSize: 1_024, strategy: "sliding" }),
    end: (runEnded = true) => {
      if (finished) return
      finished = true
      if (runEnded) out.followers.end()
      else for (const call of out.calls.values()) flush(out, call, call.lastSentAt, true)
      out.calls.clear()
    }
  }
}
