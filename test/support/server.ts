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
 * The server's health (`fields` of it) once `wanted` holds of it. Health is a reading of the process now — runs under
 * way, the store's state — that no event or notification announces, so this is the one wait on it that reads it again.
 */
export const untilHealth = (
  url: string,
  fields: string,
  wanted: (health: any) => boolean,
  timeoutMs = 30_000
) =>
  waitFor(async () => {
    const health = (await gql(url, `{ health { ${fields} } }`)).body.data?.health
    return health && wanted(health) ? health : undefined
  }, timeoutMs)

/** A run's event as its subscription gives it. */
export type SeenEvent = { readonly seq: number; readonly type: string; readonly payload: any }

/**
 * Follows a run's events as a client does — its `runEventBatches` subscription over SSE, from the first — and answers
 * the first thing `pick` finds: looked at again on each burst the run publishes (and once more when the run ends), not
 * on a timer. A run that ends without `pick` answering, or `timeoutMs` passing, fails the wait.
 */
export const untilEvents = async <B>(
  url: string,
  id: string,
  pick: (events: ReadonlyArray<SeenEvent>) => B | undefined | Promise<B | undefined>,
  options: { readonly headers?: Record<string, string>; readonly timeoutMs?: number } = {}
): Promise<B> => {
  const client = createClient({ url, headers: { "x-graphql-yoga-csrf": "1", ...options.headers } })
  const seen: Array<SeenEvent> = []
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    client.dispose()
  }, options.timeoutMs ?? 60_000)
  try {
    for await (
      const r of client.iterate<{ runEventBatches: Array<SeenEvent> }>({
        query: `subscription($id: ID!) { runEventBatches(runId: $id, fromSeq: 0) { seq type payload } }`,
        variables: { id }
      })
    ) {
      if (r.errors) throw new Error(`run ${id}: ${JSON.stringify(r.errors)}`)
      seen.push(...(r.data?.runEventBatches ?? []))
      const picked = await pick(seen)
      if (picked !== undefined) return picked
    }
    const last = timedOut ? undefined : await pick(seen)
    if (last !== undefined) return last
    throw new Error(
      `run ${id} ${timedOut ? "was still going" : "ended"} without what the test waited for; its events: ${
        seen.map((e) => e.type).join(", ")
      }`
    )
  } finally {
    clearTimeout(timer)
    client.dispose()
  }
}

/** The first of a run's events of this type (or matching this predicate), once the run has published it. */
export const untilEvent = (
  url: string,
  id: string,
  match: string | ((e: SeenEvent) => boolean),
  options: { readonly headers?: Record<string, string>; readonly timeoutMs?: number } = {}
) => untilEvents(url, id, (events) => events.find(typeof match === "string" ? (e) => e.type === match : match), options)

const RUN_STATUS = `query($id: ID!) { run(id: $id) { status } }`

/**
 * The run as `query` (taking `$id`) reads it, once `wanted` holds of it: read again after each burst of its events
 * (a run's state changes only by its events), not on a timer.
 */
export const untilRun = <R = any>(
  url: string,
  id: string,
  wanted: (run: R) => boolean,
  options: { readonly query?: string; readonly headers?: Record<string, string>; readonly timeoutMs?: number } = {}
) =>
  untilEvents(url, id, async () => {
    const run = (await gql(url, options.query ?? RUN_STATUS, { id }, options.headers)).body.data?.run as R | undefined
    return run !== undefined && run !== null && wanted(run) ? run : undefined
  }, options)

/** A run's status once it is one of `statuses` (read as `query` reads it). */
export const untilStatus = (
  url: string,
  id: string,
  statuses: string | ReadonlyArray<string>,
  options: { readonly query?: string; readonly headers?: Record<string, string>; readonly timeoutMs?: number } = {}
) => untilRun<any>(url, id, (run) => [statuses].flat().includes(run.status), options)

/** The statuses a run ends in. */
export const ENDED: ReadonlyArray<string> = ["CONVERGED", "NOT_CONVERGED", "FAILED", "CANCELLED"]

/**
 * Awaits a run's end as a client does: its events until RunFinished (or the event type `until` names) — the event
 * awaited, not a poll —, then the run as `query` (a query taking `$id`) reads it.
 */
export const awaitRun = async (
  url: string,
  id: string,
  options: { readonly query?: string; readonly headers?: Record<string, string>; readonly until?: string } = {}
) => {
  const headers = options.headers ?? {}
  await untilEvent(url, id, options.until ?? "RunFinished", { headers })
  return (await gql(url, options.query ?? RUN_STATUS, { id }, headers)).body.data.run
}
