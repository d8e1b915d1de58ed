import { Effect, Layer, Option, Schema } from "effect"
import { readFileSync } from "node:fs"
import * as Aeon from "../Aeon.js"
import type { BudgetInput } from "../domain/Budget.js"
import { UntrustedPolicy } from "../domain/UntrustedPolicy.js"
import * as Offline from "../llm/Offline.js"
import * as Fork from "../run/Fork.js"
import * as PolicyCheck from "../run/PolicyCheck.js"
import * as Replaying from "../run/Replaying.js"
import * as Database from "../store/Database.js"
import { messageOf } from "../support/Thrown.js"
import { CliError } from "./CliError.js"
import { fail, run, type RunOptions } from "./Handlers.js"
import { forkOnServer, recheckOnServer, replayOnServer } from "./OnServer.js"
import { budgetOf } from "./RunFlags.js"
import { liveOutput, ownModelFlags, runThroughServer, serverHoldingDataDir } from "./ViaServer.js"

export interface ForkOptions {
  readonly runId: string
  readonly at: number
  /** The budget's caps (cli/RunFlags' budgetOptions: keyed by flag). */
  readonly [cap: string]: unknown
  readonly approve: boolean
  readonly reject: boolean
  readonly reason: Option.Option<string>
  readonly guidance: Option.Option<string>
  readonly edit: ReadonlyArray<string>
  readonly provider: Option.Option<string>
  readonly model: Option.Option<string>
  readonly baseUrl: Option.Option<string>
  readonly script: Option.Option<string>
  readonly json: boolean
}

/** What `aeon run --resume FORK` is given: the fork's model flags, nothing else (the fork has its input). */
const resumeOptions = (o: ForkOptions, runId: string): RunOptions => ({
  task: Option.none(),
  resume: Option.some(runId),
  full: false,
  provider: o.provider,
  model: o.model,
  baseUrl: o.baseUrl,
  script: o.script,
  criteria: Option.none(),
  mcp: Option.none(),
  json: o.json
})

const changesOf = (o: ForkOptions): Fork.ForkChanges => {
  if (o.approve && o.reject) throw new CliError("--approve and --reject contradict each other")
  const budget: BudgetInput = budgetOf(o)
  return {
    ...(Object.keys(budget).length > 0 ? { budget } : {}),
    ...(o.approve || o.reject ?
      {
        approval: {
          decision: o.approve ? "APPROVE" : "REJECT",
          ...(Option.isSome(o.reason) ? { reason: o.reason.value } : {})
        }
      } :
      {}),
    ...(Option.isSome(o.guidance) ? { guidance: o.guidance.value } : {}),
    ...(o.edit.length > 0 ? { planEdits: o.edit.map(parseEdit) } : {})
  }
}

/** An `--edit` given on the command line: one refinement action as JSON. */
const parseEdit = (text: string, i: number): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    throw new CliError(
      `--edit ${i + 1} is not JSON: give one action, e.g. '{"actionType":"REMOVE","targetStepId":"s3"}'`
    )
  }
}

/**
 * `aeon fork RUN --at SEQ`: a new run from RUN's events up to SEQ, with the changes given, run to its end here
 * (printed and exited as `aeon run`): its calls answered from RUN's recordings until one differs.
 */
export const fork = (o: ForkOptions) =>
  Effect.gen(function*() {
    const changes = changesOf(o)
    const server = yield* serverHoldingDataDir
    if (server !== undefined) return yield* forkThroughServer(server, o, changes)
    const { runId } = yield* Fork.create(o.runId, o.at, changes).pipe(
      Effect.provide(Layer.mergeAll(Aeon.layerWithTools(), Database.layerConfig))
    )
    if (!o.json) process.stderr.write(`fork ${runId} of run ${o.runId} at seq ${o.at}\n`)
    return yield* run(resumeOptions(o, runId))
  })

/**
 * A fork beside the server holding the data directory: made and run there (its model and tools the server's),
 * followed and printed as `aeon run` prints a run through it. Model flags cannot apply there, and say so.
 */
const forkThroughServer = (server: string, o: ForkOptions, changes: Fork.ForkChanges) => {
  const start = Effect.tap(
    forkOnServer(server, o.runId, o.at, changes),
    (runId) => Effect.sync(() => o.json || process.stderr.write(`fork ${runId} of run ${o.runId} at seq ${o.at}\n`))
  )
  return runThroughServer(server, start, {
    own: ownModelFlags(o),
    json: o.json,
    live: liveOutput(o.json),
    typed: false
  })
}

