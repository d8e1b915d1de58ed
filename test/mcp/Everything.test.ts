import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Layer, Ref } from "effect"
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { createServer } from "node:net"
import { LanguageModel } from "../../src/llm/LanguageModel.js"
import * as Offline from "../../src/llm/Offline.js"
import * as Scripted from "../../src/llm/Scripted.js"
import * as Mcp from "../../src/mcp/Mcp.js"
import type { McpConfig } from "../../src/mcp/McpConfig.js"
import { PromptId } from "../../src/prompts/PromptId.js"
import { prepare } from "../../src/run/Run.js"
import { ToolRegistry } from "../../src/tools/ToolRegistry.js"
import { everythingBin, everythingServer } from "../support/mcp.js"
import { convergingScript, planOut } from "../support/scripts.js"
import { waitFor } from "../support/server.js"
import { outputOf } from "../support/until.js"

const context = () =>
  Effect.map(Ref.make<ReadonlyMap<string, unknown>>(new Map()), (memory) => ({ runId: "test", memory }))

const engine = (config: McpConfig, script: Scripted.Script = {}, settings: Record<string, number> = {}) =>
  Layer.mergeAll(
    Layer.succeed(LanguageModel, Scripted.make({ ...convergingScript(), ...script }, Offline.service).service)
  ).pipe(Layer.provideMerge(Mcp.layer(config, { settings })))

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })

/** A plan whose first step runs server-everything's long operation (20 s in 4 steps), read-only. */
const longOperation = {
  [PromptId.PLAN_GENERATION_USER]: [planOut([
    {
      id: "s1",
      d: "Run the long operation",
      tool: "ev.trigger-long-running-operation",
      input: { duration: 20, steps: 4 }
    },
    { id: "s2", d: "Report how it went", deps: ["s1"] }
  ])]
}

/** server-everything over HTTP (its own Express server) on a free port, until the returned stop. */
const everythingOverHttp = async (transport: "streamableHttp" | "sse") => {
  const port = await freePort()
  const child: ChildProcess = spawn(process.execPath, [everythingBin, transport], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "ignore", "pipe"]
  })
  await outputOf(child).until(/listening|running/i, 20_000)
  return { port, stop: () => void child.kill("SIGTERM") }
}

/** The pids of server-everything's stdio processes started by this test process. */
const everythingChildren = () =>
  execFileSync("ps", ["-eo", "pid,ppid,args"], { encoding: "utf8" }).split("\n")
    .map((l) => l.trim().split(/\s+/))
    .filter(([, ppid, ...args]) => Number(ppid) === process.pid && args.join(" ").includes("server-everything"))
    .map(([pid]) => Number(pid))

/** The bytes a process has read so far (Linux's /proc): a request written to an idle server shows here. */
const bytesRead = (pid: number) => Number(/rchar:\s*(\d+)/.exec(readFileSync(`/proc/${pid}/io`, "utf8"))?.[1] ?? 0)

