import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as HttpRouter from "@effect/platform/HttpRouter"
import { Effect } from "effect"
import { createServer, request } from "node:http"
import type { AddressInfo } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import { sseResponse } from "../../src/server/Sse.js"

/**
 * The edge's one SSE writer as a protocol uses it: frames written as they come, a failure told in the protocol's
 * frame, and a client that goes away stops the frames at once (a run's follower must not outlive its client).
 */
let close: (() => void) | undefined
afterEach(() => close?.())

const serve = (
  frames: (signal: AbortSignal) => AsyncIterable<string>,
  onFailure = (_: unknown) => "event: error\n\n"
) =>
  new Promise<number>((resolve) => {
    // as the protocols answer: a response of the platform's router, written by its Node server
    const router = HttpRouter.empty.pipe(
      HttpRouter.get("/", Effect.sync(() => sseResponse({ "content-type": "text/event-stream" }, frames, onFailure)))
    )
    const server = createServer(Effect.runSync(NodeHttpServer.makeHandler(router)))
    close = () => server.close()
    server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port))
  })

const read = (port: number, until?: (text: string) => boolean) =>
  new Promise<string>((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: "/" }, (res) => {
      let text = ""
      res.on("data", (c: Buffer) => {
        text += c.toString()
        if (until?.(text)) {
          req.destroy()
          resolve(text)
        }
      })
      res.on("end", () => resolve(text))
    })
    req.on("error", reject)
    req.end()
  })

describe("the edge's SSE writer", () => {
  it("writes the frames, then the failure's frame, and ends", async () => {
    const port = await serve(async function*() {
      yield "data: 1\n\n"
      yield ""
      yield "data: 2\n\n"
      throw new Error("the run's log is gone")
    })
    expect(await read(port)).toBe("data: 1\n\ndata: 2\n\nevent: error\n\n")
  })

  it("a client that goes away stops the frames at once", async () => {
    let stopped: (() => void) | undefined
    const stop = new Promise<void>((resolve) => (stopped = resolve))
    const port = await serve(async function*(signal) {
      try {
        for (let i = 0; !signal.aborted; i++) {
          yield `data: ${i}\n\n`
          await new Promise((r) => setTimeout(r, 20))
        }
      } finally {
        stopped!()
      }
    })
    await read(port, (text) => text.includes("data: 2"))
    await expect(Promise.race([stop.then(() => "stopped"), new Promise((r) => setTimeout(() => r("still"), 2_000))]))
      .resolves.toBe("stopped")
  })

  it("a client that goes away aborts the frames' signal: a follower waiting for its next item stops at once", async () => {
    let aborted: (() => void) | undefined
    const abort = new Promise<void>((resolve) => (aborted = resolve))
    const port = await serve(async function*(signal) {
      yield "data: 1\n\n"
      // waiting for a next item that never comes (a run waiting for a person): only the signal ends the wait
      await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve()))
      aborted!()
    })
    await read(port, (text) => text.includes("data: 1"))
    await expect(Promise.race([abort.then(() => "aborted"), new Promise((r) => setTimeout(() => r("still"), 2_000))]))
      .resolves.toBe("aborted")
  })
})
