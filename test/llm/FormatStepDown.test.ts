import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import * as Aeon from "../../src/Aeon.js"
import { serve } from "../../src/launch/App.js"
import { LanguageModel } from "../../src/llm/LanguageModel.js"
import * as Database from "../../src/store/Database.js"
import { freshDatabase } from "../support/database.js"
import { type OpenAiStub, startOpenAiStub, stubModel } from "../support/OpenAiStub.js"
import { awaitRun, gql } from "../support/server.js"
import { byPrompt, promptOfRequest } from "../support/stubAnswers.js"

/**
 * A model's bad stretch does not demote every later run (#54 item 3): a step down of the output format lasts
 * AEON_LLM_FORMAT_RETRY_MS, then the strongest format is asked again; the run that stepped down says so in an
 * advisory, and `health` says how the model is asked meanwhile.
 */
const RETRY_MS = 1_500
let stub: OpenAiStub
let app: Awaited<ReturnType<typeof serve>>
/** Prose to the next `prose` requests that carry a response_format, then each prompt's JSON. */
let prose = 0
beforeAll(async () => {
  stub = await startOpenAiStub()
  stub.replyWith((body) => {
    if (body.response_format && prose > 0) {
      prose--
      return { content: "Sure! I would compute six times seven with the calculator and report it." }
    }
    return { content: JSON.stringify(byPrompt[promptOfRequest(body) ?? ""] ?? {}) }
  })
  const db = freshDatabase()
  await Effect.runPromise(db.setup)
  app = await serve({ port: 0, host: "127.0.0.1" }, {
    engine: Layer.mergeAll(
      Aeon.layerWithTools(),
      Layer.succeed(LanguageModel, stubModel(stub, { formatRetryMs: RETRY_MS }))
    ),
    database: Database.layer(db)
  })
})
afterAll(async () => {
  await app?.stop()
  await stub?.close()
})

const RUN = `query($id: ID!) { run(id: $id) { status result { error advisories } } }`
const run = async () => {
  const started = await gql(app.url, `mutation { runTask(input: { task: "Compute 6 * 7", mode: FULL }) { id } }`)
  const r = await awaitRun(app.url, started.body.data.runTask.id, { query: RUN })
  return { status: r.status as string, advisories: r.result.advisories as Array<string> }
}
const conditions = async () =>
  (await gql(app.url, "{ health { modelConditions } }")).body.data.health.modelConditions as Array<string>
const formats = () => stub.requests.map((b) => b.response_format?.type ?? "prompt")

describe("a step down of the output format lasts a while, is said, and is taken back (#54.3)", () => {
  it(
    "the run that stepped down has an advisory; health says it; later runs ask the strongest format again",
    async () => {
      expect(await conditions()).toEqual([])
      prose = 1
      stub.requests.length = 0
      const first = await run()
      expect(first.status).toBe("CONVERGED")
      expect(formats().slice(0, 2)).toEqual(["json_schema", "json_object"])
      expect(first.advisories.join("\n")).toMatch(/stepped down from structured output \(json_schema\) to JSON mode/)
      const [condition] = await conditions()
      expect(condition).toMatch(/stepped down to JSON mode \(json_object\).*answered prose to json_schema/)

      // within the period: JSON mode, no new advisory
      stub.requests.length = 0
      const second = await run()
      expect(formats().every((f) => f === "json_object")).toBe(true)
      expect(second.advisories.join("\n")).not.toMatch(/stepped down/)

      // past it: structured output again, health clear
      // the wall clock moved past the period (Date only, going on from there: no sleep); the model's memory of the
      // step down reads Date.now
      vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true })
      vi.setSystemTime(Date.now() + RETRY_MS + 50)
      stub.requests.length = 0
      const third = await run().finally(() => vi.useRealTimers())
      expect(third.status).toBe("CONVERGED")
      expect(formats().every((f) => f === "json_schema")).toBe(true)
      expect(await conditions()).toEqual([])
    },
    60_000
  )
})
