/**
 * Aeon's MCP tools as a client sees them: run_task (its input schema the run input's), get_run, respond and cancel_run;
 * what is wrong with a call's arguments, said as what to do; run_task's arguments as a run's input.
 */
import { Schema } from "effect"
import { RunTaskInput } from "../../run/RunInput.js"
import { plainJsonSchema } from "../../support/JsonSchemas.js"
/** What of a run's input an agent gives run_task (its user is the caller's; the rest takes its defaults). */
const TASK_FIELDS = [
  "task",
  "mode",
  "budget",
  "approvePlan",
  "approvalTools",
  "interactive",
  "outputSchema",
  "outputStrict",
  "threadId",
  "attachments"
] as const
/** run_task's input schema: derived from RunTaskInput (its constraints and descriptions), which decodes it. */
const runTaskSchema = plainJsonSchema(
  Schema.encodedBoundSchema(RunTaskInput.pipe(Schema.pick(...TASK_FIELDS))).pipe(
    Schema.extend(Schema.Struct({
      agent: Schema.optional(
        Schema.String.annotations({ description: "the agent to run: its name (the latest version) or name@version" })
      )
    }))
  )
)

export const tools = [
  {
    name: "run_task",
    title: "Run a task with Aeon",
    description:
      "Plans the task, executes its steps with a model and tools, validates and refines until the answer converges " +
      "or a budget runs out. Returns the final answer, the run's status and its id. Progress is reported while it runs. " +
      "With outputSchema (a JSON Schema) the answer is a value of it, returned as the structured content (an object " +
      "as it is, another value as {value}; the run in _meta aeon/run). " +
      "With threadId the run is the next turn of that conversation: it sees the thread's earlier turns. " +
      "What the run asks a person (approvePlan, approvalTools, interactive) is asked of you through the client's forms " +
      "(elicitation); a client without them gets the run back AWAITING_INPUT.",
    inputSchema: runTaskSchema,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true }
  },
  {
    name: "get_run",
    title: "Read a run",
    description: "A run's status, final answer, usage and plan, by id.",
    inputSchema: {
      type: "object",
      properties: { runId: { type: "string", minLength: 1 } },
      required: ["runId"],
      additionalProperties: false
    },
    annotations: { readOnlyHint: true, openWorldHint: false }
  },
  {
    name: "respond",
    title: "Answer what a run asks",
    description:
      "Answers what a waiting run asks (get_run and run_task name its requestId): approve or reject a plan, a tool's " +
      "call or more budget; edit a plan (input: refinement actions) or a call's input (input: the tool's input); " +
      "extend a budget (input: caps such as {\"maxLlmCalls\": 50}); guide a stuck step (text). Then follows the run " +
      "as run_task does: its answer, or the next thing it asks.",
    inputSchema: {
      type: "object",
      properties: {
        runId: { type: "string", minLength: 1 },
        requestId: { type: "string", minLength: 1 },
        action: { type: "string", enum: ["approve", "reject", "edit", "extend", "guide"] },
        input: { description: "edit: the plan's edits or the call's input; extend: the caps given" },
        reason: { type: "string", description: "reject: why" },
        text: { type: "string", minLength: 1, description: "guide: the guidance" }
      },
      required: ["runId", "requestId", "action"],
      additionalProperties: false
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false }
  },
  {
    name: "cancel_run",
    title: "Cancel a run",
    description: "Cancels a run that has not finished: it ends CANCELLED (a tool call in progress finishes first).",
    inputSchema: {
      type: "object",
      properties: { runId: { type: "string", minLength: 1 } },
      required: ["runId"],
      additionalProperties: false
    },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false }
  }
] as const

/** Tool arguments' shape as the tools declare it (run_task's is its run input's, decoded by the run itself). */
interface ArgumentsSchema {
  readonly properties: Readonly<
    Record<string, { readonly type?: string; readonly enum?: ReadonlyArray<string>; readonly description?: string }>
  >
  readonly required: ReadonlyArray<string>
}

const FIELD_HINTS: Readonly<Record<string, string>> = {
  runId: "the run's id (run_task and get_run give it)",
  requestId: "the id of what the run asks (run_task's text and get_run's pending requests name it)",
  action: "approve, reject, edit, extend or guide"
}

/** What is wrong with a tool call's arguments, said as what to do (a field named, never a class); or nothing. */
export const argumentProblem = (name: string, args: Record<string, unknown>): string | undefined => {
  const schema: ArgumentsSchema | undefined = tools.find((
    t
  ): t is Exclude<(typeof tools)[number], { name: "run_task" }> => t.name === name && t.name !== "run_task")
    ?.inputSchema
  if (schema === undefined) return undefined
  for (const field of schema.required) {
    if (args[field] === undefined || args[field] === "") return `${name} needs ${field}: ${FIELD_HINTS[field] ?? field}`
  }
  for (const [field, value] of Object.entries(args)) {
    const p = schema.properties[field]
    if (p === undefined) return `${name} takes no ${field} (it takes ${Object.keys(schema.properties).join(", ")})`
    if (p.type === "string" && typeof value !== "string") return `${name}'s ${field} must be a string`
    if (p.enum !== undefined && !p.enum.includes(String(value))) {
      return `${name}'s ${field} must be one of ${p.enum.join(", ")} (was ${JSON.stringify(value)})`
    }
  }
  return undefined
}

/** run_task's arguments as a run's input (decoded, and refused with the decode's words, as every run's input is). */
export const taskInput = (args: Record<string, unknown>, userId: string | undefined): Record<string, unknown> => ({
  ...Object.fromEntries(TASK_FIELDS.flatMap((k) => (args[k] === undefined ? [] : [[k, args[k]]]))),
  // an agent by name only (an agent's value is the library's)
  ...(typeof args.agent === "string" ? { agent: args.agent } : {}),
  ...(userId !== undefined ? { userId } : {})
})
