import { TaskState } from "@a2a-js/sdk"
import { ClientFactory } from "@a2a-js/sdk/client"
import { HttpAgent } from "@ag-ui/client"
import type { BaseEvent } from "@ag-ui/core"
import { Effect, Schema } from "effect"
import OpenAI from "openai"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as ToolRegistry from "../../src/tools/ToolRegistry.js"
import { userMessage } from "../support/a2a.js"
import { type OpenAiStub, startOpenAiStub, stubModel } from "../support/OpenAiStub.js"
import { awaitRun, gql, startServer, type TestServer } from "../support/server.js"
import { byPrompt, promptOfRequest } from "../support/stubAnswers.js"

/**
 * Guardrails through the server (#71), against a provider stub that keeps every request: what the provider received,
 * what the server stored and what a client reads.
 */
const EMAIL = "ines.duarte@example.org"
const CARD = "4111 1111 1111 1111"
const KEY = `sk-ant-api03-${"Zx9".repeat(14)}`
const CRM_EMAIL = "bo.lindqvist@example.com"
const CRM_PHONE = "+1 415 555 2671"

/** A CRM lookup: what a tool that reads the outside world returns (personal data). */
const crmLookup = ToolRegistry.tool({
  name: "crm.lookup",
  description: "Looks a customer up by id: name, email and phone.",
  input: Schema.Struct({ customer: Schema.String }),
  output: Schema.String,
  timeoutMs: 1_000,
  idempotent: true,
  run: () => Effect.succeed(`Bo Lindqvist, ${CRM_EMAIL}, ${CRM_PHONE}`)
})

let stub: OpenAiStub
let app: TestServer
/** What the answer synthesis says, and the plan (per test). */
let answerText = "Forty-two."
let plan: object = byPrompt.plan_generation_user!
beforeAll(async () => {
  stub = await startOpenAiStub()
  stub.replyWith((body) => {
    const prompt = promptOfRequest(body) ?? ""
    const answer = prompt === "answer_synthesis_user"
      ? { answerText, confidence: 0.9, usedStepIds: ["s1"] }
      : prompt === "plan_generation_user"
      ? plan
      : byPrompt[prompt] ?? {}
    return { content: JSON.stringify(answer) }
  })
  app = await startServer({
    model: stubModel(stub),
    tools: [crmLookup],
    guardrails: {
      input: [{ type: "pii", action: "redact", kinds: ["email", "card"] }, {
        type: "denylist",
        name: "codenames",
        action: "block",
        words: ["Project Falcon"]
      }],
      tool_result: [{ type: "pii", action: "redact" }],
      output: [{ type: "secrets", action: "block" }]
    }
  })
})
afterAll(async () => {
  await app?.stop()
  await stub?.close()
})

const RUN = `query($id: ID!) { run(id: $id) {
  status task result { errorCode error } finalAnswer { answerText }
  events { type payload } llmCalls(first: 100) { edges { node { system user response } } } } }`

const start = async (input: object) => {
  const started = await gql(app.url, `mutation($i: RunTaskInput!) { runTask(input: $i) { id } }`, { i: input })
  expect(started.body.errors).toBeUndefined()
  const id = started.body.data.runTask.id as string
  return { id, run: await awaitRun(app.url, id, { query: RUN }) }
}
const sent = () => JSON.stringify(stub.requests)

