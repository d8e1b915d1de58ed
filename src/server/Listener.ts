import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"

/** The edge's socket: a Node HTTP server listening, its requests answered by the edge's router. */
export interface Listener {
  /** The GraphQL endpoint's URL. */
  readonly url: string
  /** The Node server, for the WebSocket upgrades (graphql-ws keeps its own message limit there). */
  readonly server: Server
  /** Stops listening, its connections closed. */
  readonly close: () => Promise<void>
}

/**
 * Listens on `port` and `host`, every request handed to `handler` (the platform's NodeHttpServer.makeHandler of the
 * edge's router). Not NodeHttpServer.make: it gives every upgrade to a WebSocketServer of its own without a message
 * limit (ws's default is 100 MiB), and a second one beside it would answer the same upgrades; graphql-ws's server is
 * put on `server` with the body limit as its largest message.
 */
export const listen = (
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  port: number,
  host: string
) =>
  new Promise<Listener>((resolve, reject) => {
    const server = createServer(handler)
    server.once("error", reject) // the port is taken, the host is not this machine's, …
    server.listen(port, host, () => {
      server.off("error", reject)
      const address = server.address()
      if (address === null || typeof address === "string") return reject(new Error(`not listening on TCP: ${address}`))
      const shown = address.address.includes(":") ? `[${address.address}]` : address.address
      resolve({
        url: `http://${shown}:${address.port}/graphql`,
        server,
        close: () => {
          server.closeAllConnections()
          return new Promise<void>((done) => server.close(() => done()))
        }
      })
    })
  })
