import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Rpc from "@effect/rpc/Rpc"
import * as RpcClient from "@effect/rpc/RpcClient"
import { RpcClientError } from "@effect/rpc/RpcClientError"
import * as RpcGroup from "@effect/rpc/RpcGroup"
import * as RpcSerialization from "@effect/rpc/RpcSerialization"
import { Context, Deferred, Effect, Layer, Option, Schema } from "effect"
import { randomUUID } from "node:crypto"
import type { AskedEvent } from "../record/Requests.js"
import { foldEvents } from "../record/RunRecord.js"
import * as Answers from "../run/Answers.js"
import { type PersonAnswer, PersonAnswerSchema } from "../run/Answers.js"
import { cancelStored } from "../run/Cancel.js"
import { type Claimant, type Holder, RunLease } from "../store/RunLease.js"
import { RunStore } from "../store/RunStore.js"

/**
 * A run's owner, reached from another process: the process executing a run holds it (store/RunLease: a lease it
 * renews, with where it is reached), and a person's answer or a cancellation given elsewhere — the CLI, another server
 * on the same PostgreSQL — is a message to it, over its HTTP edge (`OWNER_PATH`, @effect/rpc). The owner records it
 * on the run's log, the log's one writer, and says what became of it: recorded, or refused with its coded error. On a
 * cluster the same `Answer` is the run entity's message (cluster/Cluster).
 */
export const OWNER_PATH = "/aeon/owner"

/** A refusal of the process holding the run, as its code and message (runs/PublicFailure: no internal text). */
export class OwnerRefused extends Schema.TaggedError<OwnerRefused>()("OwnerRefused", {
  code: Schema.String,
  text: Schema.String
}) {
  override get message() {
    return `${this.code}: ${this.text}`
  }
}

/** A person's answer to a run waiting where it runs. */
export const AnswerRpc = Rpc.make("Answer", {
  payload: { runId: Schema.String, answer: PersonAnswerSchema },
  error: OwnerRefused
})

/** Cancels a run going on at its owner: false when it is not going on there (any more). */
export const CancelRpc = Rpc.make("Cancel", {
  payload: { runId: Schema.String },
  success: Schema.Boolean,
  error: OwnerRefused
})

/** Whether the owner executes the run now (a process starting asks before it takes a held run up). */
export const RunningRpc = Rpc.make("Running", {
  payload: { runId: Schema.String },
  success: Schema.Boolean
})

/** What a run's owner answers to. */
export class OwnerRpcs extends RpcGroup.make(AnswerRpc, CancelRpc, RunningRpc) {}

/** The process holding a run did not answer (it stopped: its hold lapses within LEASE_MS; or it is not reachable). */
export class OwnerUnreachableError extends Schema.TaggedError<OwnerUnreachableError>()("OwnerUnreachableError", {
  runId: Schema.String,
  url: Schema.String
}) {
  override get message() {
    return `the process running run ${this.runId} (at ${this.url}) could not be reached; try again`
  }
}

/**
 * This process as an owner of runs: the key its owner endpoint asks of a caller, and where it is reached — known once
 * its HTTP edge listens (a process without one, the CLI, holds nothing: nobody could reach it).
 */
export interface Address {
  readonly key: string
  readonly url: Deferred.Deferred<string>
}
export class OwnerAddress extends Context.Tag("aeon/OwnerAddress")<OwnerAddress, Address>() {}

export const addressLayer = Layer.effect(
  OwnerAddress,
  Effect.map(Deferred.make<string>(), (url) => ({ key: randomUUID(), url }))
)

/** The process holding `runId` now, if one does (none on the embedded store: one process holds it). */
export const holderOf = (runId: string) =>
  Effect.gen(function*() {
    const lease = yield* Effect.serviceOption(RunLease)
    if (Option.isNone(lease)) return Option.none<Holder>()
    return yield* lease.value.holderOf(runId)
  })

const ownerClient = RpcClient.make(OwnerRpcs)

