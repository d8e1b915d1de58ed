import { createClient } from "graphql-ws"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import WebSocket from "ws"
import { PromptId } from "../../src/prompts/PromptId.js"
import { answer, convergingScript, reasoned } from "../support/scripts.js"
import { gql, startServer, type TestServer, untilStatus } from "../support/server.js"
import { Arrivals } from "../support/until.js"

const FINAL = "Forty-two is the product of six and seven: six sevens, counted one after the other, make 42. " +
  "The calculator said so, and the explanation step agreed; nothing else was needed to answer."

let server: TestServer
beforeAll(async () => {
  server = await startServer({
    script: {
      ...convergingScript(),
      [PromptId.REASONING_STEP_USER]: [{ ...reasoned("6 * 7 = 42"), delayMs: 300 }, reasoned("six sevens")],
      // written like a model writes: a chunk every 25 ms, for about 300 ms
      [PromptId.ANSWER_SYNTHESIS_USER]: [{ ...answer(FINAL, ["s1", "s2"]), chunkDelayMs: 25 }]
    }
  })
}, 60_000)
afterAll(() => server?.stop())

type Delta = {
  callId: string
  promptId: string
  passNumber: number | null
  stepId: string | null
  afterSeq: number
  text: string
  answerText: string | null
  done: boolean
}
const OUTPUT =
  `subscription($runId: ID!) { runOutput(runId: $runId) { callId promptId passNumber stepId afterSeq text answerText done } }`
const EVENTS = `subscription($runId: ID!) { runEvents(runId: $runId) { seq type } }`

const start = async () =>
  (await gql(server.url, `mutation { runTask(input: { task: "Compute 6 * 7 and explain it", mode: FULL }) { id } }`))
    .body.data.runTask.id as string

