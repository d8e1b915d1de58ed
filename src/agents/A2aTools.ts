/**
 * A remote A2A agent of the operator's file as a tool `a2a.<name>`: its call sends the task as one message through
 * `@a2a-js/sdk`'s client (the agent card read from the entry's url, the entry's headers on every request) and its
 * answer is the remote task's text. The remote task's id is said in the step's event; a failed, rejected or
 * unreachable remote task is a coded step failure (A2A_FAILED: …).
 */
import { Effect, Schema } from "effect"
import { messageOf } from "../support/Thrown.js"
import { type Tool, tool, ToolFailedError } from "../tools/ToolRegistry.js"
import { a2aToolName, type RemoteAgent } from "./Agent.js"

/** How long a remote agent's task may take before the call fails. */
const REMOTE_TIMEOUT_MS = 300_000

const withHeaders = (headers: Readonly<Record<string, string>> | undefined): typeof fetch => (input, init) =>
  fetch(input, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers).entries()), ...headers } })

type Sent = Awaited<
  ReturnType<Awaited<ReturnType<import("@a2a-js/sdk/client").ClientFactory["createFromUrl"]>>["sendMessage"]>
>

const textOf = (
  parts:
    | ReadonlyArray<{ readonly content?: { readonly $case: string; readonly value?: unknown } | undefined }>
    | undefined
) => (parts ?? []).map((p) => (p.content?.$case === "text" ? String(p.content.value) : "")).join("")

/** The remote task's id, state and text (a task's last message and artifacts, or a direct message). */
const answerOf = (sent: Sent) => {
  if ("artifacts" in sent) {
    const artifacts = sent.artifacts.map((a) => textOf(a.parts)).join("\n")
    const status = textOf(sent.status?.message?.parts)
    return { taskId: sent.id, state: String(sent.status?.state ?? ""), text: artifacts || status }
  }
  return { taskId: undefined, state: "TASK_STATE_COMPLETED", text: textOf(sent.parts) }
}

const FAILED_STATES = ["TASK_STATE_FAILED", "TASK_STATE_REJECTED", "TASK_STATE_CANCELED", "TASK_STATE_AUTH_REQUIRED"]

/** The tool of one remote agent. */
export const remoteAgentTool = (name: string, remote: RemoteAgent): Tool =>
  tool({
    name: a2aToolName(name),
    description: remote.description ?? `the remote A2A agent ${name}: give it a task, it answers in text`,
    input: Schema.Struct({ task: Schema.String }),
    output: Schema.String,
    inputJsonSchema: {
      type: "object",
      properties: { task: { type: "string", description: "what the agent should do, in full" } },
      required: ["task"]
    },
    timeoutMs: REMOTE_TIMEOUT_MS,
    idempotent: false,
    interruptible: true,
    readsOutside: true,
    actsOutside: true,
    run: (input, context) =>
      Effect.tryPromise({
        try: async (signal) => {
          const sdk = await import("@a2a-js/sdk/client")
          const fetchImpl = withHeaders(remote.headers)
          const factory = new sdk.ClientFactory(
            sdk.ClientFactoryOptions.createFrom(sdk.ClientFactoryOptions.default, {
              transports: [new sdk.JsonRpcTransportFactory({ fetchImpl })],
              cardResolver: new sdk.DefaultAgentCardResolver({ fetchImpl })
            })
          )
          const client = await factory.createFromUrl(remote.url)
          const { randomUUID } = await import("node:crypto")
          return answerOf(
            await client.sendMessage({
              tenant: "",
              message: {
                messageId: randomUUID(),
                contextId: "",
                taskId: "",
                role: 1,
                parts: [{
                  content: { $case: "text", value: input.task },
                  metadata: undefined,
                  filename: "",
                  mediaType: "text/plain"
                }],
                metadata: undefined,
                extensions: [],
                referenceTaskIds: []
              },
              configuration: undefined,
              metadata: undefined
            }, { signal })
          )
        },
        catch: (e) => new ToolFailedError({ tool: a2aToolName(name), message: `A2A_FAILED: ${messageOf(e)}` })
      }).pipe(
        Effect.tap((a) => Effect.sync(() => a.taskId && context.report?.({ remoteTaskId: a.taskId }))),
        Effect.flatMap((a) =>
          FAILED_STATES.includes(a.state)
            ? Effect.fail(
              new ToolFailedError({
                tool: a2aToolName(name),
                message: `A2A_FAILED: the remote task ${a.taskId ?? ""} ended ${
                  a.state.replace("TASK_STATE_", "").toLowerCase()
                }${a.text ? `: ${a.text}` : ""}`
              })
            )
            : Effect.succeed(a.text)
        )
      )
  })
