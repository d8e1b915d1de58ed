import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { useCSRFPrevention } from "@graphql-yoga/plugin-csrf-prevention"
import { Context, Data, Effect, Layer, Option, Runtime } from "effect"
import { createSchema, createYoga, type Plugin } from "graphql-yoga"
import { WebSocketServer } from "ws"
import { stringField } from "../support/Fields.js"
import { readPackageFile } from "../support/PackageFiles.js"
import { messageOf } from "../support/Thrown.js"
import * as EffectAdapter from "./EffectAdapter.js"
import { graphiqlOptions, renderGraphiQL } from "./GraphiQLPage.js"
import type { GraphQLContext } from "./graphql/GraphQLContext.js"
import { graphqlWs } from "./graphql/GraphQLWs.js"
import * as QueryLimits from "./graphql/QueryLimits.js"
import * as Resolvers from "./graphql/Resolvers.js"
import { nodeBodyOf, sseResults } from "./graphql/SseResults.js"
import * as Listener from "./Listener.js"
import * as McpEndpoint from "./mcp/McpEndpoint.js"
import * as OwnerEndpoint from "./OwnerEndpoint.js"
import * as Protocols from "./protocols/Protocols.js"
import { type AuthConfig, authenticate, authRequired, errorCodes, HOST_REFUSED, hostAllowed } from "./Security.js"
import { viewerRoutes } from "./ViewerRoutes.js"
import { payloadTooLarge, webRoute } from "./WebRoute.js"

export interface ServerOptions {
  readonly port: number
  readonly host: string
  readonly auth: AuthConfig
  readonly limits: QueryLimits.QueryLimits
  readonly maxBodyBytes: number
  readonly info: Resolvers.ServerInfo
  /** Host names besides this machine's that a server without API keys answers (DNS rebinding). */
  readonly allowedHosts?: ReadonlyArray<string>
  /** How the other processes sharing the store reach this one (its runs' owner endpoint); default: where it listens. */
  readonly advertisedUrl?: string | undefined
}

export const typeDefs = readPackageFile("schema.graphql")

/** Requests without a valid key are refused (401), except the GraphiQL page a browser asks for. */
const authPlugin = (auth: AuthConfig): Plugin => ({
  onRequest({ endResponse, fetchAPI, request }) {
    const page = request.method === "GET" && (request.headers.get("accept") ?? "").includes("text/html")
    if (page || !authRequired(auth)) return
    if (authenticate(auth, request.headers.get("authorization"))) return
    endResponse(
      new fetchAPI.Response(
        JSON.stringify({
          errors: [{ message: "missing or invalid API key", extensions: { code: "UNAUTHENTICATED" } }]
        }),
        { status: 401, headers: { "content-type": "application/json", "www-authenticate": "Bearer" } }
      )
    )
  }
})

const yogaOf = (adapter: EffectAdapter.Adapter<Resolvers.R>, options: ServerOptions) =>
  createYoga<object, GraphQLContext>({
    schema: createSchema<GraphQLContext>({ typeDefs, resolvers: Resolvers.make(adapter, options.info) }),
    graphqlEndpoint: "/graphql",
    landingPage: false,
    renderGraphiQL: (options) => renderGraphiQL(options),
    graphiql: graphiqlOptions,
    plugins: [
      authPlugin(options.auth),
      ...QueryLimits.plugins(options.limits),
      useCSRFPrevention({ requestHeaders: ["x-graphql-yoga-csrf", "graphql-require-preflight"] }),
      errorCodes,
      sseResults
    ],
    // the request's signal only when a resolver asks for it: creating it costs an AbortController per request
    context: ({ request }) => ({
      ...authenticate(options.auth, request.headers.get("authorization")),
      events: { max: options.limits.maxEvents, left: options.limits.maxEvents },
      get signal() {
        return request.signal
      }
    }),
    logging: false
  })

/** A request whose Host or Origin is not this machine's is refused (403) on a server without API keys. */
const hostChecked = (auth: AuthConfig, allowed: ReadonlyArray<string>) =>
  HttpMiddleware.make((app) =>
    Effect.flatMap(
      HttpServerRequest.HttpServerRequest,
      (request) =>
        hostAllowed({ headers: { host: request.headers.host, origin: request.headers.origin } }, auth, allowed)
          ? app
          : Effect.succeed(HttpServerResponse.unsafeJson(
            { errors: [{ message: HOST_REFUSED, extensions: { code: "HOST_NOT_ALLOWED" } }] },
            { status: 403 }
          ))
    )
  )

/**
 * The edge's one router: `/mcp` (which checks its own hosts and keys), the owner endpoint (its own key), and — behind
 * the Host check — the viewer, the protocols and GraphQL (yoga, with the body limit).
 */