describe("MCP tools of the reference server-everything", () => {
  it.live("stdio: results as text, structured content, images named; a bad input refused before the call", () =>
    Effect.gen(function*() {
      const tools = yield* ToolRegistry
      const ctx = yield* context()
      expect(yield* tools.invoke("ev.get-sum", { a: 2, b: 3 }, ctx)).toMatch(/5/)
      const image = yield* tools.invoke("ev.get-tiny-image", {}, ctx)
      expect(image).toMatch(/\[image: image\/png, \d+ bytes, not inlined\]/)
      expect(image).not.toMatch(/iVBOR/) // no base64 in the run
      const structured = yield* tools.invoke("ev.get-structured-content", { location: "New York" }, ctx)
      expect(structured).toMatchObject({ temperature: expect.any(Number) })
      const bad = yield* Effect.either(tools.invoke("ev.get-sum", { a: "two", b: 3 }, ctx))
      expect(Either.isLeft(bad) && bad.left).toMatchObject({
        _tag: "ToolInputError",
        message: expect.stringMatching(/does not match the tool's input schema: \/a must be number/)
      })
    }).pipe(Effect.provide(engine({ mcpServers: { ev: everythingServer() } }))))

  it.live("a result over AEON_MCP_MAX_RESULT_BYTES is cut with a marker", () =>
    Effect.gen(function*() {
      const tools = yield* ToolRegistry
      const out = yield* tools.invoke("ev.echo", { message: "x".repeat(5_000) }, yield* context())
      expect(out).toMatch(/\[cut: the result was \d+ bytes, over the 1000-byte limit \(AEON_MCP_MAX_RESULT_BYTES\)\]$/)
      expect(Buffer.byteLength(String(out).split("\n[cut:")[0]!)).toBeLessThanOrEqual(1_000)
    }).pipe(Effect.provide(engine({ mcpServers: { ev: everythingServer() } }, {}, { maxResultBytes: 1_000 }))))

  it.live("a URL server: Streamable HTTP; an SSE-only server through the fallback", () =>
    Effect.acquireUseRelease(
      Effect.promise(() => Promise.all([everythingOverHttp("streamableHttp"), everythingOverHttp("sse")])),
      ([http, sse]) =>
        Effect.gen(function*() {
          const tools = yield* ToolRegistry
          const health = (yield* Mcp.McpServers).health()
          expect(health.map((h) => [h.name, h.transport, h.status])).toEqual([
            ["http", "streamable-http", "connected"],
            ["old", "sse", "connected"]
          ])
          const ctx = yield* context()
          expect(yield* tools.invoke("http.echo", { message: "over http" }, ctx)).toContain("over http")
          expect(yield* tools.invoke("old.echo", { message: "over sse" }, ctx)).toContain("over sse")
        }).pipe(Effect.provide(engine({
          mcpServers: {
            http: { url: `http://127.0.0.1:${http.port}/mcp` },
            old: { url: `http://127.0.0.1:${sse.port}/sse` }
          }
        }))),
      (servers) => Effect.sync(() => servers.forEach((s) => s.stop()))
    ))

  it.live("a read-only call is cut off by the run's deadline (no result recorded, the step abandoned)", () =>
    Effect.gen(function*() {
      const run = yield* prepare({ task: "Wait for the long operation", mode: "FULL", budget: { deadlineMs: 1_500 } })
      yield* run.execute
      const log = yield* run.events.log
      expect(log.some((e) => e._tag === "StepAbandoned" && e.stepId === "s1")).toBe(true)
      expect(log.some((e) => e._tag === "ToolInvoked")).toBe(false)
    }).pipe(Effect.provide(engine({ mcpServers: { ev: everythingServer() } }, longOperation))))

  it.live("the server killed mid-call: the step fails with McpServerUnavailable; it is reconnected; the next run's call works", () =>
    Effect.gen(function*() {
      const servers = yield* Mcp.McpServers
      const [pid] = everythingChildren()
      expect(pid).toBeGreaterThan(0)
      const run = yield* prepare({ task: "Wait for the long operation", mode: "FULL", budget: { ttl: 1 } })
      const idle = bytesRead(pid!)
      const fiber = yield* Effect.fork(run.execute)
      yield* run.events.waitFor(
        (r) => (r.attempt?.started.has("s1") ? true : undefined),
        (e) => (e._tag === "StepStarted" && e.stepId === "s1" ? true : undefined)
      )
      // killed once the server has read the step's call (the idle server reads nothing else)
      yield* Effect.promise(() => waitFor(async () => (bytesRead(pid!) > idle ? true : undefined)))
      process.kill(pid!, "SIGKILL")
      yield* fiber.await
      const call = (yield* run.events.log).find((e) => e._tag === "ToolInvoked")
      expect(call).toMatchObject({
        tool: "ev.trigger-long-running-operation",
        error: expect.stringMatching(/^McpServerUnavailable: /)
      })
      // reconnected by the supervisor (a new process), its tools back in the registry
      yield* Effect.promise(() =>
        waitFor(async () => (servers.health()[0]!.status === "connected" ? true : undefined), 20_000)
      )
      expect(everythingChildren()).not.toContain(pid)
      const tools = yield* ToolRegistry
      expect(yield* tools.invoke("ev.get-sum", { a: 1, b: 1 }, yield* context())).toMatch(/2/)
    }).pipe(Effect.provide(engine({ mcpServers: { ev: everythingServer() } }, longOperation))))
})
