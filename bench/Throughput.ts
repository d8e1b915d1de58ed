import { Layer } from "effect"
import { createSchema, createYoga } from "graphql-yoga"
import { execFile } from "node:child_process"
import { createServer } from "node:http"
import { createRequire } from "node:module"
import type { AddressInfo } from "node:net"
import { serve } from "../src/launch/App.js"
import { typeDefs } from "../src/server/Server.js"
import { engine, loopScript, memoryStore } from "./support.js"

const autocannonBin = createRequire(import.meta.url).resolve("autocannon/autocannon.js")
const body = JSON.stringify({ query: "{ health { ok version } }" })

/** autocannon in its own process: the load generator does not share the server's event loop. */
const hammer = (url: string, seconds: number) =>
  new Promise<number>((resolve, reject) =>
    execFile(
      process.execPath,
      [
        autocannonBin,
        "--json",
        "-m",
        "POST",
        "-H",
        "content-type=application/json",
        "-b",
        body,
        "-c",
        "20",
        "-d",
        String(seconds),
        url
      ],
      { maxBuffer: 16 << 20 },
      (e, stdout) => (e ? reject(e) : resolve(JSON.parse(stdout).requests.average as number))
    )
  )

/** `health` through the full server vs a bare graphql-yoga server with the same schema. */
export const throughput = async (seconds = 5) => {
  const app = await serve({ port: 0, host: "127.0.0.1" }, {
    engine: engine(() => loopScript(1, 1)),
    database: memoryStore as Layer.Layer<any, any>
  })
  const bare = createYoga({
    schema: createSchema({
      typeDefs,
      resolvers: {
        Query: {
          health: () => ({
            ok: true,
            version: "bare",
            model: "none",
            database: "none",
            activeRuns: 0,
            queuedRuns: 0,
            subscriptions: 0
          })
        }
      }
    }),
    logging: false
  })
  const server = createServer(bare)
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
  const bareUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`
  try {
    await hammer(app.url, 1)
    await hammer(bareUrl, 1)
    // alternate the two so that warm-up and machine noise fall on both alike
    const full: Array<number> = []
    const plain: Array<number> = []
    const rounds = Math.max(1, Math.floor(seconds / 2)) // 2-second rounds, alternating
    for (let i = 0; i < rounds; i++) {
      plain.push(await hammer(bareUrl, 2))
      full.push(await hammer(app.url, 2))
    }
    const mean = (xs: Array<number>) => xs.reduce((a, b) => a + b, 0) / xs.length
    return { aeonRps: mean(full), bareRps: mean(plain), ratio: mean(full) / mean(plain) }
  } finally {
    server.close()
    await app.stop()
  }
}
