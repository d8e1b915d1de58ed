import { ConfigProvider, Effect, Layer, ManagedRuntime } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Aeon from "../../src/Aeon.js"
import type { RunEvent } from "../../src/domain/RunEvent.js"
import { LanguageModel } from "../../src/llm/LanguageModel.js"
import * as LM from "../../src/llm/LanguageModel.js"
import * as Offline from "../../src/llm/Offline.js"
import { FREE } from "../../src/llm/Pricing.js"
import * as Fork from "../../src/run/Fork.js"
import * as Replaying from "../../src/run/Replaying.js"
import { prepare } from "../../src/run/Run.js"
import * as Database from "../../src/store/Database.js"
import { RunStore } from "../../src/store/RunStore.js"
import { freshDatabase } from "../support/database.js"

/**
 * What reached the model is an event of the run (#56 item 1): a turn replayed with no model gets the same context —
 * after later turns were added, and through a compaction (its call answered from the recording) —, and a fork of a
 * turn quotes the conversation as its source did. The offline model (a labeled stand-in) answers; a small bound makes
 * the thread compact.
 */
const db = freshDatabase()
let runtime: ManagedRuntime.ManagedRuntime<any, any>
beforeAll(async () => {
  await Effect.runPromise(db.setup)
  runtime = ManagedRuntime.make(
    Layer.mergeAll(Aeon.layerWithTools(), Layer.succeed(LanguageModel, Offline.service)).pipe(
      Layer.provideMerge(Database.layer(db))
    )
  )
})
afterAll(() => runtime?.dispose())

const small = Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["AEON_THREAD_CONTEXT_TOKENS", "200"]])))

const turn = (task: string, threadId: string) =>
  runtime.runPromise(
    Effect.gen(function*() {
      const p = yield* prepare({ task, threadId, memory: false })
      yield* p.execute
      return { runId: p.runId, events: yield* (yield* RunStore).events(p.runId) }
    }).pipe(small)
  )

const quoted = (events: ReadonlyArray<RunEvent>) => events.find((e) => e._tag === "ConversationQuoted")

const liveCalls: Array<string> = []
const forbidden = LM.make("live", FREE, (request) => {
  liveCalls.push(request.promptId)
  return Effect.dieMessage(`the live model was asked ${request.promptId}`)
})
const replay = (runId: string) =>
  runtime.runPromise(
    (Replaying.replay(runId).pipe(Effect.provideService(LanguageModel, forbidden)) as Effect.Effect<any>).pipe(small)
  )

describe("a turn's context in replay and fork", () => {
  it("replays every turn identically with no model, before and after later turns; a fork quotes what its source did", async () => {
    const turns = []
    turns.push(await turn("Remember: the ferry leaves from pier 9 at 07:40.", "ferry"))
    for (let i = 2; i <= 5; i++) {
      turns.push(await turn(`Turn ${i}: compute ${i} * 111 and say which pier the ferry leaves from`, "ferry"))
    }
    const made = turns.filter((t) => quoted(t.events)?._tag === "ConversationQuoted" && quoted(t.events)!.summary)
    // the small bound made the thread compact at least once (a summary call recorded before ConversationQuoted)
    expect(made.length).toBeGreaterThan(0)
    for (const t of turns) {
      const r = await replay(t.runId)
      expect(r.divergence).toBeUndefined()
    }
    await turn("Turn 6: and the return ferry?", "ferry")
    for (const t of turns) expect((await replay(t.runId)).divergence).toBeUndefined()
    expect(liveCalls).toEqual([])
    // a fork from the turn's start quotes the conversation as it was, not as the thread is now
    const source = made[0]!
    const started = source.events.find((e) => e._tag === "RunStarted")!
    const forked = await runtime.runPromise(
      Effect.gen(function*() {
        const p = yield* Fork.fork(source.runId, started.seq)
        yield* p.execute
        return yield* (yield* RunStore).events(p.runId)
      }).pipe(small)
    )
    const [a, b] = [quoted(source.events), quoted(forked)]
    expect(b && b._tag === "ConversationQuoted" && b.text).toBe(a && a._tag === "ConversationQuoted" && a.text)
  })
})
