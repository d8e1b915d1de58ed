import { Layer } from "effect"
import * as Guardrails from "./guardrails/Guardrails.js"
import * as Approval from "./kernel/Approval.js"
import * as RunLlm from "./kernel/RunLlm.js"
import * as ModelLayer from "./llm/ModelLayer.js"
import * as Mcp from "./mcp/Mcp.js"
import * as Run from "./run/Run.js"
import * as Tracing from "./telemetry/Tracing.js"
import * as ToolRegistry from "./tools/ToolRegistry.js"

/**
 * Everything but the model: the built-in tools, any of yours, and the tools of the MCP servers in
 * `mcpFile` (else the file `AEON_MCP_CONFIG` names, if any), connected while the layer lives.
 */
export const layerWithTools = (tools: ReadonlyArray<ToolRegistry.Tool> = [], mcpFile?: string) =>
  Mcp.layerFile(mcpFile, tools)

/** The built-in tools with yours; no MCP server, whatever the environment says. */
export const layerWithOwnTools = (tools: ReadonlyArray<ToolRegistry.Tool> = []) => Mcp.layerNone(tools)

/**
 * How runs treat their calls, from the environment: tracing (OTLP), the approval policy, prompt recording, the
 * operator's guardrails (AEON_GUARDRAILS).
 */
export const runPolicyLayerConfig = Layer.mergeAll(
  Tracing.layerConfig,
  Approval.layerConfig,
  RunLlm.recordingLayerConfig,
  Guardrails.layerConfig
)

/**
 * The default engine: model chosen from the environment (AEON_MODEL_PROVIDER …), built-in tools and those of the MCP
 * servers in AEON_MCP_CONFIG, OTLP tracing when configured.
 */
export const layerFor = (options: { readonly mcpFile?: string | undefined } = {}) =>
  Layer.mergeAll(
    layerWithTools([], options.mcpFile),
    ModelLayer.layerConfig,
    runPolicyLayerConfig
  )

export const layer = layerFor()

export { runTask } from "./run/TypedRun.js"
export const prepare = Run.prepare