describe("guardrails through the server (#71)", () => {
  it("input redaction: the provider never receives the values; the stored run and its prompts hold placeholders", async () => {
    answerText = "Forty-two."
    stub.requests.length = 0 // forgets earlier requests
    const { run } = await start({ task: `Compute 6 * 7 for ${EMAIL}, card ${CARD}`, mode: "FULL", memory: false })
    expect(run.status).toBe("CONVERGED")
    expect(stub.requests.length).toBeGreaterThan(0)
    expect(sent()).not.toContain(EMAIL)
    expect(sent()).not.toContain("4111")
    expect(sent()).toContain("<EMAIL_1>")
    expect(run.task).toBe("Compute 6 * 7 for <EMAIL_1>, card <CARD_1>")
    const stored = JSON.stringify(run)
    expect(stored).not.toContain(EMAIL)
    expect(stored).not.toContain("4111")
    const triggered = run.events.filter((e: any) => e.type === "GuardrailTriggered")
    expect(triggered.map((e: any) => e.payload)).toEqual([
      {
        point: "input",
        guardrail: "pii",
        action: "redact",
        kinds: ["card", "email"],
        placeholders: ["<CARD_1>", "<EMAIL_1>"]
      }
    ])
  })

  it("a denylisted input: blocked, FAILED GUARDRAIL, no request sent", async () => {
    stub.requests.length = 0
    const { run } = await start({ task: "What is the budget of Project Falcon?", memory: false })
    expect(run.status).toBe("FAILED")
    expect(run.result).toEqual({
      errorCode: "GUARDRAIL",
      error: "guardrail codenames blocked the input: it holds word"
    })
    expect(stub.requests).toEqual([])
    expect(JSON.stringify(run).toLowerCase()).not.toContain("falcon")
  })

  it("a tool's result with personal data is redacted before the next prompt", async () => {
    stub.requests.length = 0
    answerText = "The contact line is ready."
    plan = {
      goal: "Write the contact line of customer c-17",
      steps: [
        { stepId: "s1", description: "Look customer c-17 up", tool: "crm.lookup", toolInput: { customer: "c-17" } },
        { stepId: "s2", description: "Write the customer's contact line", dependencies: ["s1"] }
      ]
    }
    try {
      const { run } = await start({ task: "Write the contact line of customer c-17", mode: "FULL", memory: false })
      expect(run.status).not.toBe("FAILED")
      const invoked = run.events.find((e: any) => e.type === "ToolInvoked")
      expect(invoked.payload.output).toBe("Bo Lindqvist, <EMAIL_1>, <PHONE_1>")
      expect(sent()).not.toContain(CRM_EMAIL)
      expect(sent()).not.toContain("555 2671")
      expect(sent()).toContain("<EMAIL_1>")
      expect(JSON.stringify(run)).not.toContain(CRM_EMAIL)
      const triggered = run.events.filter((e: any) => e.type === "GuardrailTriggered").map((e: any) => e.payload)
      expect(triggered).toEqual([expect.objectContaining({
        point: "tool_result",
        action: "redact",
        kinds: ["email", "phone"],
        stepId: "s1"
      })])
    } finally {
      plan = byPrompt.plan_generation_user!
    }
  })

  it("an answer carrying a key is withheld: FAILED GUARDRAIL, the key in no stored answer or record", async () => {
    stub.requests.length = 0
    answerText = `Use the key ${KEY} to call the API.`
    const { run } = await start({ task: "Compute 6 * 7", mode: "FULL", memory: false })
    expect(run.status).toBe("FAILED")
    expect(run.result).toEqual({
      errorCode: "GUARDRAIL",
      error: "guardrail secrets blocked the output: it holds api_key"
    })
    expect(run.finalAnswer).toBeNull()
    expect(JSON.stringify(run)).not.toContain(KEY)
  })

  it("also when streamed (/v1): no piece of the key reaches the client, the error is `guardrail`", async () => {
    stub.requests.length = 0
    answerText = `Use the key ${KEY} to call the API.`
    const client = new OpenAI({ baseURL: `${app.url.replace(/\/graphql$/, "")}/v1`, apiKey: "none" })
    const stream = await client.chat.completions.create({
      model: "aeon-full",
      messages: [{ role: "user", content: "Compute 6 * 7" }],
      stream: true
    })
    let text = ""
    const failure = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? ""
    })().then(() => undefined, (e: unknown) => e)
    expect(text).not.toContain("sk-ant")
    expect(failure).toMatchObject({ code: "guardrail" })
    // not streamed: a plain completion is the same error
    const plain = await client.chat.completions.create({
      model: "aeon-full",
      messages: [{ role: "user", content: "Compute 6 * 7" }]
    }).then(() => undefined, (e: unknown) => e)
    expect(plain).toMatchObject({ code: "guardrail" })
  })

  it("A2A and AG-UI end a blocked run in their own words: failed with the reason, RUN_ERROR coded GUARDRAIL", async () => {
    answerText = `Use the key ${KEY} to call the API.`
    const base = app.url.replace(/\/graphql$/, "")
    const client = await new ClientFactory().createFromUrl(base)
    const sent = await client.sendMessage({
      tenant: "",
      message: userMessage("Compute 6 * 7"),
      configuration: undefined,
      metadata: { aeon: { mode: "FULL" } }
    })
    const task = "artifacts" in sent ? sent : undefined
    expect(task?.status?.state).toBe(TaskState.TASK_STATE_FAILED)
    const said = task?.status?.message?.parts.map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("")
    expect(said).toContain("guardrail secrets blocked the output")
    expect(JSON.stringify(sent)).not.toContain("sk-ant")
    const agent = new HttpAgent({ url: `${base}/ag-ui` })
    agent.addMessage({ id: "m1", role: "user", content: "Compute 6 * 7" })
    const events: Array<BaseEvent> = []
    await agent.runAgent({ forwardedProps: { aeon: { mode: "FULL" } } }, {
      onEvent: ({ event }) => void events.push(event)
    })
      .catch(() => undefined) // the client rejects a run that ended in RUN_ERROR
    expect(events.find((e) => e.type === "RUN_ERROR")).toMatchObject({
      code: "GUARDRAIL",
      message: "guardrail secrets blocked the output: it holds api_key"
    })
    expect(JSON.stringify(events)).not.toContain("sk-ant")
  })

  it("a run's guardrails add to the server's and cannot remove them", async () => {
    stub.requests.length = 0
    answerText = "Forty-two."
    const { run } = await start({
      task: `Compute 6 * 7 for ${EMAIL} at 10.20.30.40`,
      mode: "FULL",
      memory: false,
      // an empty input list removes nothing; an ip redaction adds to the server's email redaction
      guardrails: { input: [{ type: "pii", action: "redact", kinds: ["ip"] }], output: [] }
    })
    expect(run.task).toBe("Compute 6 * 7 for <EMAIL_1> at <IP_1>")
    expect(sent()).not.toContain("10.20.30.40")
  })

  it("a run's bad guardrails are refused naming the field, nothing stored", async () => {
    const refused = await gql(app.url, `mutation($i: RunTaskInput!) { runTask(input: $i) { id } }`, {
      i: { task: "Compute 6 * 7", guardrails: { output: [{ type: "pii", action: "hide" }] } }
    })
    expect(refused.body.errors?.[0]?.extensions?.code).toBe("InvalidRunInputError")
    expect(refused.body.errors?.[0]?.message).toMatch(/guardrails\.output\.0\.action/)
  })

  it("health counts the triggers by guardrail, point and action", async () => {
    const health = await gql(app.url, `{ health { guardrailTriggers { point guardrail action count } } }`)
    const counts = health.body.data.health.guardrailTriggers
    expect(counts).toEqual(expect.arrayContaining([
      { point: "input", guardrail: "codenames", action: "block", count: 1 },
      { point: "output", guardrail: "secrets", action: "block", count: 5 }
    ]))
  })
})