/** One message to the run's owner, over a client made for it; its transport failing is OwnerUnreachableError. */
const sendTo = <A, E>(
  holder: Holder,
  runId: string,
  message: (client: Effect.Effect.Success<typeof ownerClient>) => Effect.Effect<A, E | RpcClientError>
) =>
  Effect.scoped(Effect.flatMap(ownerClient, message)).pipe(
    Effect.provide(RpcClient.layerProtocolHttp({
      url: `${holder.url}${OWNER_PATH}`,
      transformClient: HttpClient.mapRequest(HttpClientRequest.bearerToken(holder.key))
    })),
    Effect.provide([RpcSerialization.layerJson, FetchHttpClient.layer]),
    Effect.catchIf(
      (e): e is RpcClientError => e instanceof RpcClientError,
      () => new OwnerUnreachableError({ runId, url: holder.url })
    )
  )

/** A person's answer sent to the run's owner: recorded there, or its refusal. */
export const answerAt = (holder: Holder, runId: string, answer: PersonAnswer) =>
  sendTo(holder, runId, (client) => client.Answer({ runId, answer }))

/** A cancellation sent to the run's owner: false when the run is not going on there (any more). */
export const cancelAt = (holder: Holder, runId: string) => sendTo(holder, runId, (client) => client.Cancel({ runId }))

/**
 * A cancellation given in a process that does not execute the run (the CLI): sent to the process holding it, which
 * interrupts it there (it ends CANCELLED, tool calls finish first); a run no process executes ends CANCELLED on its
 * stored log. The run's status after, whether this call ended it, and where it ran (the holder's URL) if a process did.
 */
export const cancelWhereHeld = (runId: string) =>
  Effect.gen(function*() {
    const holder = yield* holderOf(runId)
    const heldBy = Option.isSome(holder) && (yield* cancelAt(holder.value, runId)) ? holder.value.url : undefined
    return heldBy !== undefined
      ? { status: "CANCELLED", ended: true, heldBy }
      : { ...(yield* cancelStored(runId)), heldBy }
  })

/** How long a process starting waits for a holder to say it still runs a run: past it, the holder counts as dead. */
const ASK_HOLDER_MS = 3_000

/**
 * How start-up recovery takes `runId`: left to a live process that executes it now (its hold lasts and, asked, it says
 * so); else claimed as `claimant` — over a holder that does not answer (the process this one restarts: kill -9 leaves
 * its holds until they lapse; or one that died), while its hold still lasts. A silent holder that lives after all is
 * fenced out: its appends are refused, its next renewal finds the run gone, and it stops it.
 */
export const startUpClaim = (claimant: Claimant | undefined) => (runId: string) =>
  claimant === undefined ? Effect.succeed(undefined) : Effect.flatMap(
    holderOf(runId),
    Option.match({
      onNone: () => Effect.succeed<Claimant | "leave">(claimant),
      onSome: (holder) =>
        sendTo(holder, runId, (client) => client.Running({ runId })).pipe(
          Effect.timeout(ASK_HOLDER_MS),
          Effect.orElseSucceed(() => false),
          Effect.map((running): Claimant | "leave" => running ? "leave" : { ...claimant, over: holder.key })
        )
    })
  )

/**
 * A person's answer given in a process that does not execute the run (the CLI): sent to the process holding it, which
 * records it on the log it writes (or refuses it, coded); answered on the stored log when no process holds the run (it
 * goes on when resumed). What the run asked, and where it goes on (the holder's URL) if a process runs it.
 */
export const answerWhereHeld = (runId: string, answer: PersonAnswer) =>
  Effect.gen(function*() {
    const holder = yield* holderOf(runId)
    if (Option.isNone(holder)) return { request: yield* Answers.answerStored(runId, answer), heldBy: undefined }
    yield* answerAt(holder.value, runId, answer)
    const past = yield* (yield* RunStore).events(runId)
    const request: AskedEvent | undefined = foldEvents(past).requests.get(answer.requestId)?.request
    return { request, heldBy: holder.value.url }
  })
