/**
 * A person's say over a run from the CLI: answering what it asks (`aeon approve`, `aeon guide`), stopping it (`aeon
 * cancel`) and erasing it (`aeon forget`) — through the process running it, the server beside the CLI, or the store.
 * Loaded only when one of these commands runs.
 */
import { Effect, Layer, Option } from "effect"
import * as Aeon from "../Aeon.js"
import { answerText, type AskedEvent } from "../record/Requests.js"
import type { PersonAnswer } from "../run/Answers.js"
import * as RunOwners from "../runs/RunOwners.js"
import * as StoredRuns from "../runs/StoredRuns.js"
import * as Database from "../store/Database.js"
import { messageOf } from "../support/Thrown.js"
import { CliError } from "./CliError.js"
import { opt } from "./Handlers.js"
import { answerOnServer, forgetOnServer } from "./OnServer.js"
import { cancelOnServer, serverHoldingDataDir } from "./ViaServer.js"

/**
 * Answers a run's request (RunOwners.answerWhereHeld): through the process running it — a server — when one holds it (the
 * run goes on there: its log has one writer), else on its stored log, and says how to go on (`aeon run --resume`).
 */
const answerStored = (
  runId: string,
  answer: PersonAnswer,
  said: (request: AskedEvent | undefined) => string
) =>
  Effect.flatMap(
    serverHoldingDataDir,
    (server) =>
      server === undefined ? answerInStore(runId, answer, said) : Effect.map(
        answerOnServer(server, runId, answer),
        (request) =>
          process.stdout.write(
            `${said(request)} (${answer.requestId} of run ${runId}); the run goes on on the server at ${server}\n`
          )
      )
  )

const answerInStore = (
  runId: string,
  answer: PersonAnswer,
  said: (request: AskedEvent | undefined) => string
) =>
  RunOwners.answerWhereHeld(runId, answer).pipe(
    Effect.catchTag("RunNotFoundError", () => Effect.die(new CliError(`run ${runId} does not exist`))),
    Effect.catchTags({
      OwnerRefused: (e) => Effect.die(new CliError(e.message)),
      OwnerUnreachableError: (e) => Effect.die(new CliError(e.message))
    }),
    Effect.map(({ heldBy, request }) =>
      process.stdout.write(
        `${said(request)} (${answer.requestId} of run ${runId}); ${
          heldBy ? `the run goes on where it runs (${heldBy})` : `go on with: aeon run --resume ${runId}`
        }\n`
      )
    ),
    Effect.provide(Layer.mergeAll(Aeon.layerWithTools(), Database.layerConfig))
  )

/** `aeon approve RUN REQUEST`: answers a run's approval request (where it runs, or on its stored log). */
export const approve = (o: {
  readonly runId: string
  readonly requestId: string
  readonly reject: boolean
  readonly reason: Option.Option<string>
  readonly input: Option.Option<string>
}) =>
  Effect.suspend(() => {
    if (o.reject && Option.isSome(o.input)) throw new CliError("--reject and --input contradict each other")
    const input = Option.map(o.input, (text): unknown => {
      try {
        return JSON.parse(text)
      } catch (e) {
        throw new CliError(`--input is not JSON: ${messageOf(e)}`)
      }
    }).pipe(opt)
    const decision = o.reject ? "REJECT" : input !== undefined ? "EDIT" : "APPROVE"
    return answerStored(
      o.runId,
      { _tag: "Approval", requestId: o.requestId, answer: { decision, input, reason: opt(o.reason), by: "cli" } },
      (request) => answerText(request, { decision, input, reason: opt(o.reason) })
    )
  })

/**
 * `aeon cancel RUN`: stops a run — through the server holding the data directory, through the process running it on a
 * shared store, or on its stored log when nobody runs it. It ends CANCELLED (a tool call under way finishes first);
 * a run that has ended is left as it was, and said so.
 */
export const cancel = (o: { readonly runId: string }) =>
  Effect.gen(function*() {
    const server = yield* serverHoldingDataDir
    const { status, ended } = server !== undefined
      ? yield* cancelOnServer(server, o.runId)
      : yield* RunOwners.cancelWhereHeld(o.runId).pipe(
        Effect.catchTag("RunNotFoundError", () => Effect.die(new CliError(`run ${o.runId} does not exist`))),
        Effect.catchTags({
          OwnerRefused: (e) => Effect.die(new CliError(e.message)),
          OwnerUnreachableError: (e) => Effect.die(new CliError(e.message))
        }),
        Effect.provide(Layer.mergeAll(Aeon.layerWithTools(), Database.layerConfig))
      )
    process.stdout.write(
      ended
        ? `cancelled run ${o.runId}\n`
        : `run ${o.runId} had already ended (${status.toLowerCase().replace("_", " ")}): nothing to cancel\n`
    )
  })

/**
 * `aeon forget RUN [--user ID]`: erases a run that has ended — its events and recorded prompts, memories, thread
 * turn, the conversation summaries it made, the files no other run carries — through the server holding the data
 * directory, or in the store.
 */
export const forget = (o: { readonly runId: string; readonly user: Option.Option<string> }) =>
  Effect.gen(function*() {
    const server = yield* serverHoldingDataDir
    const gone = server !== undefined
      ? yield* forgetOnServer(server, o.runId, opt(o.user))
      : yield* StoredRuns.forgetRun(opt(o.user), o.runId).pipe(
        Effect.catchTag("RunUnfinishedError", (e) => Effect.die(new CliError(e.message))),
        Effect.provide(Database.layerConfig)
      )
    if (!gone) throw new CliError(`run ${o.runId} does not exist${Option.isSome(o.user) ? ` for ${o.user.value}` : ""}`)
    process.stdout.write(
      `run ${o.runId} forgotten: its events and prompts, memories, summaries and the files only it carried are erased\n`
    )
  })

/** `aeon guide RUN REQUEST TEXT`: gives guidance to a stopped run that asked for it (it goes on with --resume). */
export const guideRun = (o: { readonly runId: string; readonly requestId: string; readonly text: string }) =>
  answerStored(
    o.runId,
    { _tag: "Guidance", requestId: o.requestId, text: o.text, by: "cli" },
    () => "gave guidance"
  )
