import { serveUntilSignal } from "./Start.js"

/** `npm start`: the GraphQL server with GraphiQL, embedded database, offline model unless a provider is configured. */
await serveUntilSignal()
