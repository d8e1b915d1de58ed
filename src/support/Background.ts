/**
 * Background work, one way: a named job repeated with a pause between its runs for as long as its scope lives; a run
 * that fails is said in the log (with the job's name) and the job goes on at its next run. The sweeps of lapsed and
 * queued runs, the holds' renewal, the webhooks' delivery, the schedules, the memories' retention, the LISTEN watchdog
 * and the cluster's catch-up reads all run on it.
 *
 * A job about a process's own connection or runs (the holds' renewal, the watchdog, the followers' reads) runs in every
 * process (`inBackground`); a job about the store as a whole (the schedules, the deliveries, the queued-run sweep) runs
 * on one process of a cluster (`onOneProcess`: the cluster's `Singleton`, moved to another runner when its runner
 * goes), and in the process itself where there is no cluster.
 */
import { Context, type Duration, Effect, Option, Schedule, type Scope } from "effect"

/** The job repeated every `every` (after each run ends) for ever; a failed run logged, never the job's end. */
export const repeated = <E, R>(name: string, every: Duration.DurationInput, job: Effect.Effect<unknown, E, R>) =>
  Effect.schedule(
    job.pipe(Effect.catchAllCause((cause) => Effect.logWarning(`${name}: not done this time`, cause))),
    Schedule.spaced(every)
  ).pipe(Effect.annotateLogs("job", name))

/** The job run in the background of the enclosing scope (a layer's, a server's): it stops when the scope closes. */
export const inBackground = <E, R>(
  name: string,
  every: Duration.DurationInput,
  job: Effect.Effect<unknown, E, R>
): Effect.Effect<void, never, R | Scope.Scope> => Effect.asVoid(Effect.forkScoped(repeated(name, every, job)))

/** Where a job of one process among many runs: a cluster's singletons (cluster/Cluster provides it). */
export class Singletons extends Context.Tag("aeon/Singletons")<Singletons, {
  /** Runs `job` on the one runner that holds `name` while the scope lasts, and on another when that one goes. */
  readonly register: (name: string, job: Effect.Effect<void>) => Effect.Effect<void, never, Scope.Scope>
}>() {}

/**
 * The job repeated on one process: a cluster's singleton where there is a cluster, else in the background here. What
 * it does must still be safe twice for a moment (a singleton moving between runners): the jobs claim what they do.
 */
export const onOneProcess = <E, R>(
  name: string,
  every: Duration.DurationInput,
  job: Effect.Effect<unknown, E, R>
): Effect.Effect<void, never, R | Scope.Scope> =>
  Effect.gen(function*() {
    const singletons = yield* Effect.serviceOption(Singletons)
    if (Option.isNone(singletons)) return yield* inBackground(name, every, job)
    const context = yield* Effect.context<R>()
    const said = (what: string) => Effect.logInfo(`${name}: ${what}`).pipe(Effect.annotateLogs("job", name))
    const here = Effect.zipRight(said("runs on this runner"), Effect.provide(repeated(name, every, job), context))
    yield* singletons.value.register(name, Effect.asVoid(Effect.onExit(here, () => said("no longer runs here"))))
  })
