import { Cause, Effect, Exit, Option, Runtime } from "effect"
import { GraphQLError } from "graphql"
import { publicFailure } from "../runs/PublicFailure.js"
import { stringField } from "../support/Fields.js"

/** Errors that cross the API carry a `_tag`; it becomes `extensions.code`. Anything else is masked. */
export const toGraphQLError = (cause: Cause.Cause<unknown>): GraphQLError => {
  const f = publicFailure(cause)
  if (f.code !== "INTERNAL") return new GraphQLError(f.message, { extensions: { code: f.code } })
  if (Cause.isInterruptedOnly(cause)) {
    return new GraphQLError("the request was cancelled", { extensions: { code: "CANCELLED" } })
  }
  return new GraphQLError("Unexpected error.", { extensions: { code: "INTERNAL_SERVER_ERROR" } })
}

/** How resolvers run Effects. */
export interface Adapter<R> {
  /** Runs `effect` for a request, cancelled with `signal`; a failure thrown as its GraphQLError (masked if internal). */
  readonly run: <A, E>(effect: Effect.Effect<A, E, R>, signal?: AbortSignal) => Promise<A>
  /** Reads what the built runtime holds in memory (its services), synchronously: no fiber of its own. */
  readonly read: <A>(effect: Effect.Effect<A, never, R>) => A
  readonly runtime: Runtime.Runtime<R>
}

/** The one place resolvers run Effects: through the server's runtime (its Layer's), cancelled with the request. */
export const make = <R>(runtime: Runtime.Runtime<R>): Adapter<R> => {
  const fork = Runtime.runFork(runtime)
  const runExit = Runtime.runPromiseExit(runtime)
  const runSync = Runtime.runSync(runtime)
  const settle = <A, E>(exit: Exit.Exit<A, E>): A => {
    if (Exit.isSuccess(exit)) return exit.value
    const error = toGraphQLError(exit.cause)
    if (error.extensions.code === "INTERNAL_SERVER_ERROR") {
      fork(Effect.logError("resolver failed", exit.cause))
    }
    // what the client is not told (the database's own words) goes to the server's log
    const detail = stringField(Option.getOrUndefined(Cause.failureOption(exit.cause)), "detail")
    if (detail !== undefined) fork(Effect.logError(`${error.message}: ${detail}`))
    throw error
  }
  const run = async <A, E>(effect: Effect.Effect<A, E, R>, signal?: AbortSignal): Promise<A> =>
    settle(await runExit(effect, signal ? { signal } : undefined))
  const read = <A>(effect: Effect.Effect<A, never, R>): A => runSync(effect)
  return { run, read, runtime }
}
