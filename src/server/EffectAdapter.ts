import { Cause, Effect, Exit, Fiber, Option, Runtime, type ManagedRuntime } from "effect"
import { GraphQLError } from "graphql"

/** Errors that cross the API carry a `_tag`; it becomes `extensions.code`. Anything else is masked. */
export const toGraphQLError = (cause: Cause.Cause<unknown>): GraphQLError => {
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure)) {
    const e = failure.value as { _tag?: string; message?: string }
    if (e && typeof e === "object" && typeof e._tag === "string") {
      return new GraphQLError(e.message || e._tag, { extensions: { code: e._tag } })
    }
  }
  if (Cause.isInterruptedOnly(cause)) return new GraphQLError("the request was cancelled", { extensions: { code: "CANCELLED" } })
  return new GraphQLError("Unexpected error.", { extensions: { code: "INTERNAL_SERVER_ERROR" } })
}

/** The one place resolvers run Effects: through the server's ManagedRuntime, cancelled with the request. */
export const make = <R>(runtime: ManagedRuntime.ManagedRuntime<R, unknown>) => {
  const settle = <A, E>(exit: Exit.Exit<A, E>): A => {
    if (Exit.isSuccess(exit)) return exit.value
    const error = toGraphQLError(exit.cause)
    if (error.extensions.code === "INTERNAL_SERVER_ERROR") {
      runtime.runFork(Effect.logError("resolver failed", exit.cause))
    }
    throw error
  }
  const run = async <A, E>(effect: Effect.Effect<A, E, R>, signal?: AbortSignal): Promise<A> =>
    settle(await runtime.runPromiseExit(effect, signal ? { signal } : undefined))
  /**
   * For an Effect that answers from memory (health, tools): run synchronously, so the resolver returns a
   * value, not a promise (a fiber and a promise per request cost ~15 % of a small query's throughput).
   * An Effect that turns out to be asynchronous is awaited.
   */
  const runNow = <A, E>(effect: Effect.Effect<A, E, R>): A | Promise<A> => {
    const exit = runtime.runSyncExit(effect)
    if (Exit.isFailure(exit) && Cause.isDieType(exit.cause) && Runtime.isAsyncFiberException(exit.cause.defect)) {
      const fiber = exit.cause.defect.fiber as Fiber.RuntimeFiber<A, E>
      return runtime.runPromise(Fiber.await(fiber)).then(settle)
    }
    return settle(exit)
  }
  return { run, runNow, runtime }
}

export type Adapter<R> = ReturnType<typeof make<R>>