describe("runOutput: a run's model output as it is written (#33)", () => {
  it("gives the final answer in several pieces before RunFinished reaches runEvents on the same connection", async () => {
    const client = createClient({ url: server.url.replace("http", "ws"), webSocketImpl: WebSocket, retryAttempts: 0 })
    const id = await start()
    const order: Array<string> = []
    const deltas: Array<Delta> = []
    const events: Array<{ seq: number; type: string }> = []
    const output = (async () => {
      for await (const r of client.iterate<{ runOutput: Delta }>({ query: OUTPUT, variables: { runId: id } })) {
        deltas.push(r.data!.runOutput)
        if (r.data!.runOutput.promptId === PromptId.ANSWER_SYNTHESIS_USER) order.push("answer piece")
      }
    })()
    for await (
      const r of client.iterate<{ runEvents: { seq: number; type: string } }>({
        query: EVENTS,
        variables: { runId: id }
      })
    ) {
      events.push(r.data!.runEvents)
      if (r.data!.runEvents.type === "RunFinished") order.push("RunFinished")
    }
    await output
    client.dispose()
    const pieces = deltas.filter((d) => d.promptId === PromptId.ANSWER_SYNTHESIS_USER)
    expect(pieces.length).toBeGreaterThan(2)
    expect(order.indexOf("RunFinished")).toBeGreaterThan(order.lastIndexOf("answer piece"))
    expect(pieces.at(-1)!.done).toBe(true)
    expect(new Set(pieces.map((p) => p.callId)).size).toBe(1)
    // the pieces make the call's whole text; the last answerText is the stored answer
    const stored = (await gql(
      server.url,
      `query($id: ID!) { run(id: $id) { finalAnswer { answerText } events { seq type } llmCalls(first: 50) { edges { node { promptId response } } } } }`,
      { id }
    )).body.data.run
    expect(pieces.at(-1)!.answerText).toBe(stored.finalAnswer.answerText)
    const response =
      stored.llmCalls.edges.find((e: any) => e.node.promptId === PromptId.ANSWER_SYNTHESIS_USER).node.response
    expect(pieces.map((p) => p.text).join("")).toBe(response)
    // the answer grows piece by piece
    const texts = pieces.map((p) => p.answerText ?? "")
    for (let i = 1; i < texts.length; i++) expect(texts[i]!.startsWith(texts[i - 1]!)).toBe(true)
    // runEvents is what it was: the stored events, one for one
    expect(events).toEqual(stored.events)
  })

  it("a late joiner gets the text so far in one piece, then the rest: nothing missing, nothing repeated", async () => {
    const early = createClient({ url: server.url.replace("http", "ws"), webSocketImpl: WebSocket, retryAttempts: 0 })
    const late = createClient({ url: server.url.replace("http", "ws"), webSocketImpl: WebSocket, retryAttempts: 0 })
    const id = await start()
    const collect = async (client: ReturnType<typeof createClient>, seen: Arrivals<Delta>) => {
      for await (const r of client.iterate<{ runOutput: Delta }>({ query: OUTPUT, variables: { runId: id } })) {
        seen.push(r.data!.runOutput)
      }
      return seen.all
    }
    const early$ = new Arrivals<Delta>()
    const fromEarly = collect(early, early$)
    // join once the final answer has begun
    await early$.until((all) =>
      all.filter((d) => d.promptId === PromptId.ANSWER_SYNTHESIS_USER && !d.done).length >= 2 ? true : undefined
    )
    const [all, joined] = await Promise.all([fromEarly, collect(late, new Arrivals<Delta>())])
    early.dispose()
    late.dispose()
    const answerOf = (ds: Array<Delta>) => ds.filter((d) => d.promptId === PromptId.ANSWER_SYNTHESIS_USER)
    expect(answerOf(joined).map((d) => d.text).join("")).toBe(answerOf(all).map((d) => d.text).join(""))
    expect(answerOf(joined).length).toBeLessThan(answerOf(all).length)
    expect(answerOf(joined)[0]!.text.length).toBeGreaterThan(answerOf(all)[0]!.text.length)
    expect(joined.filter((d) => d.promptId !== PromptId.ANSWER_SYNTHESIS_USER)).toEqual([])
  })

  it("a finished run's runOutput ends at once with nothing; an unknown run is RunNotFoundError", async () => {
    const client = createClient({ url: server.url.replace("http", "ws"), webSocketImpl: WebSocket, retryAttempts: 0 })
    const id = await start()
    await untilStatus(server.url, id, "CONVERGED")
    const seen: Array<unknown> = []
    for await (const r of client.iterate({ query: OUTPUT, variables: { runId: id } })) seen.push(r)
    expect(seen).toEqual([])
    const unknown: Array<any> = []
    for await (const r of client.iterate({ query: OUTPUT, variables: { runId: "nope" } })) unknown.push(r)
    expect(unknown[0]?.errors?.[0]).toMatchObject({
      message: "run nope does not exist",
      extensions: { code: "RunNotFoundError" }
    })
    client.dispose()
  })
})

describe("runOutput's feed: a slow subscriber (#33)", () => {
  it("loses the oldest pieces, never holds the run back: pieces are handed over at once, the buffer is bounded", async () => {
    const { outputFeed } = await import("../../src/runs/OutputFeed.js")
    let push: (d: any) => void = () => {}
    let end: () => void = () => {}
    let closed = false
    const feed = outputFeed(
      (onDelta, onEnd) => {
        push = onDelta
        end = onEnd
        return { past: [], finished: false, stop: () => void (closed = true) }
      },
      (d: any) => d.text as string,
      () => {},
      3
    )
    // the run hands over ten pieces while the subscriber reads nothing: each push returns at once
    for (let i = 0; i < 10; i++) push({ text: `p${i}` })
    end()
    const read: Array<string> = []
    for await (const text of feed) read.push(text)
    expect(read).toEqual(["p7", "p8", "p9"])
    expect(closed).toBe(true)
  })
})
