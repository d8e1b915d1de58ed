import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { LanguageModel } from "../../src/llm/LanguageModel.js"
import * as Offline from "../../src/llm/Offline.js"
import * as OpenAi from "../../src/llm/OpenAi.js"
import * as Scripted from "../../src/llm/Scripted.js"
import * as Mcp from "../../src/mcp/Mcp.js"
import { PromptId } from "../../src/prompts/PromptId.js"
import { prepare, runTask } from "../../src/run/Run.js"
import { ToolRegistry } from "../../src/tools/ToolRegistry.js"
import { filesystemServer } from "../support/mcp.js"
import { startOpenAiStub } from "../support/OpenAiStub.js"
import { convergingScript, planOut, verdict } from "../support/scripts.js"

const dir = realpathSync(mkdtempSync(join(tmpdir(), "aeon-mcp-")))
writeFileSync(join(dir, "note.txt"), "The launch code is 4711.")

const engine = (script: Scripted.Script) => {
  const model = Scripted.make(script, Offline.service)
  return {
    model,
    layer: Layer.succeed(LanguageModel, model.service).pipe(
      Layer.provideMerge(Mcp.layer({ mcpServers: { fs: filesystemServer(dir) } }))
    )
  }
}

describe("MCP tools in a run (the reference filesystem server over stdio)", () => {
  it.live("the server's tools are in the registry as server.tool, with their annotations' semantics", () =>
    Effect.gen(function*() {
      const tools = yield* ToolRegistry
      const read = tools.get("fs.read_text_file")
      expect(read).toMatchObject({ server: "fs", idempotent: true, interruptible: true, destructive: false })
      expect(tools.get("fs.write_file")).toMatchObject({ idempotent: true, destructive: true })
      expect(tools.get("fs.edit_file")).toMatchObject({ idempotent: false, destructive: true })
      expect(tools.get("calculator")).toBeDefined()
    }).pipe(Effect.provide(engine({}).layer)))

  it.live("a plan that reads a file through fs.read_text_file converges, the call and its output in the trace", () => {
    const file = join(dir, "note.txt")
    const { layer, model } = engine({
      ...convergingScript(),
      [PromptId.PLAN_GENERATION_USER]: [planOut([
        { id: "s1", d: "Read the note file", tool: "fs.read_text_file", input: { path: file } },
        { id: "s2", d: "State the launch code from the note", deps: ["s1"] }
      ])]
    })
    return Effect.gen(function*() {
      const run = yield* prepare({ task: "What is the launch code in the note?", mode: "FULL" })
      const result = yield* run.execute
      expect(result.status).toBe("CONVERGED")
      const log = yield* run.events.log
      const call = log.find((e) => e._tag === "ToolInvoked")
      expect(call).toMatchObject({ tool: "fs.read_text_file", server: "fs", input: { path: file } })
      expect(JSON.stringify((call as any).output)).toContain("4711")
      // the step's reasoning saw the file's content
      const reasoning = model.calls.find((c) => c.promptId === PromptId.REASONING_STEP_USER)
      expect(reasoning?.user).toContain("4711")
      expect(readFileSync(file, "utf8")).toBe("The launch code is 4711.")
    }).pipe(Effect.provide(layer))
  })
})

