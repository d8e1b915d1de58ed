import { createServer } from "node:http"
import type { AddressInfo, Socket } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import WebSocket, { WebSocketServer } from "ws"
import { corkedWebSocket } from "../../src/server/BurstDelivery.js"
import { waitFor } from "../support/server.js"

/**
 * A burst of messages to one WebSocket goes out in one socket write, and a send is answered at once while the socket
 * has room (graphql-ws waits for each answer before it takes the next event); beyond the high-water mark it waits for
 * its write again, so a slow client holds back its own feed.
 */
let close: (() => Promise<void>) | undefined
afterEach(() => close?.())

const connected = async () => {
  const server = createServer()
  const wss = new WebSocketServer({ server })
  const accepted = new Promise<WebSocket>((resolve) => wss.on("connection", resolve))
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const client = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}`)
  const received: Array<string> = []
  client.on("message", (data) => received.push(String(data)))
  const socket = await accepted
  close = async () => {
    client.terminate()
    wss.close()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
  // the writes the WebSocket makes to its TCP socket
  const raw = (socket as unknown as { _socket: Socket })._socket
  const writes = { count: 0 }
  for (const method of ["_write", "_writev"] as const) {
    const original = (raw as any)[method].bind(raw)
    ;(raw as any)[method] = (...args: Array<unknown>) => {
      writes.count++
      return original(...args)
    }
  }
  return { socket, received, writes }
}

const send = (socket: WebSocket, data: string) =>
  new Promise<void>((resolve, reject) => socket.send(data, (e?: Error) => (e ? reject(e) : resolve())))

describe("WebSocket delivery in bursts", () => {
  it("writes the messages sent in one tick in one socket write, and answers each send before the write", async () => {
    // the control: uncorked, the same burst is a write per message (so the count below measures the corking)
    const plain = await connected()
    await Promise.all([1, 2, 3, 4, 5].map((n) => send(plain.socket, `m${n}`)))
    await waitFor(async () => plain.received.length === 5 || undefined)
    expect(plain.writes.count).toBe(5)
    await close?.()

    const { received, socket, writes } = await connected()
    corkedWebSocket(socket)
    const answered: Array<number> = []
    const sends = [1, 2, 3, 4, 5].map((n) => send(socket, `m${n}`).then(() => answered.push(n)))
    await Promise.resolve()
    await Promise.resolve()
    // answered in microtasks, before the corked write has gone out (process.nextTick)
    expect(answered).toEqual([1, 2, 3, 4, 5])
    expect(writes.count).toBe(0)
    await Promise.all(sends)
    await waitFor(async () => received.length === 5 || undefined)
    expect(writes.count).toBe(1)
    expect(received).toEqual(["m1", "m2", "m3", "m4", "m5"])
  })

  it("beyond 1 MiB waiting on the socket, a send waits for its write", async () => {
    const { received, socket } = await connected()
    corkedWebSocket(socket)
    const big = "x".repeat(1.5 * 2 ** 20)
    const first = send(socket, big) // corked: it waits in the socket's buffer until the tick ends
    let secondAnswered = false
    const second = send(socket, "after").then(() => (secondAnswered = true))
    await Promise.resolve()
    await Promise.resolve()
    expect(socket.bufferedAmount).toBeGreaterThan(2 ** 20)
    expect(secondAnswered).toBe(false) // held back, not answered at once
    await Promise.all([first, second])
    await waitFor(async () => received.length === 2 || undefined)
    expect(received.at(-1)).toBe("after")
  })
})
