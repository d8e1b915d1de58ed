import { type Task, TaskState } from "@a2a-js/sdk"
import { ClientFactory } from "@a2a-js/sdk/client"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { PromptId } from "../../src/prompts/PromptId.js"
import { userMessage } from "../support/a2a.js"
import { gql, startServer, type TestServer } from "../support/server.js"

/**
 * Each final status of a run is the A2A task state that says what happened (#54 item 8), read through
 * @a2a-js/sdk's own client: CONVERGED is completed with its answer; NOT_CONVERGED is failed — its best answer kept
 * as the artifact, labeled not converged, the status message saying why; FAILED is failed, saying its error;
 * CANCELLED is canceled. The offline model answers (a labeled stand-in); a script makes planning fail.
 */
let server: TestServer
let failing: TestServer
beforeAll(async () => {
  server = await startServer()
  failing = await startServer({ script: { [PromptId.PLAN_GENERATION_USER]: [{ error: { status: 500 } }] } })
})
afterAll(async () => {
  await server?.stop()
  await failing?.stop()
})

const clientOf = (s: TestServer) => new ClientFactory().createFromUrl(s.url.replace(/\/graphql$/, ""))
const send = async (s: TestServer, text: string, aeon: Record<string, unknown> = {}) => {
  const m = userMessage(text)
  const client = await clientOf(s)
  const sent = await client.sendMessage({ tenant: "", message: m, configuration: undefined, metadata: { aeon } })
  return { client, task: sent as Task }
}
const statusOf = async (s: TestServer, id: string) =>
  (await gql(s.url, `query($id: ID!) { run(id: $id) { status } }`, { id })).body.data.run.status as string
const said = (t: Task) => {
  const c = t.status?.message?.parts[0]?.content
  return c?.$case === "text" ? c.value : ""
}

describe("A2A task state per run status (#54.8)", () => {
  it("CONVERGED: completed, its answer the artifact", async () => {
    const { task } = await send(server, "Compute 17 + 25")
    expect(await statusOf(server, task.id)).toBe("CONVERGED")
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED)
    expect(task.artifacts[0]?.metadata).toBeUndefined()
  })

  it("NOT_CONVERGED: failed, saying why; its best answer kept, labeled not converged", async () => {
    const { client, task } = await send(server, "What is the capital of France?")
    expect(await statusOf(server, task.id)).toBe("NOT_CONVERGED")
    for (const t of [task, await client.getTask({ tenant: "", id: task.id })]) {
      expect(t.status?.state).toBe(TaskState.TASK_STATE_FAILED)
      expect(said(t)).toMatch(
        /^the run ended NOT_CONVERGED \(ttl_expired: ttl\).*not converged, is the artifact answer/
      )
      expect(t.artifacts).toHaveLength(1)
      expect(t.artifacts[0]!.description).toMatch(/NOT CONVERGED/)
      expect(t.artifacts[0]!.metadata).toEqual({ converged: false })
    }
  })

  it("FAILED: failed, saying its error", async () => {
    const { task } = await send(failing, "Compute 17 + 25", { mode: "FULL" })
    expect(await statusOf(failing, task.id)).toBe("FAILED")
    expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED)
    expect(said(task)).toMatch(/^the run ended FAILED.*plan generation failed/)
  })

  it("CANCELLED: canceled", async () => {
    const { client, task } = await send(server, "Compute 17 + 25", { mode: "FULL", approvePlan: true })
    expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED)
    const cancelled = await client.cancelTask({ tenant: "", id: task.id, metadata: undefined })
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED)
    expect(await statusOf(server, task.id)).toBe("CANCELLED")
  })
})
