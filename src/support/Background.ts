/**
 * Background work, one way: a named job repeated with a pause between its runs for as long as its scope lives; a run
 * that fails is said in the log (with the job's name) and the job goes on at its next run. The sweeps of lapsed and
 * queued runs, the holds' renewal, the webhooks' delivery, the memories' retention, the LISTEN watchdog and the
 * cluster's catch-up reads all run on it.
 */
import { type Duration, Effect, Schedule, type Scope } from "effect"

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
