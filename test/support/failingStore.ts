import { SqlError } from "@effect/sql/SqlError"
import { Effect, Layer } from "effect"
import { EventSink } from "../../src/journal/RunJournal.js"
import { PromptId } from "../../src/prompts/PromptId.js"
import * as Database from "../../src/store/Database.js"
import { RunStore, sinkOf } from "../../src/store/RunStore.js"
import { storeError } from "../../src/store/StoreValues.js"
import { freshDatabase } from "./database.js"
import { convergingScript, reasoned } from "./scripts.js"
import { startServer } from "./server.js"

const diskFull = () =>
  storeError("appending")(
    new SqlError({ cause: Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" }) })
  )

/**
 * A store whose appends fail with SQLite's SQLITE_FULL while `down()` says so (the database itself stays whole: what
 * fails is the write, as on a full disk), for a server to use (startServer's `database`).
 */
export const failingDatabase = (
  db: ReturnType<typeof freshDatabase>,
  down: () => boolean,
  refused: () => void = () => {}
) => {
  const base = Database.layer(db)
  const store = Layer.effect(
    RunStore,
    Effect.map(RunStore, (s) => ({
      ...s,
      append: (...args: Parameters<typeof s.append>) =>
        Effect.suspend(
          () => (down() ? Effect.sync(refused).pipe(Effect.zipRight(Effect.fail(diskFull()))) : s.append(...args))
        )
    }))
  ).pipe(Layer.provide(base))
  const sink = Layer.effect(EventSink, Effect.map(RunStore, (s) => sinkOf(s))).pipe(Layer.provide(store))
  return Layer.merge(base, Layer.merge(store, sink))
}

/**
 * A server on a fresh database whose appends fail while `down()` says so, its model the converging script with a
 * reasoning step of 300 ms (the store can fail while a run is under way).
 */
export const startServerOnFailingStore = async (down: () => boolean, refused?: () => void) => {
  const db = freshDatabase()
  await Effect.runPromise(db.setup)
  return startServer({
    db,
    database: failingDatabase(db, down, refused),
    script: { ...convergingScript(), [PromptId.REASONING_STEP_USER]: [{ ...reasoned("6 * 7 = 42"), delayMs: 300 }] }
  })
}
