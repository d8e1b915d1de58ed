import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Aeon from "../../src/Aeon.js"
import { LanguageModel } from "../../src/llm/LanguageModel.js"
import * as Offline from "../../src/llm/Offline.js"
import * as Scripted from "../../src/llm/Scripted.js"
import * as Mcp from "../../src/mcp/Mcp.js"
import { PromptId } from "../../src/prompts/PromptId.js"
import { prepare } from "../../src/run/Run.js"
import { ToolRegistry } from "../../src/tools/ToolRegistry.js"
import { filesystemServer } from "../support/mcp.js"
import { convergingScript, planOut } from "../support/scripts.js"

const dir = realpathSync(mkdtempSync(join(tmpdir(), "aeon-mcp-")))
writeFileSync(join(dir, "note.txt"), "The launch code is 4711.")

const engine = (script: Scripted.Script) => {
  const model = Scripted.make(script, Offline.service)
  return {
    model,
    layer: Layer.mergeAll(Aeon.capabilitiesLayer, Layer.succeed(LanguageModel, model.service)).pipe(
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