/** The replay where the run is stored: on the server holding the data directory, else here. */
const replayed = (runId: string) =>
  Effect.flatMap(serverHoldingDataDir, (server) =>
    server !== undefined
      ? replayOnServer(server, runId)
      : Replaying.replay(runId).pipe(
        Effect.provide(Layer.mergeAll(Aeon.layerWithTools(), Offline.layer, Database.layerConfig))
      ))

/** A run's calls checked again under another policy where the run is stored: on the server, else here. */
const rechecked = (runId: string, policy: unknown) =>
  Effect.flatMap(serverHoldingDataDir, (server) =>
    server !== undefined
      ? recheckOnServer(server, runId, policy)
      : Effect.flatMap(
        Schema.decodeUnknown(UntrustedPolicy)(policy, { onExcessProperty: "error" }).pipe(
          Effect.mapError((e) => new CliError(e.message))
        ),
        (p) => PolicyCheck.recheck(runId, p)
      ).pipe(Effect.provide(Database.layerConfig)))

/** `aeon replay RUN --policy FILE`: which of RUN's calls with side effects FILE's policy would hold (no model asked). */
const replayUnderPolicy = (o: { readonly runId: string; readonly json: boolean; readonly file: string }) =>
  Effect.gen(function*() {
    const policy = yield* Effect.try({
      try: (): unknown => JSON.parse(readFileSync(o.file, "utf8")),
      catch: (e) => new CliError(`--policy ${o.file}: ${messageOf(e)}`)
    })
    const r = yield* Effect.either(rechecked(o.runId, policy))
    if (r._tag === "Left") {
      yield* fail(r.left)
      process.exitCode = 2
      return
    }
    const calls = r.right
    if (o.json) process.stdout.write(`${JSON.stringify({ runId: o.runId, calls }, null, 2)}\n`)
    else {
      const said = (h: boolean) => (h ? "held" : "ran")
      const lines = calls.map((c) =>
        `seq ${c.seq} step ${c.stepId} ${c.tool} ${JSON.stringify(c.input)}: ${said(c.held)}; under ${o.file}: ${
          said(c.wouldHold)
        }${c.reason ? ` (${c.reason})` : ""}`
      )
      process.stdout.write(`${lines.length > 0 ? lines.join("\n") : "no call with side effects"}\n`)
    }
    process.exitCode = calls.some((c) => c.wouldHold) ? 1 : 0
  })

/** `aeon replay RUN`: RUN again with today's code and its recordings only; the first divergence, or "identical". */
export const replay = (
  o: { readonly runId: string; readonly json: boolean; readonly policy?: Option.Option<string> }
) =>
  Effect.gen(function*() {
    if (o.policy && Option.isSome(o.policy)) {
      return yield* replayUnderPolicy({ runId: o.runId, json: o.json, file: o.policy.value })
    }
    // no model is asked: the recordings answer, or the call fails (the offline model only fills the slot)
    const r = yield* Effect.either(replayed(o.runId))
    // exit 2: it cannot be replayed (no such run, no recordings, no store), told apart from a divergence (1)
    if (r._tag === "Left") {
      yield* fail(r.left)
      process.exitCode = 2
      return
    }
    yield* reportReplay(o, r.right)
  })

const reportReplay = (
  o: { readonly runId: string; readonly json: boolean },
  r: { readonly events: number; readonly divergence?: Replaying.Divergence | undefined }
) =>
  Effect.sync(() => {
    if (o.json) {
      process.stdout.write(
        `${JSON.stringify({ runId: o.runId, identical: !r.divergence, divergence: r.divergence ?? null }, null, 2)}\n`
      )
    } else if (!r.divergence) {
      process.stdout.write(
        `identical: run ${o.runId} replayed from its recordings, ${r.events} events, no model asked\n`
      )
    } else {
      const d = r.divergence
      const show = (
        side: typeof d.expected
      ) => (side ? `${side.type} ${JSON.stringify(side.event).slice(0, 400)}` : "nothing")
      process.stdout.write(
        `diverged at seq ${d.seq}:\n  expected ${show(d.expected)}\n  got      ${show(d.got)}\n`
      )
    }
    process.exitCode = r.divergence ? 1 : 0
  })