describe("an MCP tool with a provider through the real openai client (a local OpenAI-compatible stub)", () => {
  it.live("the plan prompt lists the MCP tool with its input schema; its result reaches the step's prompt", () =>
    Effect.acquireUseRelease(
      Effect.promise(() => startOpenAiStub()),
      (stub) => {
        const file = join(dir, "note.txt")
        const json = (value: unknown) => ({ content: JSON.stringify(value) })
        stub.replyWith((body) => {
          const prompt = body.response_format?.json_schema?.name ?? ""
          const user = String(body.messages.at(-1)?.content ?? "")
          if (prompt === PromptId.TASKPROFILE_INFERENCE_USER) {
            return json({
              reasoningDepth: 2,
              informationSufficiency: 0.9,
              expectedToolUsage: "minimal",
              outputBreadth: "narrow",
              confidenceRequirement: "medium",
              rawInference: "a file to read"
            })
          }
          if (prompt === PromptId.PLAN_GENERATION_USER) {
            return json({
              goal: "Read the launch code",
              steps: [
                {
                  stepId: "s1",
                  description: "Read the note file",
                  tool: "fs.read_text_file",
                  toolInput: { path: file }
                },
                { stepId: "s2", description: "State the launch code from the note", dependencies: ["s1"] }
              ]
            })
          }
          if (prompt === PromptId.REASONING_STEP_USER) {
            const code = user.match(/launch code is (\d+)/)?.[1] ?? "unknown"
            return json({ stepOutput: `The launch code is ${code}.`, clarityState: "CLEAR", handoffToNext: code })
          }
          if (prompt === PromptId.VALIDATION_SEMANTIC_USER) return json({ issues: [] })
          if (prompt === PromptId.CONVERGENCE_ASSESSMENT_USER) {
            return json((verdict(true) as { output: unknown }).output)
          }
          if (prompt === PromptId.ANSWER_SYNTHESIS_USER) {
            const code = user.match(/launch code is (\d+)/)?.[1] ?? "unknown"
            return json({ answerText: `The launch code is ${code}.`, confidence: 0.9, usedStepIds: ["s1", "s2"] })
          }
          return undefined
        })
        const model = OpenAi.make({ baseURL: stub.baseURL, model: "gpt-4o-mini", timeoutMs: 10_000, maxRetries: 0 })
        const layer = Layer.succeed(LanguageModel, model).pipe(
          Layer.provideMerge(Mcp.layer({ mcpServers: { fs: filesystemServer(dir) } }))
        )
        return Effect.gen(function*() {
          const result = yield* runTask({ task: "What is the launch code in the note?", mode: "FULL" })
          expect(result.status).toBe("CONVERGED")
          expect(result.finalAnswer?.answerText).toBe("The launch code is 4711.")
          const plan = stub.requests.find((r) => r.response_format?.json_schema?.name === PromptId.PLAN_GENERATION_USER)
          const planPrompt = String(plan.messages.at(-1).content)
          expect(planPrompt).toContain("fs.read_text_file")
          // its entry: the name, the input's fields with their types, one line (planning/ToolCatalog, #58)
          expect(planPrompt).toMatch(/fs\.read_text_file\(path: string[^)]*\) — /)
        }).pipe(Effect.provide(layer))
      },
      (stub) => Effect.promise(() => stub.close())
    ))
})

describe("MCP servers that cannot start, and the offline stand-in", () => {
  it.live("a server that fails to start does not stop the engine: its tools are absent and health says why", () =>
    Effect.gen(function*() {
      const tools = yield* ToolRegistry
      expect(tools.get("fs.read_text_file")).toBeDefined()
      expect(tools.names.some((n) => n.startsWith("broken."))).toBe(false)
      const health = (yield* Mcp.McpServers).health()
      expect(health.find((h) => h.name === "broken")).toMatchObject({
        status: "failed",
        toolCount: 0,
        lastError: expect.stringContaining("ENOENT")
      })
      expect(health.find((h) => h.name === "fs")).toMatchObject({ status: "connected", transport: "stdio" })
    }).pipe(Effect.provide(
      Mcp.layer({ mcpServers: { fs: filesystemServer(dir), broken: { command: "/nonexistent/mcp-server", args: [] } } })
    )))

  it.live("the offline stand-in calls the tool a task names, with the rest of the clause as its input (labeled)", () =>
    Effect.gen(function*() {
      const result = yield* runTask({ task: `Use fs.list_directory on ${dir}`, mode: "FULL" })
      expect(result.status).toBe("CONVERGED")
      expect(result.plan?.steps[0]).toMatchObject({ tool: "fs.list_directory", toolInput: { path: dir } })
      expect(result.model).toBe("offline") // labeled where the answer is shown (#60 item 8)
      expect(result.finalAnswer?.answerText).toContain("note.txt")
    }).pipe(Effect.provide(
      Offline.layer.pipe(
        Layer.provideMerge(Mcp.layer({ mcpServers: { fs: filesystemServer(dir) } }))
      )
    )))
})
