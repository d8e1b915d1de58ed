import * as SqlClient from "@effect/sql/SqlClient"
import { Context, Effect, Layer } from "effect"
import { parse, sqlValues, type StoreError, storeError } from "./StoreValues.js"

/**
 * Agents' versions as stored (store/Migrations 0015): per owner (a user's id, '' for the operator's and a server
 * without users) and name, each version's whole definition as JSON. The agents room (agents/Agents) decodes them.
 */
export interface StoredAgent {
  readonly owner: string
  readonly name: string
  readonly version: number
  readonly definition: unknown
  readonly createdAt: Date
}

export interface Service {
  /** The next version of the owner's agent, `definition` as given; with `ifChanged`, none when the latest is equal. */
  readonly save: (
    owner: string,
    name: string,
    definition: unknown,
    options?: { readonly ifChanged?: boolean }
  ) => Effect.Effect<StoredAgent, StoreError>
  /** Every version of the owner's agent, oldest first (none: no such agent). */
  readonly versions: (owner: string, name: string) => Effect.Effect<ReadonlyArray<StoredAgent>, StoreError>
  /** The latest version of each of the owners' agents. */
  readonly latest: (owners: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<StoredAgent>, StoreError>
  /** Removes the owner's agent, every version (runs of it keep the definition they ran). False: there was none. */
  readonly remove: (owner: string, name: string) => Effect.Effect<boolean, StoreError>
}

export class AgentStore extends Context.Tag("aeon/AgentStore")<AgentStore, Service>() {}

const toAgent = (r: any): StoredAgent => ({
  owner: r.owner,
  name: r.name,
  version: Number(r.version),
  definition: parse(r.definition),
  createdAt: new Date(r.created_at)
})

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const { time } = sqlValues(sql)
  const versions: Service["versions"] = (owner, name) =>
    sql`SELECT * FROM agents WHERE owner = ${owner} AND name = ${name} ORDER BY version`.pipe(
      Effect.map((rows) => rows.map(toAgent)),
      Effect.mapError(storeError(`reading agent ${name}`))
    )
  const insertNext = (owner: string, name: string, definition: unknown, ifChanged: boolean) =>
    Effect.gen(function*() {
      const last = (yield* sql`SELECT * FROM agents WHERE owner = ${owner} AND name = ${name}
        ORDER BY version DESC LIMIT 1`).map(toAgent)[0]
      if (ifChanged && last && same(last.definition, definition)) return last
      const version = (last?.version ?? 0) + 1
      const createdAt = Date.now()
      yield* sql`INSERT INTO agents (owner, name, version, definition, created_at)
        VALUES (${owner}, ${name}, ${version}, ${JSON.stringify(definition)}, ${time(createdAt)})`
      return { owner, name, version, definition, createdAt: new Date(createdAt) }
    })
  const service: Service = {
    save: (owner, name, definition, options = {}) =>
      sql.withTransaction(insertNext(owner, name, definition, options.ifChanged ?? false)).pipe(
        // two saves at once took the same number: the second goes again after the first
        Effect.retry({ times: 3, while: (e) => e._tag === "SqlError" }),
        Effect.mapError(storeError(`saving agent ${name}`))
      ),
    versions,
    latest: (owners) =>
      owners.length === 0 ? Effect.succeed([]) : sql`SELECT a.* FROM agents a WHERE ${sql.in("a.owner", owners)}
        AND a.version = (SELECT MAX(b.version) FROM agents b WHERE b.owner = a.owner AND b.name = a.name)
        ORDER BY a.name, a.owner`.pipe(
        Effect.map((rows) => rows.map(toAgent)),
        Effect.mapError(storeError("listing agents"))
      ),
    remove: (owner, name) =>
      sql`DELETE FROM agents WHERE owner = ${owner} AND name = ${name} RETURNING version`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.mapError(storeError(`deleting agent ${name}`))
      )
  }
  return service
})

/** Provided after the run store (its migrations made the table). */
export const layer = Layer.effect(AgentStore, make)
