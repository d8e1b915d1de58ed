import type * as PgClient from "@effect/sql-pg/PgClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { Clock, Context, Duration, Effect, Fiber, Layer, Predicate, PubSub, Scope, Stream } from "effect"
import { randomUUID } from "node:crypto"
import { repeated } from "../support/Background.js"
import { announcement, noticesChannel, type Topic } from "./StoreValues.js"

/**
 * What the LISTEN connection hears: an announcement on a topic, or that the connection was opened again — what was
 * announced meanwhile was not heard, so a listener reads again what it follows.
 */
export type Notice =
  | { readonly _tag: "Notified"; readonly topic: Topic; readonly payload: string }
  | { readonly _tag: "Reopened" }

export interface Service {
  /** Whether anything can be heard (PostgreSQL); on the embedded database no other process announces anything. */
  readonly listening: boolean
  /**
   * What is announced on `topic` from now on, while the scope lasts (subscribed when this runs, so nothing announced
   * after it is missed), and each reopening of the connection. The first subscription opens the process's connection.
   */
  readonly notices: (topic: Topic) => Effect.Effect<Stream.Stream<Notice>, never, Scope.Scope>
}

export class Notifications extends Context.Tag("aeon/Notifications")<Notifications, Service>() {}

export interface ListenOptions {
  /** How often the connection is pinged; silent for three periods, it is opened again (default 5 s). */
  readonly watch?: Duration.DurationInput | undefined
}

/**
 * Every `every`, the LISTEN connection is pinged (a notification of its own); heard from last more than three
 * periods ago, it is reopened. On the Clock: tests drive it with TestClock.
 */
export const watchdog = (options: {
  readonly every: Duration.DurationInput
  readonly lastHeard: Effect.Effect<number>
  readonly ping: Effect.Effect<void>
  readonly reopen: Effect.Effect<void>
}) => {
  const silentMs = 3 * Duration.toMillis(options.every)
  const check = Effect.gen(function*() {
    if ((yield* Clock.currentTimeMillis) - (yield* options.lastHeard) > silentMs) {
      yield* Effect.logWarning("the LISTEN connection is silent; opening it again")
      yield* options.reopen
    }
    yield* options.ping
  })
  return repeated("the LISTEN watchdog", options.every, check)
}

/**
 * The connection's life: Aeon's one channel listened to, opened again after a failure or when the watchdog finds it
 * silent. There is one listen, so a reopening closes the old connection (the client's listens share one, released
 * when none is left: a second left listening would keep a dead connection for all).
 */
const listenOn = (pg: PgClient.PgClient, notices: PubSub.PubSub<Notice>, watch: Duration.DurationInput) =>
  Effect.gen(function*() {
    const token = randomUUID()
    let heard = yield* Clock.currentTimeMillis
    const heardAt = Effect.map(Clock.currentTimeMillis, (now) => void (heard = now))
    const ping = announcement("ping", token)
    const listenOnce = Stream.runForEach(pg.listen(noticesChannel), (said) => {
      if (said === ping) return heardAt
      const space = said.indexOf(" ")
      const topic = said.slice(0, space)
      if (topic !== "events") return Effect.void // another process's ping
      return PubSub.publish(notices, { _tag: "Notified", topic, payload: said.slice(space + 1) })
    })
    const reopened = PubSub.publish(notices, { _tag: "Reopened" })
    const listening = listenOnce.pipe(
      Effect.catchAllCause((cause) => Effect.logWarning("the LISTEN connection failed; opening it again", cause)),
      Effect.zipRight(Effect.sleep(Duration.seconds(1))),
      Effect.zipRight(reopened),
      Effect.forever
    )
    const scope = yield* Effect.scope
    let listener = yield* Effect.forkIn(listening, scope)
    yield* Effect.forkScoped(watchdog({
      every: watch,
      lastHeard: Effect.sync(() => heard),
      // not the client's `notify`: it sends `NOTIFY channel, $1`, which PostgreSQL refuses (no parameters there)
      ping: pg`SELECT pg_notify(${noticesChannel}, ${ping})`.pipe(
        Effect.catchAllCause((cause) => Effect.logDebug("the LISTEN ping was not sent", cause))
      ),
      reopen: Effect.gen(function*() {
        yield* Fiber.interrupt(listener)
        listener = yield* Effect.forkIn(listening, scope)
        yield* heardAt
        yield* reopened
      })
    }))
  })

const isPg = (sql: unknown): sql is PgClient.PgClient => Predicate.hasProperty(sql, "listen")

/** The process's one LISTEN connection over the store's SQL client (PostgreSQL); nothing to hear elsewhere. */
export const make = (options: ListenOptions = {}) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    if (!isPg(sql)) return Notifications.of({ listening: false, notices: () => Effect.succeed(Stream.never) })
    const notices = yield* PubSub.unbounded<Notice>()
    const scope = yield* Effect.scope
    const open = yield* Effect.once(Scope.extend(listenOn(sql, notices, options.watch ?? "5 seconds"), scope))
    return Notifications.of({
      listening: true,
      notices: (topic) =>
        Effect.gen(function*() {
          const subscription = yield* PubSub.subscribe(notices)
          yield* open
          return Stream.filter(
            Stream.fromQueue(subscription),
            (n) => n._tag === "Reopened" || n.topic === topic
          )
        })
    })
  })

export const layer = (options: ListenOptions = {}) => Layer.scoped(Notifications, make(options))
