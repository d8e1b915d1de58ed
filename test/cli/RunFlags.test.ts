import { HelpDoc, Options } from "@effect/cli"
import { JSONSchema, Option, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { FIELD_FLAGS, inputOf, runInputOptions } from "../../src/cli/RunFlags.js"
import { RunTaskInput } from "../../src/run/RunInput.js"

/** The run input's fields as its JSON Schema lists them (read here on its own, not through the CLI's module). */
const schema = JSONSchema.make(Schema.encodedBoundSchema(RunTaskInput)) as unknown as {
  properties: Record<string, { properties?: Record<string, { description?: string }>; description?: string }>
}
const fields = Object.entries(schema.properties).flatMap(([name, f]) =>
  name === "budget" ? Object.keys(f.properties ?? {}).map((k) => `budget.${k}`) : [name]
)
/** Fields `aeon run` takes another way: the task its argument, the criteria a file (--criteria), the rest not at all. */
// criteria, outputSchema and guardrails come from files (--criteria FILE, --output-schema FILE, --guardrails FILE)
// history: a chat client's message list; on the command line a conversation is a thread (--thread, aeon chat)
// attachments: --file PATH (a path read, not a field's value)
// set otherwise on the command line: a webhook by AEON_WEBHOOK_URL, onBusy its default (the help stays a screen long)
const NOT_FLAGS = [
  "task",
  "criteria",
  "outputSchema",
  "guardrails",
  "runId",
  "tags",
  "history",
  "attachments",
  "webhook",
  "onBusy"
]

describe("aeon run's flags, from the run input's schema", () => {
  it("every field of the run input a person sets has a flag (a new field without one fails here)", () => {
    const flagged = FIELD_FLAGS.map((r) => r.field)
    expect(fields.filter((f) => !flagged.includes(f) && !NOT_FLAGS.includes(f))).toEqual([])
    expect(flagged.filter((f) => !fields.includes(f) && !f.startsWith("criteria."))).toEqual([])
  })

  it("each flag's help is its field's description in the schema, with the field's path", () => {
    for (const row of FIELD_FLAGS) {
      const [top = "", inner] = row.field.split(".")
      const field = inner === undefined ? schema.properties[top] : schema.properties[top]?.properties?.[inner]
      const key = row.flag.replace(/-(\w)/g, (_, c: string) => c.toUpperCase())
      const option = runInputOptions[key]
      expect(option, row.flag).toBeDefined()
      const help = HelpDoc.toAnsiText(Options.getHelp(option!))
      expect(help, row.flag).toContain(`--${row.flag}`)
      expect(help, row.flag).toContain(row.field)
      if (field?.description && !row.field.endsWith("Ms")) expect(help, row.flag).toContain(field.description)
    }
  })

  it("the flags given make the input's fields (a flag not given sets nothing)", () => {
    expect(inputOf({
      ttl: Option.some(3),
      deadline: Option.some("90s"),
      noMemory: true,
      noReuse: false,
      interactive: true,
      tools: Option.some("calculator, memory.read,"),
      mode: Option.some("simple"),
      answerMatches: Option.some("^\\d+$"),
      parallelism: Option.none()
    })).toEqual({
      budget: { ttl: 3, deadlineMs: 90_000 },
      memory: false,
      interactive: true,
      tools: ["calculator", "memory.read"],
      mode: "SIMPLE",
      criteria: { answerMatches: "^\\d+$" }
    })
  })
})