const edgeRouter = <R>(parts: {
  readonly mcp: HttpRouter.Route.Handler<never, never>
  readonly owner: HttpRouter.HttpRouter<never, R>
  readonly graphql: HttpRouter.Route.Handler<never, never>
  readonly protocols: ReturnType<typeof Protocols.router>
  readonly hosts: ReturnType<typeof hostChecked>
}) =>
  HttpRouter.concatAll(
    HttpRouter.empty.pipe(HttpRouter.all("/mcp", parts.mcp)),
    parts.owner,
    HttpRouter.concatAll(
      viewerRoutes,
      parts.protocols,
      HttpRouter.empty.pipe(HttpRouter.all("/graphql", parts.graphql))
    ).pipe(HttpRouter.use(parts.hosts))
  )

/**
 * The GraphQL server: yoga over HTTP (SSE for subscriptions) and graphql-ws on the same path, the viewer, `/mcp`, the
 * protocols — one router of the platform. A server without API keys answers only a Host and Origin naming this machine
 * or AEON_ALLOWED_HOSTS (DNS rebinding), on every route and the WebSocket upgrade.
 */
export const start = async <R>(
  runtime: Runtime.Runtime<Resolvers.R | R>,
  options: ServerOptions,
  owner: HttpRouter.HttpRouter<never, R> = HttpRouter.empty
): Promise<Listening> => {
  const adapter = EffectAdapter.make(runtime)
  const yoga = yogaOf(adapter, options)
  const allowed = options.allowedHosts ?? []
  const mcp = McpEndpoint.make(runtime, options.auth, allowed, options.maxBodyBytes)
  const protocols = Protocols.router({
    runtime,
    auth: options.auth,
    maxBodyBytes: options.maxBodyBytes,
    version: options.info.version
  })
  const router = edgeRouter({
    mcp: webRoute(mcp.handle, options.maxBodyBytes, McpEndpoint.tooLarge),
    owner,
    graphql: webRoute(
      (request) => Promise.resolve(yoga.fetch(request)),
      options.maxBodyBytes,
      payloadTooLarge,
      nodeBodyOf
    ),
    protocols,
    hosts: hostChecked(options.auth, allowed)
  })
  const listener = await Listener.listen(
    Runtime.runSync(runtime)(NodeHttpServer.makeHandler(router)),
    options.port,
    options.host
  )

  // a WebSocket message has the same size limit as a request body (ws would accept 100 MiB)
  const wss = new WebSocketServer({
    server: listener.server,
    path: "/graphql",
    maxPayload: options.maxBodyBytes,
    verifyClient: ({ req }, done) => done(hostAllowed(req, options.auth, allowed), 403, HOST_REFUSED)
  })
  const ws = graphqlWs<{ userId?: string }>(yoga, wss, {
    authenticate: (connectionParams, request) =>
      authenticate(
        options.auth,
        stringField(connectionParams, "authorization") ?? request.headers.authorization
      ),
    context: (user) =>
      ({ ...user, events: { max: options.limits.maxEvents, left: options.limits.maxEvents } }) satisfies GraphQLContext
  })

  return {
    url: listener.url,
    close: async () => {
      mcp.close()
      await ws.dispose()
      wss.close()
      await listener.close()
    }
  }
}

/** The server could not listen. */
export class ListenError
  extends Data.TaggedError("ListenError")<{ readonly address: string; readonly reason: string }>
{
  override get message() {
    return `cannot listen on ${this.address}: ${this.reason}`
  }
}

/** The server listening. */
export interface Listening {
  /** Its GraphQL endpoint's URL. */
  readonly url: string
  /** Stops it: its sessions, its sockets, its connections. */
  readonly close: () => Promise<void>
}

/** The server listening: its URL. */
export class GraphQLServer extends Context.Tag("aeon/GraphQLServer")<GraphQLServer, Listening>() {}

/**
 * The server as a scoped Layer: listens when built, on the runtime of the layers below it (resolvers run there);
 * closes its connections when released.
 */
export const layer = (options: ServerOptions) =>
  Layer.scoped(
    GraphQLServer,
    Effect.acquireRelease(
      // interruptible: a layer is built with interruption off, and a runtime taken there would keep it off for every
      // resolver and every run they start (a run's timeouts and races could not interrupt their losers)
      Effect.gen(function*() {
        const runtime = yield* Effect.interruptible(Effect.runtime<Resolvers.R>())
        const owner = yield* OwnerEndpoint.make
        const listening = yield* Effect.tryPromise({
          try: () => start(runtime, options, owner),
          catch: (e) => new ListenError({ address: `${options.host}:${options.port}`, reason: messageOf(e) })
        })
        // the runs executing here are held from now on: other processes reach them here
        yield* OwnerEndpoint.advertise(listening.url, Option.fromNullable(options.advertisedUrl))
        return listening
      }),
      (server) => Effect.promise(server.close)
    )
  )
