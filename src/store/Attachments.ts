import * as SqlClient from "@effect/sql/SqlClient"
import { Context, Effect, Layer, Option } from "effect"
import { createHash } from "node:crypto"
import { sqlValues, type StoreError, storeError } from "./StoreValues.js"

/**
 * The files and images tasks carry, stored once by the sha256 of their bytes (store/Migrations 0013): a run's input
 * names them by hash, so its replay and its forks read the same bytes, and a file sent with many runs is kept once.
 */
export interface Service {
  /** Stores the bytes (base64) unless they are stored already; their hash. */
  readonly put: (mediaType: string, data: string) => Effect.Effect<string, StoreError>
  /** The bytes (base64) of a stored attachment. */
  readonly get: (sha256: string) => Effect.Effect<Option.Option<string>, StoreError>
}

export class Attachments extends Context.Tag("aeon/Attachments")<Attachments, Service>() {}

export const sha256Of = (data: string) => createHash("sha256").update(Buffer.from(data, "base64")).digest("hex")

export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const { time } = sqlValues(sql)
  const service: Service = {
    put: (mediaType, data) =>
      Effect.suspend(() => {
        const sha = sha256Of(data)
        const bytes = Buffer.from(data, "base64")
        return sql`INSERT INTO attachments (sha256, media_type, data, size, created_at)
          VALUES (${sha}, ${mediaType}, ${bytes.toString("base64")}, ${bytes.length}, ${time(Date.now())})
          ON CONFLICT (sha256) DO NOTHING`.pipe(Effect.as(sha), Effect.mapError(storeError("storing an attachment")))
      }),
    get: (sha) =>
      sql<{ data: string }>`SELECT data FROM attachments WHERE sha256 = ${sha}`.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0]?.data)),
        Effect.mapError(storeError(`reading attachment ${sha}`))
      )
  }
  return service
})

export const layer = Layer.effect(Attachments, make)
