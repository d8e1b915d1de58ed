import { describe, expect, it } from "vitest"
import { closedSchema } from "../../src/llm/Anthropic.js"
import { outputJsonSchema, registry } from "../../src/prompts/PromptRegistry.js"

/**
 * Every prompt's schema as each provider's structured output takes it (#69 item 11): Claude's Messages API refuses an
 * `output_config.format` schema with an object whose `additionalProperties` is anything but `false` — the convergence
 * prompt's open map (`consistencyAlignment`) cost every FULL run on Claude one refused request. A map stays a list of
 * pairs in what is sent; every object closed.
 */
const contracts = [...registry.values()].filter((d) => d.output !== undefined)

/** The objects of a schema that Claude's rule refuses, by their path. */
const openObjects = (schema: unknown, path = "#"): Array<string> => {
  if (Array.isArray(schema)) return schema.flatMap((s, i) => openObjects(s, `${path}/${i}`))
  if (schema === null || typeof schema !== "object") return []
  const here = Object.entries(schema)
  const self = "type" in schema && schema.type === "object" &&
      !("additionalProperties" in schema && schema.additionalProperties === false)
    ? [path]
    : []
  return [...self, ...here.flatMap(([k, v]) => openObjects(v, `${path}/${k}`))]
}

describe("every prompt's schema, as each provider takes it (#69.11)", () => {
  it("covers every prompt with an output", () => {
    expect(contracts.length).toBeGreaterThanOrEqual(12)
  })

  for (const c of contracts) {
    it(`${c.id}: every object closed as sent to Claude (additionalProperties: false)`, () => {
      const sent = closedSchema(outputJsonSchema({ ...c, jsonSchema: undefined } as never))
      expect(openObjects(sent)).toEqual([])
    })
  }
})
