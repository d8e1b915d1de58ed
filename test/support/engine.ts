import { Effect, Layer } from "effect"
import * as Aeon from "../../src/Aeon.js"
import { LanguageModel } from "../../src/llm/LanguageModel.js"
import type { Llm } from "../../src/llm/Llm.js"
import * as Offline from "../../src/llm/Offline.js"
import * as Scripted from "../../src/llm/Scripted.js"
import { prepare } from "../../src/run/Run.js"
import type { Tool } from "../../src/tools/ToolRegistry.js"

/** The engine with a scripted model; prompts the script leaves out are answered by the offline model unless fallback is false. */
export const scripted = (
  script: Scripted.Script,
  options: { fallback?: boolean; tools?: ReadonlyArray<Tool> } = {}
) => {
  const model = Scripted.make(script, options.fallback === false ? undefined : Offline.service)
  return {
    calls: model.calls,
    layer: Layer.mergeAll(Aeon.layerWithTools(options.tools ?? []), Layer.succeed(LanguageModel, model.service))
  }
}

export const offline = Layer.mergeAll(Aeon.layerWithTools(), Offline.layer)

/** A run of `input` (memory off unless it says) on `model` with the built-in tools: its result and its events. */
export const runOn = (model: LanguageModel["Type"], input: object) =>
  Effect.runPromise(
    Effect.gen(function*() {
      const p = yield* prepare({ memory: false, ...input })
      const result = yield* p.execute
      return { result, events: yield* p.events.log }
    }).pipe(Effect.provide(Layer.mergeAll(Aeon.layerWithTools(), Layer.succeed(LanguageModel, model))))
  )

/** A phase's model over a script (what the planner, validator and engines are handed), with the calls it was asked. */
export const scriptedLlm = (script: Scripted.Script): Llm & { readonly calls: Scripted.ScriptedModel["calls"] } => {
  const m = Scripted.make(script)
  return { label: "scripted", generate: (c, i, o) => m.service.generate(c, i, o), calls: m.calls }
}
