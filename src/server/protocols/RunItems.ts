import { Effect } from "effect"
import type { RunEvent } from "../../domain/RunEvent.js"
import { ANSWER_PROMPTS } from "../../prompts/PromptId.js"
import { asks } from "../../record/Requests.js"
import { RunManager } from "../../runs/RunManager.js"

/**
 * What every protocol adapter reads of a run: its events from an offset (the log), and its answer's text as it is
 * written. The answer's text comes from the answer synthesis call's live output while the run goes on, and what of the
 * final answer was not streamed comes at RunFinished: the pieces always add up to the final answer (a run that ended
 * before this follower came, or a model that does not stream, gives it whole).
 */
export type RunItem =
  | { readonly _tag: "Event"; readonly event: RunEvent }
  | { readonly _tag: "Text"; readonly delta: string }
  /** The final answer is not what was streamed (the synthesis was made again): the whole answer, anew. */
  | { readonly _tag: "TextRestarted"; readonly text: string }

/** Whether the run stops here for a person (a request), or has ended: where a protocol's response may end. */
export const pausesOrEnds = (item: RunItem) =>
  item._tag === "Event" && (item.event._tag === "RunFinished" || asks(item.event))

type Source =
  | { readonly _tag: "Event"; readonly event: RunEvent }
  | { readonly _tag: "Output"; readonly answerText: string }

type Options = {
  readonly fromSeq?: number
  readonly textFrom?: number
  readonly until?: (item: RunItem) => boolean
  /** The client went away: the items end at once (a run waiting for a person may send nothing for hours). */
  readonly signal?: AbortSignal
}

/**
 * The run's items from `fromSeq` of its log, the answer's text from its `textFrom`th character, ending after
 * RunFinished (or where `until` says, that item included). Plain async iteration over the run's feeds, no fiber per
 * follower: a server fans each event out to many (bench row 44a; the same choice as the GraphQL feeds, row 9).
 */
export const runItems = (runId: string, options: Options = {}) =>
  Effect.gen(function*() {
    const manager = yield* RunManager
    const events = yield* manager.follow(runId, options.fromSeq ?? 0, (event): Source => ({ _tag: "Event", event }))
    const output = yield* manager.followOutput(runId, (d): Source | undefined =>
      ANSWER_PROMPTS.includes(d.promptId) && d.answerText
        ? { _tag: "Output", answerText: d.answerText }
        : undefined)
    return items(merged(events, output, options.signal), options)
  })

/** The run's events and its answer's text in the order they come; done when the events are. */
async function* merged(
  events: AsyncIterableIterator<Source>,
  output: AsyncIterableIterator<Source | undefined>,
  signal: AbortSignal | undefined
): AsyncGenerator<Source> {
  const queue: Array<Source> = []
  let wake: (() => void) | undefined
  let eventsDone = false
  let failure: { readonly error: unknown } | undefined
  const pump = async (from: AsyncIterableIterator<Source | undefined>) => {
    for await (const s of from) {
      if (s === undefined) continue
      queue.push(s)
      wake?.()
    }
  }
  void pump(events).catch((error) => (failure = { error })).finally(() => {
    eventsDone = true
    wake?.()
  })
  void pump(output).catch(() => undefined) // the output is for people watching: a gap in it loses no event
  const abort = () => wake?.()
  signal?.addEventListener("abort", abort)
  try {
    for (;;) {
      const next = queue.shift()
      if (signal?.aborted) return
      if (next) yield next
      else if (failure) throw failure.error
      else if (eventsDone) return
      else await new Promise<void>((resolve) => (wake = resolve))
    }
  } finally {
    signal?.removeEventListener("abort", abort)
    void events.return?.()
    void output.return?.()
  }
}

/** The sources as items: the answer's text kept in step with the final answer; ending where `until` says. */
async function* items(sources: AsyncGenerator<Source>, options: Options): AsyncGenerator<RunItem> {
  const until = options.until ?? ((item: RunItem) => item._tag === "Event" && item.event._tag === "RunFinished")
  let state: TextState = { sent: "", textFrom: options.textFrom ?? 0, ended: false }
  try {
    for await (const source of sources) {
      const [next, out] = itemsOf(state, source)
      state = next
      for (const item of out) {
        yield item
        if (until(item)) return
      }
    }
  } finally {
    await sources.return(undefined)
  }
}

interface TextState {
  /** The answer's text given so far (the characters before `textFrom` count as given). */
  readonly sent: string
  readonly textFrom: number
  readonly ended: boolean
}

const textItem = (delta: string): Array<RunItem> => (delta.length > 0 ? [{ _tag: "Text", delta }] : [])

/** What the part of `text` past what the client has gives it. */
const newText = (state: TextState, text: string) => text.slice(Math.max(state.sent.length, state.textFrom))

const itemsOf = (state: TextState, source: Source): readonly [TextState, Array<RunItem>] => {
  if (state.ended) return [state, []]
  if (source._tag === "Output") {
    // a synthesis made again writes other text: it is not streamed (the final answer comes whole at the end)
    if (!source.answerText.startsWith(state.sent)) return [state, []]
    return [{ ...state, sent: source.answerText }, textItem(newText(state, source.answerText))]
  }
  const event = source.event
  if (event._tag !== "RunFinished") return [state, [{ _tag: "Event", event }]]
  const final = event.finalAnswer?.answerText ?? ""
  const text: Array<RunItem> = final.startsWith(state.sent) || final === ""
    ? textItem(newText(state, final))
    : [{ _tag: "TextRestarted", text: final }]
  return [{ ...state, sent: final, ended: true }, [...text, { _tag: "Event", event }]]
}
