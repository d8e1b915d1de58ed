import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { afterAll, beforeAll } from "vitest"
import * as Aeon from "../../src/Aeon.js"
import { LanguageModel } from "../../src/llm/LanguageModel.js"
import { prepare } from "../../src/run/Run.js"
import { type OpenAiStub, startOpenAiStub, stubModel } from "../support/OpenAiStub.js"
import { byPrompt, promptOfRequest } from "../support/stubAnswers.js"

let stub: OpenAiStub
beforeAll(async () => {
  stub = await startOpenAiStub()
})
afterAll(() => stub.close())

const run = () =>
  Effect.gen(function*() {
    const prepared = yield* prepare({ task: "Compute 6 * 7", mode: "FULL", budget: { ttl: 1 } })
    return yield* prepared.execute
  }).pipe(Effect.provide(Layer.mergeAll(Aeon.layerWithTools(), Layer.succeed(LanguageModel, stubModel(stub)))))

const bodies: Record<string, (message: string) => unknown> = {
  openai: (message) => ({ error: { message, type: "invalid_request_error" } }),
  vllm: (message) => ({ object: "error", message, type: "BadRequestError", param: null, code: 400 }),
  tgi: (message) => ({ error: message, error_type: "validation" })
}

describe("a refusal of the request's shape steps the format down; only the model, key or path is final (#54.2)", () => {
  for (
    const message of [
      "response_format json_schema is not supported by this model",
      "This model does not support response_format of type json_schema",
      "Unsupported parameter: 'response_format' is not supported with this model.",
      "Unknown response_format type: json_schema"
    ]
  ) {
    for (const [server, body] of Object.entries(bodies)) {
      it.live(`${server}: "${message}"`, () =>
        Effect.gen(function*() {
          // any response_format refused; the schema in the prompt answered
          stub.replyWith((b) =>
            b.response_format
              ? { status: 400, body: body(message) }
              : { content: JSON.stringify(byPrompt[promptOfRequest(b) ?? ""] ?? {}) }
          )
          const result = yield* run()
          expect(result.error).toBeUndefined()
          expect(result.status).toBe("CONVERGED")
          expect(stub.requests.at(-1).response_format).toBeUndefined()
        }))
    }
  }

  it.live("a model the server does not serve still ends the run at once", () =>
    Effect.gen(function*() {
      for (
        const body of [
          bodies.openai!("The model `gpt-9` does not exist"),
          bodies.vllm!("The model `gpt-9` does not exist.")
        ]
      ) {
        stub.reply({ status: 404, body })
        const result = yield* run()
        expect(result.status).toBe("FAILED")
        expect(stub.requests).toHaveLength(1)
        expect(result.error).toContain("does not serve model")
      }
      stub.reply({ status: 400, body: bodies.vllm!("model 'gpt-9' is not supported") })
      const result = yield* run()
      expect(result.status).toBe("FAILED")
      expect(stub.requests).toHaveLength(1)
    }))
})
