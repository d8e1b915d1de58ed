import { useCSRFPrevention } from "@graphql-yoga/plugin-csrf-prevention"
import { Context, Data, Effect, Layer, Option, type Runtime } from "effect"
import { type DocumentNode, GraphQLError } from "graphql"
import { useServer } from "graphql-ws/use/ws"
import { createSchema, createYoga, type Plugin } from "graphql-yoga"
import { randomUUID } from "node:crypto"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import { WebSocketServer } from "ws"
import { OWNER_PATH } from "../runs/RunOwners.js"
import { stringField } from "../support/Fields.js"
import { readPackageFile } from "../support/PackageFiles.js"
import { messageOf } from "../support/Thrown.js"
import { viewerPage } from "../viewer/page.js"
import { readBytes, tooLargeMessage } from "./Body.js"
import * as EffectAdapter from "./EffectAdapter.js"
import type { GraphQLContext } from "./graphql/GraphQLContext.js"
import * as QueryLimits from "./graphql/QueryLimits.js"
import * as Resolvers from "./graphql/Resolvers.js"
import { sseResults } from "./graphql/SseResults.js"
import * as McpEndpoint from "./mcp/McpEndpoint.js"
import type { NodeHandler } from "./NodeRoute.js"
import * as OwnerEndpoint from "./OwnerEndpoint.js"
import * as Protocols from "./protocols/Protocols.js"
import { type AuthConfig, authenticate, authRequired, errorCodes, hostAllowed } from "./Security.js"

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

const exampleQuery = (runId: string) =>
  `# Aeon — start a run, then follow its events live (run them in this order).
# The offline model is a rule-based stand-in unless a provider is configured. Each ▶ of Start starts a new run
# (its id gets -1, -2, …); Follow, Output and Inspect go to the latest.

mutation Start {
  runTask(input: { task: "Compute (17 + 25) * 3 and explain the result", mode: FULL, runId: "${runId}" }) {
    id
    status
  }
}

# Each message is a burst of events (a fast run's whole history comes in one)
subscription Follow {
  runEventBatches(runId: "${runId}", fromSeq: 0) {
    seq
    type
    ... on PhaseEnteredEvent { passNumber phase }
    ... on StepFinishedEvent { stepId stepStatus stepOutput }
    ... on ConvergenceAssessedEvent { assessment { converged completenessScore reasonCodes } }
    ... on RunFinishedEvent { status finalAnswer { answerText } }
  }
}

# The model's text as it is written (not stored: start it while the run goes, beside Follow)
subscription Output {
  runOutput(runId: "${runId}") { promptId stepId text answerText done }
}

# See it in the run viewer: /runs/${runId}
query Inspect {
  run(id: "${runId}") {
    status
    finalAnswer { answerText label }
    history { passes { passNumber phases convergence { converged reasonCodes } } }
    usage { llmCalls inputTokens outputTokens cachedTokens costUsd }
  }
}

# Human in the loop: this run's memory.write waits for your approval (status AWAITING_INPUT).
mutation StartWithApproval {
  runTask(input: {
    task: "Store 42 in memory under answer, then read it back"
    mode: FULL
    runId: "${runId}-approval"
    approvalTools: ["memory.write"]
  }) { id status }
}

query Pending {
  run(id: "${runId}-approval") { status pendingApprovals { requestId stepId tool input description } }
}

# Paste the requestId from Pending (EDIT with input: {...} changes the call; REJECT with a reason refuses it).
mutation Approve {
  respondToApproval(runId: "${runId}-approval", requestId: "PASTE-REQUEST-ID", decision: APPROVE) { id status }
}
`

/** Aeon's icon: a ring (a pass around) on the viewer's blue. */
export const FAVICON =
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" ` +
  `fill="#1f5fbf"/><circle cx="16" cy="16" r="8.5" fill="none" stroke="#fff" stroke-width="3.5"/>` +
  `<circle cx="24.5" cy="16" r="3" fill="#fff"/></svg>`

