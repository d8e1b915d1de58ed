import { Effect } from "effect"
import type { RunEvent } from "../domain/RunEvent.js"
import * as LanguageModel from "../llm/LanguageModel.js"
import * as Offline from "../llm/Offline.js"
import * as Replay from "../llm/Replay.js"
import { RunStore } from "../store/RunStore.js"
import type { Service as ToolRegistry } from "../tools/ToolRegistry.js"
import * as ToolReplay from "./ToolReplay.js"

/**
 * The model and tools a run uses: for a fork, the source's recordings answer its model calls until one differs, then
 * `live` (none: such a call fails, a pure replay); until then its tool calls are answered by the source's recordings
 * of the same calls made after the fork point. After a restart, the recordings the fork already used stay used, and a
 * fork that had gone live stays live.
 */
export const replayFor = (
  past: ReadonlyArray<RunEvent>,
  live: { readonly model: LanguageModel.Service; readonly tools: ToolRegistry },
  options: { readonly pure?: boolean | undefined; readonly source?: ReadonlyArray<RunEvent> | undefined } = {}
): Effect.Effect<{ readonly model: LanguageModel.Service; readonly tools: ToolRegistry }, never, RunStore> =>
  Effect.gen(function*() {
    const forked = past[0]?._tag === "RunForked" ? past[0] : undefined
    if (!forked) return live
    const source = options.source ??
      (yield* Effect.orElseSucceed((yield* RunStore).events(forked.from), (): ReadonlyArray<RunEvent> => []))
    const own = past.filter((e) => e.seq > forked.copied + 1)
    // the model the fork changed to, while this server is still configured with it
    const liveModel = forked.model === undefined
      ? live.model
      : LanguageModel.configured(live.model, forked.model, Offline.service) ?? live.model
    const replay = Replay.make(Replay.recordingsOf(source), {
      copiedUpTo: forked.atSeq,
      live: options.pure ? undefined : liveModel,
      renamed: { from: forked.from, to: forked.runId },
      used: own.flatMap((e) =>
        e._tag === "LlmCalled" && e.replayed && e.call ? [{ promptId: e.promptId, user: e.call.user }] : []
      ),
      diverged: own.some((e) => e._tag === "LlmCalled" && !e.replayed)
    })
    const tools = ToolReplay.replaying(
      live.tools,
      ToolReplay.toolRecordingsOf(source, forked.atSeq),
      () => replay.divergence() === undefined,
      own.flatMap((e) => (e._tag === "ToolInvoked" && e.replayed ? [{ tool: e.tool, input: e.input }] : []))
    )
    return { model: replay.service, tools }
  })
