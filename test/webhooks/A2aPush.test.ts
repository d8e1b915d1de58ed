import { type SendMessageConfiguration, type Task, TaskState } from "@a2a-js/sdk"
import { ClientFactory } from "@a2a-js/sdk/client"
import { Option, Redacted } from "effect"
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { noWebhooks } from "../../src/domain/Webhook.js"
import { userMessage } from "../support/a2a.js"
import { startServer, type TestServer } from "../support/server.js"
import { Arrivals } from "../support/until.js"

/**
 * A2A push notifications (#73.2) through the official `@a2a-js/sdk` client: a push configuration given with
 * message/send, and set, read, listed and deleted on its own; every state change of the task POSTed to its URL with its
 * token, through the webhooks' outbox and its host allow list.
 */
const posts = new Arrivals<{ headers: IncomingHttpHeaders; body: any }>()
const got = posts.all
const receiver = createServer((req, res) => {
  let body = ""
  req.on("data", (d) => (body += d))
  req.on("end", () => {
    posts.push({ headers: req.headers, body: JSON.parse(body) })
    res.writeHead(200).end()
  })
})
let server: TestServer
let hooks = ""
beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
  const port = (receiver.address() as AddressInfo).port
  hooks = `http://127.0.0.1:${port}/a2a`
  server = await startServer({
    webhooks: { ...noWebhooks, hosts: [`127.0.0.1:${port}`], secret: Option.some(Redacted.make("whsec_eA==")) }
  })
})
afterAll(async () => {
  await server?.stop()
  await new Promise<void>((resolve) => receiver.close(() => resolve()))
})

const client = () => new ClientFactory().createFromUrl(server.url.replace(/\/graphql$/, ""))
const pushConfig = (token: string, url = hooks) => ({
  tenant: "",
  id: "",
  taskId: "",
  url,
  token,
  authentication: undefined
})
const statesFor = (taskId: string) =>
  got.filter((g) => g.body.statusUpdate?.taskId === taskId).map((g) => g.body.statusUpdate.status.state as string)
/** Once the task's push saying it completed has come. */
const completed = (taskId: string) =>
  posts.until(() => (statesFor(taskId).includes("TASK_STATE_COMPLETED") ? true : undefined))

describe("A2A push notifications", () => {
  it("the agent card says so; a config on message/send is told each state change, with its token, to the end", async () => {
    const a2a = await client()
    expect((await a2a.getAgentCard()).capabilities?.pushNotifications).toBe(true)
    const configuration = {
      acceptedOutputModes: [],
      taskPushNotificationConfig: pushConfig("tok-1"),
      returnImmediately: true
    } as unknown as SendMessageConfiguration
    const sent = await a2a.sendMessage({
      tenant: "",
      message: userMessage("Compute 17 + 25"),
      configuration,
      metadata: undefined
    }) as Task
    const taskId = sent.id
    await completed(taskId)
    const states = statesFor(taskId)
    expect(states.at(-1)).toBe("TASK_STATE_COMPLETED")
    expect(states.filter((s) => s === "TASK_STATE_COMPLETED")).toHaveLength(1)
    // the last push says what a read of the task says (one rule for both)
    const read = await a2a.getTask({ tenant: "", id: taskId, historyLength: 0 } as Parameters<typeof a2a.getTask>[0])
    expect(TaskState[read.status!.state]).toBe(states.at(-1))
    for (const g of got.filter((g) => g.body.statusUpdate?.taskId === taskId)) {
      expect(g.headers["x-a2a-notification-token"]).toBe("tok-1")
      expect(g.headers["content-type"]).toBe("application/a2a+json")
      expect(g.body.statusUpdate.contextId).toBe(sent.contextId)
    }
  })

  it("tasks/pushNotificationConfig set, get, list and delete; a URL outside the allow list is refused", async () => {
    const a2a = await client()
    const sent = await a2a.sendMessage({
      tenant: "",
      message: userMessage("Compute 2 + 3"),
      configuration: undefined,
      metadata: undefined
    }) as Task
    const set = await a2a.createTaskPushNotificationConfig({ ...pushConfig("tok-2"), taskId: sent.id, id: "mine" })
    expect(set).toMatchObject({ id: "mine", taskId: sent.id, url: hooks, token: "tok-2" })
    // set after the task ended: told its state now
    await completed(sent.id)
    expect(await a2a.getTaskPushNotificationConfig({ tenant: "", taskId: sent.id, id: "mine" })).toMatchObject({
      id: "mine",
      url: hooks
    })
    const listed = await a2a.listTaskPushNotificationConfig({
      tenant: "",
      taskId: sent.id,
      pageSize: 10,
      pageToken: ""
    })
    expect(listed.configs.map((c) => c.id)).toEqual(["mine"])
    await a2a.deleteTaskPushNotificationConfig({ tenant: "", taskId: sent.id, id: "mine" })
    const after = await a2a.listTaskPushNotificationConfig({ tenant: "", taskId: sent.id, pageSize: 10, pageToken: "" })
    expect(after.configs).toEqual([])
    await expect(
      a2a.createTaskPushNotificationConfig({ ...pushConfig("tok-3", "http://127.0.0.1:9/x"), taskId: sent.id, id: "x" })
    ).rejects.toThrow(/WEBHOOK_URL_NOT_ALLOWED/)
  })
})
