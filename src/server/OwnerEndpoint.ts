import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as RpcSerialization from "@effect/rpc/RpcSerialization"
import * as RpcServer from "@effect/rpc/RpcServer"
import { Deferred, Effect, Option } from "effect"
import { publicFailure } from "../runs/PublicFailure.js"
import { RunManager } from "../runs/RunManager.js"
import { OWNER_PATH, OwnerAddress, OwnerRefused, OwnerRpcs } from "../runs/RunOwners.js"
import { authenticate } from "./Security.js"

/** A failure said as the owner's refusal: its code and its own words (a defect's or the database's stay in the log). */
const refused = <A, E, R>(handled: Effect.Effect<A, E, R>) =>
  Effect.sandbox(handled).pipe(Effect.mapError((cause) => {
    const { code, message } = publicFailure(cause)
    return new OwnerRefused({ code, text: message })
  }))

/**
 * What this process does with the messages sent to the runs it owns (runs/RunOwners): an answer recorded on the run's
 * log as if it were given here, a cancellation of a run going on here; a run that does not go on here any more is
 * said so (RunNotWaitingError; Cancel: false), and the sender goes on from the store.
 */
const handlers = OwnerRpcs.toLayer(Effect.map(RunManager, (manager) =>
  OwnerRpcs.of({
    Answer: ({ answer, runId }) => refused(Effect.asVoid(manager.answerHere(runId, answer))),
    Cancel: ({ runId }) => refused(manager.cancelIfHere(runId)),
    Running: ({ runId }) => Effect.succeed(manager.runsHere(runId))
  })))

/**
 * The owner endpoint at OWNER_PATH, a route of the edge's router: the caller shows this process's owner key (as
 * the store's hold of the run says it), not an API key — a process that reads the store may answer its runs. Any
 * other caller is refused (401, coded).
 */
export const make = Effect.gen(function*() {
  const address = yield* OwnerAddress
  const app = yield* RpcServer.toHttpApp(OwnerRpcs).pipe(
    Effect.provide([handlers, RpcSerialization.layerJson])
  )
  const guarded = Effect.flatMap(
    HttpServerRequest.HttpServerRequest,
    (request) =>
      authenticate({ apiKey: address.key, keys: new Map() }, request.headers.authorization) ?
        app :
        HttpServerResponse.unsafeJson(
          { code: "OWNER_KEY_REFUSED", message: "the owner endpoint answers the processes sharing its store only" },
          { status: 401 }
        )
  )
  return HttpRouter.empty.pipe(HttpRouter.post(OWNER_PATH, guarded))
})

/** Says where this process is reached, once it listens at `graphqlUrl` (an address of all interfaces: this machine). */
export const advertise = (graphqlUrl: string, advertised: Option.Option<string>) =>
  Effect.flatMap(OwnerAddress, (address) => {
    const local = graphqlUrl.replace(/\/graphql$/, "").replace("//0.0.0.0:", "//127.0.0.1:").replace(
      "//[::]:",
      "//[::1]:"
    )
    return Deferred.succeed(address.url, Option.getOrElse(advertised, () => local).replace(/\/$/, ""))
  })
