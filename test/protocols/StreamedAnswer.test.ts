import { Layer } from "effect"
import OpenAI from "openai"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Aeon from "../../src/Aeon.js"
import { serve } from "../../src/launch/App.js"
import { LanguageModel } from "../../src/llm/LanguageModel.js"
import * as OpenAiModel from "../../src/llm/OpenAi.js"
import * as Database from "../../src/store/Database.js"
import { freshDatabase } from "../support/database.js"
import { type OpenAiStub, startOpenAiStub } from "../support/OpenAiStub.js"
import { gql } from "../support/server.js"
import { ANSWER, byPrompt as stubAnswers } from "../support/stubAnswers.js"

// A model that streams (the real `openai` client against the local OpenAI-compatible stub): the answer's text reaches
// a /v1/chat/completions client while the answer call is being written, not with the run's end.
let stub: OpenAiStub
let app: Awaited<ReturnType<typeof serve>>
const answer = "Six times seven is 42: the calculator's result, checked once and written slowly."
beforeAll(async () => {
  stub = await startOpenAiStub()
  stub.replyWith((body) => {
    const prompt = body.response_format?.json_schema?.name as string
    const byPrompt: Record<string, object> = {
      ...stubAnswers,
      [ANSWER]: { answerText: answer, confidence: 0.9, usedStepIds: ["s1"] }
    }
    return {
      content: JSON.stringify(byPrompt[prompt] ?? {}),
      ...(prompt === ANSWER ? { chunkChars: 6, chunkDelayMs: 40 } : {})
    }
  })
  const db = freshDatabase()
  await import("effect").then(({ Effect }) => Effect.runPromise(db.setup))
  const model = OpenAiModel.make({
    baseURL: stub.baseURL,
    apiKey: "k",
    model: "gpt-4o",
    timeoutMs: 10_000,
    maxRetries: 0
  })
  app = await serve({ port: 0, host: "127.0.0.1" }, {
    engine: Layer.mergeAll(Aeon.layerWithTools(), Layer.succeed(LanguageModel, model)),
    database: Database.layer(db)
  })
})
afterAll(async () => {
  await app?.stop()
  stub?.close()
})

describe("a streamed answer through /v1/chat/completions", () => {
  it("arrives in pieces while the model writes it, adding up to the run's final answer", async () => {
    const client = new OpenAI({ baseURL: app.url.replace(/\/graphql$/, "/v1"), apiKey: "none", maxRetries: 0 })
    const stream = await client.chat.completions.create({
      model: "aeon-full",
      messages: [{ role: "user", content: "Compute 6 * 7" }],
      stream: true
    })
    const pieces: Array<{ text: string; at: number }> = []
    let id = ""
    for await (const chunk of stream) {
      id = chunk.id
      const text = chunk.choices[0]?.delta.content
      if (text) pieces.push({ text, at: Date.now() })
    }
    expect(pieces.map((p) => p.text).join("")).toBe(answer)
    expect(pieces.length).toBeGreaterThan(3)
    const run = await gql(app.url, `query($id: ID!) { run(id: $id) { status timeline { finishedAt } } }`, { id })
    expect(run.body.data.run.status).toBe("CONVERGED")
    // the first piece came well before the run ended: the answer call takes 40 ms per 6 characters
    expect(Date.parse(run.body.data.run.timeline.finishedAt) - pieces[0]!.at).toBeGreaterThan(200)
  })
})