/**
 * The run viewer: /runs (the list), /runs/:id (one run, live) and /memory (memory across runs) are its page, /viewer/viewer.js its script (built into
 * dist/viewer by the build). The page holds no data: it reads the API like any client, with the caller's key.
 */
const serveViewer = (req: IncomingMessage, res: ServerResponse): boolean => {
  if (req.method !== "GET" && req.method !== "HEAD") return false
  const path = (req.url ?? "").split("?")[0] ?? ""
  if (path === "/viewer/viewer.js") {
    let script: string
    try {
      script = readPackageFile("dist/viewer/viewer.js")
    } catch {
      res.writeHead(404, { "content-type": "text/plain" }).end("the run viewer is not built: run npm run build")
      return true
    }
    res.writeHead(200, { "content-type": "text/javascript; charset=utf-8", "cache-control": "no-cache" }).end(script)
    return true
  }
  // the root is the run viewer's list; the icon a browser asks every page for
  if (path === "/") {
    res.writeHead(302, { location: "/runs" }).end()
    return true
  }
  if (path === "/favicon.ico" || path === "/favicon.svg") {
    res.writeHead(200, { "content-type": "image/svg+xml", "cache-control": "max-age=86400" }).end(FAVICON)
    return true
  }
  if (
    path === "/runs" || path === "/runs/" || /^\/runs\/[^/]+$/.test(path) || /^\/threads\/[^/]+$/.test(path) ||
    path === "/threads" || path === "/memory"
  ) {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(viewerPage("/viewer/viewer.js"))
    return true
  }
  return false
}

/**
 * A script that puts this page's demo run id in place of an earlier one in GraphiQL's stored tabs, and gives each ▶
 * of a Start operation whose run id was already started from this page a run id of its own (the id with -1, -2, …:
 * a second Start would otherwise be refused, the id taken). The new id is written into the editor's text as the
 * request leaves (Monaco's models, reached through its global API), so the editor always shows the id it sent, and
 * Follow, Output and Inspect — sent as the editor reads — go to that run.
 */
const freshDemoId = (defaultQuery: string) => {
  const id = defaultQuery.match(/demo-[0-9a-f]{8}/)?.[0]
  if (!id) return ""
  return `<script>(() => { try { for (const k of Object.keys(localStorage)) { if (!k.startsWith("graphiql:")) continue;
const v = localStorage.getItem(k); if (v && /demo-[0-9a-f]{8}/.test(v)) localStorage.setItem(k, v.replace(/demo-[0-9a-f]{8}(-[0-9]+)?/g, "${id}")) } }
catch (e) {}
const demo = "${id}"; const started = new Set(); let n = 0;
const quoted = (s) => JSON.stringify(s);
const show = (from, to) => { const api = window.monaco; if (!api) return;
  for (const model of api.editor.getModels()) { const v = model.getValue();
    if (v.includes(quoted(from))) model.setValue(v.split(quoted(from)).join(quoted(to))) } };
const rewrite = (raw) => { try { const m = JSON.parse(raw); const p = m.payload || m;
  if (typeof p.query !== "string" || !/^Start/.test(p.operationName || "")) return raw;
  const used = (p.query.match(/runId:\\s*"([^"]+)"/) || [])[1];
  if (!used || !used.startsWith(demo)) return raw;
  if (!started.has(used)) { started.add(used); return raw }
  let next; do { next = demo + "-" + (++n) } while (started.has(next));
  started.add(next); show(used, next); p.query = p.query.split(quoted(used)).join(quoted(next));
  return JSON.stringify(m) } catch (e) { return raw } };
const fetch0 = window.fetch; window.fetch = (input, init) =>
  fetch0(input, init && typeof init.body === "string" ? { ...init, body: rewrite(init.body) } : init);
const send0 = WebSocket.prototype.send;
WebSocket.prototype.send = function (d) { return send0.call(this, typeof d === "string" ? rewrite(d) : d) } })()</script>`
}

