import { Effect } from "effect"
import type { RunEvent } from "../domain/RunEvent.js"
import type * as LanguageModel from "../llm/LanguageModel.js"
import * as Replay from "../llm/Replay.js"
import { RunStore } from "../store/RunStore.js"

/**
 * The model a run uses: for a fork, the source's recordings answer its calls until one differs, then `live` (none:
 * such a call fails, a pure replay). After a restart, the calls the fork already answered from recordings keep theirs
 * used, and a fork that had gone live stays live.
 */
export const modelFor = (
  past: ReadonlyArray<RunEvent>,
  live: LanguageModel.Service,
  options: { readonly pure?: boolean | undefined; readonly source?: ReadonlyArray<RunEvent> | undefined } = {}
): Effect.Effect<LanguageModel.Service, never, RunStore> =>
  Effect.gen(function*() {
    const forked = past[0]?._tag === "RunForked" ? past[0] : undefined
    if (!forked) return live
    const source = options.source ??
      (yield* Effect.orElseSucceed((yield* RunStore).events(forked.from), () => [] as Array<RunEvent>))
    const own = past.filter((e) => e.seq > forked.copied + 1 && e._tag === "LlmCalled")
    return Replay.make(Replay.recordingsOf(source), {
      copiedUpTo: forked.atSeq,
      live: options.pure ? undefined : live,
      renamed: { from: forked.from, to: forked.runId },
      used: own.flatMap((
        e
      ) => (e._tag === "LlmCalled" && e.replayed && e.call ? [{ promptId: e.promptId, user: e.call.user }] : [])),
      diverged: own.some((e) => e._tag === "LlmCalled" && !e.replayed)
    }).service
  })
