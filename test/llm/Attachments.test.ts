import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer, ManagedRuntime } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Aeon from "../../src/Aeon.js"
import * as Anthropic from "../../src/llm/Anthropic.js"
import * as Gemini from "../../src/llm/Gemini.js"
import { LanguageModel } from "../../src/llm/LanguageModel.js"
import type * as LM from "../../src/llm/LanguageModel.js"
import * as Offline from "../../src/llm/Offline.js"
import * as Replaying from "../../src/run/Replaying.js"
import { prepare } from "../../src/run/Run.js"
import * as Database from "../../src/store/Database.js"
import { RunStore } from "../../src/store/RunStore.js"
import { type AnthropicStub, startAnthropicStub } from "../support/AnthropicStub.js"
import { freshDatabase } from "../support/database.js"
import { type GeminiStub, startGeminiStub } from "../support/GeminiStub.js"
import { type OpenAiStub, startOpenAiStub, stubModel } from "../support/OpenAiStub.js"
import { byPrompt, promptOfGemini, promptOfMessages, promptOfRequest } from "../support/stubAnswers.js"

/**
 * Files and images in a task (#57 item 5): an image reaches each provider in its own form — OpenAI's image_url part,
 * Anthropic's image block, Gemini's inlineData — in the plan and answer calls; a model that cannot read one refuses
 * the run before it starts; the bytes are stored once, by their hash.
 */
const PNG = Buffer.from(
  "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000a49444154789c6300010000050001",
  "hex"
)
  .toString("base64")
const image = { mediaType: "image/png", data: PNG, name: "dot.png" }

let openai: OpenAiStub
let claude: AnthropicStub
let google: GeminiStub
beforeAll(async () => {
  openai = await startOpenAiStub()
  openai.replyWith((body) => ({ content: JSON.stringify(byPrompt[promptOfRequest(body) ?? ""] ?? {}) }))
  claude = await startAnthropicStub()
  claude.replyWith((body) => ({ text: JSON.stringify(byPrompt[promptOfMessages(body) ?? ""] ?? {}) }))
  google = await startGeminiStub()
  google.replyWith((body) => ({ text: JSON.stringify(byPrompt[promptOfGemini(body) ?? ""] ?? {}) }))
})
afterAll(async () => {
  await openai?.close()
  await claude?.close()
  await google?.close()
})

const run = (model: LM.Service, input: object) =>
  Effect.runPromise(
    Effect.gen(function*() {
      const p = yield* prepare({ memory: false, mode: "FULL", ...input })
      return yield* p.execute
    }).pipe(Effect.provide(Layer.mergeAll(Aeon.layerWithTools(), Layer.succeed(LanguageModel, model))))
  )
const refusal = (model: LM.Service, input: object) =>
  Effect.runPromise(
    Effect.flip(prepare({ memory: false, ...input })).pipe(
      Effect.provide(Layer.mergeAll(Aeon.layerWithTools(), Layer.succeed(LanguageModel, model)))
    ) as Effect.Effect<any>
  )

const PLAN_OR_ANSWER = /^(plan_generation_user|plan_direct_user|answer_synthesis_user|answer_typed_user)$/