/**
 * graphql-ws on a WebSocketServer, executing through yoga's envelop: the same schema, plugins and limits as over HTTP.
 * `authenticate` admits a connection (undefined refuses it) and says who it is; `context` is each operation's.
 */
/**
 * A document parsed, or the refusal as this subscription's error: a syntax error (GRAPHQL_PARSE_FAILED) or a
 * limit the parser enforces (QUERY_TOO_LONG). Thrown out of onSubscribe, graphql-ws would close the whole socket.
 */
const parsed = (parse: (query: string) => DocumentNode, query: string): DocumentNode | Array<GraphQLError> => {
  try {
    return parse(query)
  } catch (e) {
    if (!(e instanceof GraphQLError)) throw e
    if (e.extensions.code !== undefined) return [e]
    return [
      new GraphQLError(e.message, {
        nodes: e.nodes,
        source: e.source,
        positions: e.positions,
        extensions: { code: "GRAPHQL_PARSE_FAILED" }
      })
    ]
  }
}

export const graphqlWs = <U extends object>(
  yoga: { readonly getEnveloped: (ctx: any) => any },
  wss: WebSocketServer,
  options: {
    readonly authenticate: (
      connectionParams: Record<string, unknown> | undefined,
      request: IncomingMessage
    ) => U | undefined
    readonly context: (user: U) => object
  }
): { readonly dispose: () => void | Promise<void> } => {
  return useServer<Record<string, unknown> | undefined, { request: IncomingMessage; user?: U }>({
    onConnect: (ctx) => {
      const user = options.authenticate(ctx.connectionParams, ctx.extra.request)
      if (!user) return false
      ctx.extra.user = user
      return true
    },
    onSubscribe: async (ctx, _id, payload) => {
      const { execute, parse, schema, subscribe, validate } = yoga.getEnveloped({
        ...ctx,
        req: ctx.extra.request,
        params: payload
      })
      const document = parsed(parse, payload.query)
      if (Array.isArray(document)) return document // this subscription's error; the socket and its others go on
      const args = {
        schema,
        operationName: payload.operationName,
        document,
        variableValues: payload.variables,
        contextValue: options.context(ctx.extra.user!),
        rootValue: { execute, subscribe }
      }
      const errors = validate(args.schema, args.document)
      return errors.length > 0 ? errors : args
    },
    execute: (args: any) => args.rootValue.execute(args),
    subscribe: (args: any) => args.rootValue.subscribe(args)
  }, wss)
}

const jsonError = (res: ServerResponse, status: number, code: string, message: string, close = false) =>
  res.writeHead(status, { "content-type": "application/json", ...(close ? { connection: "close" } : {}) })
    .end(JSON.stringify({ errors: [{ message, extensions: { code } }] }))

const HOST_REFUSED = "Host or Origin is not this machine (set AEON_ALLOWED_HOSTS to allow it)"

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

type Yoga = ReturnType<typeof yogaOf>

