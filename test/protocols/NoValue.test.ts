import { writeFileSync } from "node:fs"
import { join } from "node:path"
import OpenAI from "openai"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { cliIn } from "../support/cli.js"
import { awaitRun, gql, startServer, type TestServer } from "../support/server.js"

/**
 * No value without convergence, and no completion without an answer (#69 items 5 and 9), with the offline stand-in,
 * which cannot answer a question of fact (its steps are blocked: the run does not converge). A typed run that did not
 * converge prints no value and keeps none (`data` null), saying why; `/v1` answers such a run, and an untyped run
 * that produced nothing, with an error in OpenAI's shape — a client that asked for an answer and got none is told so.
 */
const SCHEMA = {
  type: "object",
  properties: { city: { type: "string" }, population: { type: "integer" } },
  required: ["city", "population"]
}
const QUESTION = "What is the population of Paris?"

let app: TestServer
beforeAll(async () => {
  app = await startServer()
})
afterAll(() => app?.stop())

const client = () => new OpenAI({ baseURL: app.url.replace(/\/graphql$/, "/v1"), apiKey: "none", maxRetries: 0 })

describe("a typed run that did not converge has no value (#69.5)", () => {
  it("aeon run --output-schema: nothing on stdout, why on stderr, exit 2; --json has no data", async () => {
    const c = cliIn("aeon-novalue-")
    const file = join(c.dir, "schema.json")
    writeFileSync(file, JSON.stringify(SCHEMA))
    const text = await c.aeon("run", QUESTION, "--output-schema", file)
    expect(text.code).toBe(2)
    expect(text.stdout).toBe("")
    expect(text.stderr).toMatch(/^No value: the run ended not converged \(/m)
    const json = JSON.parse((await c.aeon("run", QUESTION, "--output-schema", file, "--json")).stdout)
    expect(json.status).toBe("NOT_CONVERGED")
    expect(json.finalAnswer.data).toBeUndefined()
    expect(json.finalAnswer.answerText).toMatch(/^No value: /)
  }, 60_000)

  it("GraphQL: finalAnswer.data is null and the answer says why", async () => {
    const started = await gql(app.url, `mutation($i: RunTaskInput!) { runTask(input: $i) { id } }`, {
      i: { task: QUESTION, outputSchema: SCHEMA }
    })
    const run = await awaitRun(app.url, started.body.data.runTask.id, {
      query: `query($id: ID!) { run(id: $id) { status finalAnswer { data answerText } } }`
    })
    expect(run.status).toBe("NOT_CONVERGED")
    expect(run.finalAnswer.data).toBeNull()
    expect(run.finalAnswer.answerText).toMatch(/^No value: /)
  }, 60_000)
})

describe("/v1 for a run without an answer (#69.9)", () => {
  it("json_object on a run that did not converge: an error in OpenAI's shape, not {}", async () => {
    const failed = await client().chat.completions.create({
      model: "aeon",
      messages: [{ role: "user", content: QUESTION }],
      response_format: { type: "json_object" }
    }).then(() => undefined, (e: unknown) => e)
    expect(failed).toBeInstanceOf(OpenAI.APIError)
    expect((failed as InstanceType<typeof OpenAI.APIError>).status).toBe(502)
    expect((failed as InstanceType<typeof OpenAI.APIError>).code).toBe("run_not_converged")
  }, 60_000)

  it("an untyped run that produced no answer: an error naming why, streamed or not", async () => {
    const failed = await client().chat.completions.create({
      model: "aeon",
      messages: [{ role: "user", content: QUESTION }]
    }).then(() => undefined, (e: unknown) => e)
    expect(failed).toBeInstanceOf(OpenAI.APIError)
    const error = failed as InstanceType<typeof OpenAI.APIError>
    expect(error.code).toBe("run_not_converged")
    expect(error.message).toMatch(/the run ended NOT_CONVERGED \(ttl_expired\)/)
    const stream = await client().chat.completions.create({
      model: "aeon",
      messages: [{ role: "user", content: QUESTION }],
      stream: true
    })
    const streamed = await (async () => {
      for await (const _ of stream) { /* the answer's pieces */ }
    })().then(() => undefined, (e: unknown) => e)
    expect(streamed).toBeInstanceOf(OpenAI.APIError)
  }, 60_000)

  it("a run that converged is still a completion", async () => {
    const done = await client().chat.completions.create({
      model: "aeon",
      messages: [{ role: "user", content: "What is 6 * 7 plus 3?" }]
    })
    expect(done.choices[0]!.message.content).toContain("45")
    expect(done.choices[0]!.finish_reason).toBe("stop")
  }, 60_000)
})
