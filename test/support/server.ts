import { Layer } from "effect"
import { createClient } from "graphql-sse"
import * as Aeon from "../../src/Aeon.js"
import type { Settings } from "../../src/domain/Webhook.js"
import * as Guardrails from "../../src/guardrails/Guardrails.js"
import { serve, type ServerConfig } from "../../src/launch/App.js"
import { LanguageModel } from "../../src/llm/LanguageModel.js"
import type * as LM from "../../src/llm/LanguageModel.js"
import * as Offline from "../../src/llm/Offline.js"
import * as Scripted from "../../src/llm/Scripted.js"
import * as Database from "../../src/store/Database.js"
import type * as ToolRegistry from "../../src/tools/ToolRegistry.js"
import { freshDatabase } from "./database.js"

export type TestServer = Awaited<ReturnType<typeof serve>>

/** A real server on a random loopback port: scripted (or offline) model, fresh database. */
export const startServer = async (
  options: {
    script?: Scripted.Script
    /** The model (a provider pointed at a stub, say); else the script's, else the offline one. */
    model?: LM.Service
    config?: Partial<ServerConfig>
    db?: ReturnType<typeof freshDatabase>
    /** The store layer, when a test needs more of it than the server (test/support/database's storeLayer exposes SQL). */
    database?: Layer.Layer<any, any>
    /** The operator's guardrails (AEON_GUARDRAILS's, in code). */
    guardrails?: Guardrails.GuardrailSet
    /** Tools beside the built-in ones. */
    tools?: ReadonlyArray<ToolRegistry.Tool>
    /** An MCP configuration file: its servers' tools join the run's. */
    mcpConfig?: string
    /** The webhook settings (AEON_WEBHOOK_*'s, in code). */
    webhooks?: Settings
  } = {}
) => {
  const db = options.db ?? freshDatabase()
  await import("effect").then(({ Effect }) => Effect.runPromise(db.setup))
  const model = options.model ??
    (options.script ? Scripted.make(options.script, Offline.service).service : Offline.service)
  const engine = Layer.mergeAll(
    Aeon.layerWithTools(options.tools, options.mcpConfig),
    Layer.succeed(LanguageModel, model),
    Guardrails.layer(options.guardrails ?? {})
  )
  const server = await serve({ port: 0, host: "127.0.0.1", ...options.config }, {
    engine,
    database: options.database ?? Database.layer(db),
    ...(options.webhooks ? { webhooks: options.webhooks } : {})
  })
  return { ...server, db }
}

export const gql = async (
  url: string,
  query: string,
  variables: Record<string, unknown> = {},
  headers: Record<string, string> = {}
) => {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ query, variables })
  })
  return {
    status: res.status,
    body: await res.json() as { data?: any; errors?: Array<{ message: string; extensions?: { code?: string } }> }
  }
}

export const waitFor = async <A>(f: () => Promise<A | undefined>, timeoutMs = 20_000): Promise<A> => {
  const until = Date.now() + timeoutMs
  while (Date.now() < until) {
    const v = await f()
    if (v !== undefined) return v
    await new Promise((r) => setTimeout(r, 25))
  }
  throw new Error("timed out waiting")
}

/**
 * Awaits a run's end as a client does: its `runEvents` subscription (over SSE) until RunFinished (or the event type
 * `until` names) — the event awaited, not a poll —, then the run as `query` (a query taking `$id`) reads it. A run that
 * never gets there is the test's timeout.
 */
export const awaitRun = async (
  url: string,
  id: string,
  options: { readonly query?: string; readonly headers?: Record<string, string>; readonly until?: string } = {}
) => {
  const headers = options.headers ?? {}
  const client = createClient({ url, headers: { "x-graphql-yoga-csrf": "1", ...headers } })
  try {
    for await (
      const r of client.iterate<{ runEvents: { type: string } }>({
        query: `subscription($id: ID!) { runEvents(runId: $id, fromSeq: 0) { type } }`,
        variables: { id }
      })
    ) {
      if (r.data?.runEvents.type === (options.until ?? "RunFinished")) break
    }
  } finally {
    client.dispose()
  }
  const query = options.query ?? `query($id: ID!) { run(id: $id) { status } }`
  return (await gql(url, query, { id }, headers)).body.data.run
}