describe("an image in a task reaches each provider in its form", () => {
  it("OpenAI: an image_url part with its bytes as a data URL, in the plan and answer calls only", async () => {
    openai.requests.length = 0
    expect((await run(stubModel(openai), { task: "Compute 6 * 7", attachments: [image] })).status).toBe("CONVERGED")
    for (const body of openai.requests) {
      const content = body.messages[1].content
      const carries = Array.isArray(content) &&
        content.some((p: any) => p.type === "image_url" && p.image_url.url === `data:image/png;base64,${PNG}`)
      expect(carries, promptOfRequest(body)).toBe(PLAN_OR_ANSWER.test(promptOfRequest(body) ?? ""))
    }
    expect(openai.requests.some((b) => promptOfRequest(b) === "answer_synthesis_user")).toBe(true)
  })

  it("Anthropic: an image block (base64 source) before the prompt's text", async () => {
    claude.requests.length = 0
    const model = Anthropic.make({
      baseURL: claude.baseURL,
      apiKey: "k",
      model: "claude-sonnet-4-5",
      timeoutMs: 10_000,
      maxRetries: 0
    })
    expect((await run(model, { task: "Compute 6 * 7", attachments: [image] })).status).toBe("CONVERGED")
    const plan = claude.requests.find((b) => promptOfMessages(b)?.startsWith("plan_"))
    expect(plan.messages[0].content[0]).toEqual({
      type: "image",
      source: { type: "base64", media_type: "image/png", data: PNG }
    })
  })

  it("Gemini: an inlineData part", async () => {
    google.requests.length = 0
    const model = Gemini.make({
      baseURL: google.baseURL,
      apiKey: "k",
      model: "gemini-2.5-flash",
      timeoutMs: 10_000,
      maxRetries: 0
    })
    expect((await run(model, { task: "Compute 6 * 7", attachments: [image] })).status).toBe("CONVERGED")
    const plan = google.requests.find((r) => promptOfGemini(r.body)?.startsWith("plan_"))!
    expect(plan.body.contents[0].parts[0]).toEqual({ inlineData: { mimeType: "image/png", data: PNG } })
  })
})

describe("what a model cannot read is refused before the run starts", () => {
  it("the offline stand-in reads no file; OpenAI takes no PDF by URL; each coded, naming why", async () => {
    const offline = await refusal(Offline.service, { task: "Describe the image", attachments: [image] })
    expect(offline._tag).toBe("AttachmentRefusedError")
    expect(offline.message).toContain("offline model")
    const pdf = await refusal(stubModel(openai), {
      task: "Summarise the report",
      attachments: [{ mediaType: "application/pdf", url: "https://example.com/report.pdf" }]
    })
    expect(pdf._tag).toBe("AttachmentRefusedError")
    expect(pdf.message).toContain("application/pdf by URL")
    const bad = await refusal(stubModel(openai), { task: "Look", attachments: [{ mediaType: "image/png" }] })
    expect(bad._tag).toBe("InvalidRunInputError")
  })
})

describe("stored once, by their hash", () => {
  it("two runs with the same image: one row; each run's input names it by its hash, not its bytes", async () => {
    const db = freshDatabase()
    await Effect.runPromise(db.setup)
    const app = ManagedRuntime.make(
      Layer.mergeAll(Aeon.layerWithTools(), Layer.succeed(LanguageModel, stubModel(openai))).pipe(
        Layer.provideMerge(Database.layer(db))
      )
    )
    try {
      const ids: Array<string> = []
      for (const task of ["Compute 6 * 7", "Compute 8 * 9"]) {
        openai.requests.length = 0
        ids.push(
          await app.runPromise(Effect.gen(function*() {
            const p = yield* prepare({ task, memory: false, attachments: [image] })
            yield* p.execute
            return p.runId
          }))
        )
        // the bytes read back from the store reached the model
        expect(JSON.stringify(openai.requests)).toContain(PNG)
      }
      const rows = await app.runPromise(
        Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT sha256, size FROM attachments`) as Effect.Effect<any>
      )
      expect(rows.length).toBe(1)
      for (const id of ids) {
        const stored = await app.runPromise(Effect.flatMap(RunStore, (s) => s.getRun(id)) as Effect.Effect<any>)
        const input = JSON.stringify(stored.value.input)
        expect(input).toContain(rows[0].sha256)
        expect(input).not.toContain(PNG)
      }
      // a replay reads the same bytes (copied into its own store) and departs nowhere, asking no model
      const replayed = await app.runPromise(
        Replaying.replay(ids[0]!).pipe(Effect.provideService(LanguageModel, Offline.service)) as Effect.Effect<any>
      )
      expect(replayed.divergence).toBeUndefined()
    } finally {
      await app.dispose()
    }
  })
})
