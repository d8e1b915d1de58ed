import { Layer } from "effect"
import * as Aeon from "../../src/Aeon.js"
import { serve, type ServerConfig } from "../../src/launch/App.js"
import { LanguageModel } from "../../src/llm/LanguageModel.js"
import * as Offline from "../../src/llm/Offline.js"
import * as Scripted from "../../src/llm/Scripted.js"
import * as Database from "../../src/store/Database.js"
import { freshDatabase } from "./database.js"

export type TestServer = Awaited<ReturnType<typeof serve>>

/** A real server on a random loopback port: scripted (or offline) model, fresh database. */
export const startServer = async (
  options: {
    script?: Scripted.Script
    config?: Partial<ServerConfig>
    db?: ReturnType<typeof freshDatabase>
    /** The store layer, when a test needs more of it than the server (test/support/database's storeLayer exposes SQL). */
    database?: Layer.Layer<any, any>
  } = {}
) => {
  const db = options.db ?? freshDatabase()
  await import("effect").then(({ Effect }) => Effect.runPromise(db.setup))
  const model = options.script ? Scripted.make(options.script, Offline.service).service : Offline.service
  const engine = Layer.mergeAll(Aeon.layerWithTools(), Layer.succeed(LanguageModel, model))
  const server = await serve({ port: 0, host: "127.0.0.1", ...options.config }, {
    engine,
    database: options.database ?? Database.layer(db)
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