const yogaOf = (adapter: EffectAdapter.Adapter<Resolvers.R>, options: ServerOptions) =>
  createYoga<{ req?: IncomingMessage }, GraphQLContext>({
    schema: createSchema<GraphQLContext>({ typeDefs, resolvers: Resolvers.make(adapter, options.info) }),
    graphqlEndpoint: "/graphql",
    landingPage: false,
    // GraphiQL bundled with the server: it works without internet access (yoga's default loads it from a CDN).
    // Loaded on the first page view: the renderer holds the whole page in the server's memory
    // Each page view gets a fresh demo run id, also in the tabs GraphiQL restores from the browser's storage (else a
    // reload would run Start again with an id already taken)
    renderGraphiQL: (options) =>
      import("@graphql-yoga/render-graphiql").then((m) =>
        m.renderGraphiQL(options)
          .replace("<head>", `<head>${freshDemoId(options?.defaultQuery ?? "")}`)
          // Monaco's global API (window.monaco): the demo script writes a new run id into the editor through it
          .replace("globalAPI: false", "globalAPI: true")
      ),
    // subscriptions from GraphiQL over graphql-ws: its SSE mode uses GET (EventSource), which CSRF prevention refuses
    graphiql: () => ({
      title: "Aeon",
      subscriptionsProtocol: "WS",
      defaultQuery: exampleQuery(`demo-${randomUUID().slice(0, 8)}`)
    }),
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

/** Hands a request to GraphQL within the body limit: a declared length checked first, a chunked body counted. */
const withBodyLimit = (maxBodyBytes: number, handle: (req: IncomingMessage, res: ServerResponse) => void) => {
  const tooLarge = (req: IncomingMessage, res: ServerResponse) => {
    jsonError(res, 413, "PAYLOAD_TOO_LARGE", tooLargeMessage(maxBodyBytes), true)
    req.resume()
  }
  return (req: IncomingMessage, res: ServerResponse) => {
    if (req.headers["content-length"] !== undefined) {
      return Number(req.headers["content-length"]) > maxBodyBytes ? tooLarge(req, res) : handle(req, res)
    }
    if (req.method === "GET" || req.method === "HEAD") return handle(req, res)
    void readBytes(req, maxBodyBytes).then((read) => {
      if (read._tag === "tooLarge") return tooLarge(req, res)
      if (read._tag === "broken") return void res.destroy() // yoga reads a body already read from `req.body`
      Object.assign(req, { body: read.value })
      handle(req, res)
    })
  }
}

const listen = (server: Server, port: number, host: string) =>
  new Promise<string>((resolve, reject) => {
    server.once("error", reject) // the port is taken, the host is not this machine's, …
    server.listen(port, host, () => {
      server.off("error", reject)
      const address = server.address()
      if (address === null || typeof address === "string") return reject(new Error(`not listening on TCP: ${address}`))
      const shown = address.address.includes(":") ? `[${address.address}]` : address.address
      resolve(`http://${shown}:${address.port}/graphql`)
    })
  })

/**
 * The GraphQL server: yoga over HTTP (SSE for subscriptions) and graphql-ws on the same path, the viewer, `/mcp`. A
 * server without API keys answers only a Host and Origin naming this machine or AEON_ALLOWED_HOSTS (DNS rebinding),
 * on every route and the WebSocket upgrade.
 */
export const start = async (
  runtime: Runtime.Runtime<Resolvers.R>,
  options: ServerOptions,
  owner?: NodeHandler
): Promise<Listening> => {
  const adapter = EffectAdapter.make(runtime)
  const yoga = yogaOf(adapter, options)
  const allowed = options.allowedHosts ?? []
  const mcp = McpEndpoint.make(runtime, options.auth, allowed, options.maxBodyBytes)
  const graphql = withBodyLimit(options.maxBodyBytes, (req, res) => void yoga.handle(req, res))
  const protocols = Protocols.make({
    runtime,
    auth: options.auth,
    maxBodyBytes: options.maxBodyBytes,
    version: options.info.version
  })
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "").split("?")[0] ?? ""
    if (path === "/mcp") return void mcp.handle(req, res)
    // the processes sharing the store, with this one's owner key (not an API key): runs/RunOwners
    if (path === OWNER_PATH && owner) return void owner(req, res, {})
    if (!hostAllowed(req, options.auth, allowed)) return void jsonError(res, 403, "HOST_NOT_ALLOWED", HOST_REFUSED)
    if (serveViewer(req, res) || protocols(req, res, path)) return
    graphql(req, res)
  })

  // a WebSocket message has the same size limit as a request body (ws would accept 100 MiB)
  const wss = new WebSocketServer({
    server,
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

  const url = await listen(server, options.port, options.host)
  return {
    url,
    server,
    yoga,
    close: async () => {
      mcp.close()
      await ws.dispose()
      wss.close()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
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
  readonly server: Server
  readonly yoga: Yoga
  /** Stops it: its sessions, its sockets, its connections. */
  readonly close: () => Promise<void>
}

/** The server listening: its URL, the Node server, yoga. */
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
