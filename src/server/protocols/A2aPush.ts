/**
 * A2A push notifications (#73.2): a task's `pushNotificationConfig`s kept in the store (tasks/pushNotificationConfig/
 * set, get, list, delete, and `configuration.taskPushNotificationConfig` on message/send), each told every state change
 * of the task as it is stored — POSTed with its token (`X-A2A-Notification-Token`) or authentication through the
 * webhooks' outbox (store/Outbox, webhooks/Delivery): durable, retried, one server per delivery, only to the hosts
 * AEON_WEBHOOK_HOSTS allows.
 */
import type { TaskPushNotificationConfig } from "@a2a-js/sdk"
import { RequestMalformedError, TaskNotFoundError } from "@a2a-js/sdk/errors"
import { Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import { a2aTaskState } from "../../domain/A2aTaskState.js"
import { noWebhooks, urlAllowed, WebhookSettings } from "../../domain/Webhook.js"
import { awaitingInput } from "../../record/Requests.js"
import type { RunModel } from "../../runs/RunModel.js"
import { Outbox, type PushConfig } from "../../store/Outbox.js"

/** The run as the A2A handler reads it (its user's own), its context, and how it runs an Effect. */
export interface PushAccess {
  readonly found: (taskId: string) => Promise<RunModel>
  readonly contextOf: (run: RunModel) => string
  readonly run: <A, E>(effect: Effect.Effect<A, E>) => Promise<A>
}

const outbox = Effect.flatMap(Effect.serviceOption(Outbox), (o) =>
  Option.match(o, {
    onNone: () => Effect.dieMessage("push notifications need the store"),
    onSome: Effect.succeed
  }))

const asProtocol = (taskId: string, c: PushConfig): TaskPushNotificationConfig => ({
  tenant: "",
  id: c.id,
  taskId,
  url: c.url,
  token: c.token ?? "",
  authentication: c.authentication
})

/** The status the task is in now (a run waiting for a person is INPUT_REQUIRED), and its last event. */
const stateNow = (run: RunModel) => ({
  state: a2aTaskState(
    run.status === "RUNNING" && awaitingInput(run.record) ? "AWAITING_INPUT" : run.status,
    run.result.finalAnswer !== undefined
  ),
  seq: run.events.at(-1)?.seq ?? 0
})

/** Keeps a configuration for the task: its URL allowed, told the task's state now, then each change. */
export const setPush = async (
  access: PushAccess,
  taskId: string,
  config: TaskPushNotificationConfig
): Promise<TaskPushNotificationConfig> => {
  const run = await access.found(taskId)
  const settings = await access.run(
    Effect.map(Effect.serviceOption(WebhookSettings), Option.getOrElse(() => noWebhooks))
  )
  if (!urlAllowed(config.url, settings.hosts)) {
    throw new RequestMalformedError(
      `WEBHOOK_URL_NOT_ALLOWED: the push URL ${config.url} is not allowed: its host must be one of the server's AEON_WEBHOOK_HOSTS`
    )
  }
  const kept: PushConfig = {
    id: config.id || randomUUID(),
    url: config.url,
    token: config.token || undefined,
    authentication: config.authentication?.scheme ? config.authentication : undefined
  }
  await access.run(Effect.flatMap(outbox, (o) => o.setPush(run.id, access.contextOf(run), kept, stateNow(run))))
  return asProtocol(run.id, kept)
}

/** The push handlers of Aeon's A2A request handler. */
export interface PushHandlers {
  readonly createTaskPushNotificationConfig: (params: TaskPushNotificationConfig) => Promise<TaskPushNotificationConfig>
  readonly getTaskPushNotificationConfig: (
    params: { taskId: string; id: string }
  ) => Promise<TaskPushNotificationConfig>
  readonly listTaskPushNotificationConfigs: (
    params: { taskId: string }
  ) => Promise<{ configs: Array<TaskPushNotificationConfig>; nextPageToken: string }>
  readonly deleteTaskPushNotificationConfig: (params: { taskId: string; id: string }) => Promise<void>
}

export const pushHandlers = (access: PushAccess): PushHandlers => ({
  createTaskPushNotificationConfig: (params: TaskPushNotificationConfig) => setPush(access, params.taskId, params),
  getTaskPushNotificationConfig: async (params: { taskId: string; id: string }) => {
    const run = await access.found(params.taskId)
    const configs = await access.run(Effect.flatMap(outbox, (o) => o.pushConfigs(run.id)))
    const config = configs.find((c) => c.id === params.id)
    if (!config) throw new TaskNotFoundError(`task ${params.taskId} has no push configuration ${params.id}`)
    return asProtocol(run.id, config)
  },
  listTaskPushNotificationConfigs: async (params: { taskId: string }) => {
    const run = await access.found(params.taskId)
    const configs = await access.run(Effect.flatMap(outbox, (o) => o.pushConfigs(run.id)))
    return { configs: configs.map((c) => asProtocol(run.id, c)), nextPageToken: "" }
  },
  deleteTaskPushNotificationConfig: async (params: { taskId: string; id: string }) => {
    const run = await access.found(params.taskId)
    await access.run(Effect.flatMap(outbox, (o) => o.deletePush(run.id, params.id)))
  }
})
