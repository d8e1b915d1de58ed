import { countTokens } from "gpt-tokenizer/encoding/cl100k_base"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { readyCalls, type TrafficTask } from "./TrafficTasks.js"

/**
 * One local OpenAI-compatible server playing the same competent model for every framework (issue 41 item 7): per
 * task, the tool calls it makes and the answer it gives (TrafficTasks). It bills as a provider does — one tokenizer
 * (cl100k) over the whole request: messages, tools, response_format — and answers after a modeled latency (400 ms
 * plus 15 ms per output token, times `latencyScale`), streamed when asked.
 */

export interface Exchange {
  readonly inputTokens: number
  readonly outputTokens: number
  /** The request's messages as one text, for the prefix a provider's prompt cache could serve. */
  readonly prompt: string
}

export interface TrafficStub {
  readonly baseURL: string
  /** What was asked and billed since the last reset. */
  readonly exchanges: Array<Exchange>
  /** The ReAct model makes a layer's independent calls in one response ("parallel") or one at a time. */
  setToolCalls(mode: "parallel" | "one-at-a-time"): void
  /**
   * How the model meets a run's output schema (TYPED_SCHEMA): `valid` — its plan's answer fills the schema where it
   * writes one, and its answer call writes a valid value; `repair` — its first value breaks the schema (the plan's
   * answer names the wrong field, the first answer call's value too), the next is valid.
   */
  setTyped(mode: "valid" | "repair"): void
  reset(): void
  close(): Promise<void>
}

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let data = ""
    req.on("data", (c) => (data += c))
    req.on("end", () => resolve(data))
  })

const textOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
    ? content.map((p) => (typeof p?.text === "string" ? p.text : "")).join("")
    : ""

/** The task a request is about: the one whose text its messages hold. */
const taskOf = (tasks: ReadonlyArray<TrafficTask>, body: any) => {
  const said = (body.messages as Array<{ content: unknown }>).map((m) => textOf(m.content)).join("\n")
  return [...tasks].sort((a, b) => b.task.length - a.task.length).find((t) => said.includes(t.task))
}

/**
 * Aeon's plan for a task: the task's calls as steps, an earlier result as a reference, and the answer with each result
 * as its reference; a task needing no tool, one step the model answers as it plans (what Aeon's planner prompt asks —
 * the same answer ReAct gives).
 */
const planOf = (task: TrafficTask) => ({
  // (no goal: it is the task itself, which the planner prompt lets the plan leave out)
  steps: task.calls.length === 0
    ? [{ stepId: "s1", description: `Answer: ${task.task}`, answer: task.answer }]
    // (a tool step without a description: the planner prompt lets its call say it)
    : task.calls.map((c, i) => ({
      stepId: `s${i + 1}`,
      tool: c.tool,
      toolInput: c.planInput ?? c.input,
      // (as the planner prompt's example writes a step: no dependencies when it has none)
      ...(c.after !== undefined ? { dependencies: [`s${c.after + 1}`] } : {})
    })),
  ...(task.planAnswer ? { answer: task.planAnswer } : {})
})

/** The output schema of the typed traffic rows: the answer's text as one field. */
export const TYPED_SCHEMA = {
  type: "object",
  properties: { answer: { type: "string" } },
  required: ["answer"]
}

interface Typed {
  mode: "valid" | "repair"
  /** Values the model has written for the run's schema (its plan's answer and its answer calls). */
  written: number
}

/** The plan's answer as a value of the schema (a plan asked with it), as the model writes it in `typed`'s mode. */
const typedPlan = (task: TrafficTask, plan: ReturnType<typeof planOf>, typed: Typed) => {
  const answer = task.calls.length === 0 ? task.answer : task.planAnswer
  if (answer === undefined) return plan
  typed.written++
  return { ...plan, answer: JSON.stringify(typed.mode === "repair" ? { text: answer } : { answer }) }
}

/** What the model answers each of Aeon's prompts, for `task`. */
const aeonAnswer = (prompt: string, task: TrafficTask, typed?: Typed): object => {
  switch (prompt) {
    case "answer_typed_user":
      return typed?.mode === "repair" && typed.written++ === 0 ? { answer: 42 } : { answer: task.answer }
    case "taskprofile_inference_user":
    case "taskprofile_update_user":
      return {
        reasoningDepth: 1,
        informationSufficiency: 0.9,
        expectedToolUsage: task.calls.length === 0 ? "none" : "moderate",
        outputBreadth: "narrow",
        confidenceRequirement: "medium",
        rawInference: "a direct task"
      }
    case "plan_generation_user":
    case "plan_direct_user":
      return typed ? typedPlan(task, planOf(task), typed) : planOf(task)
    case "validation_semantic_user":
      return { issues: [] }
    case "reasoning_step_user":
      return { stepOutput: task.answer, clarityState: "CLEAR", handoffToNext: task.answer }
    case "convergence_assessment_user":
      return {
        converged: true,
        completenessScore: 1,
        coherenceScore: 1,
        consistencyAlignment: {},
        reasoning: "every part of the task is answered",
        confidence: 0.9,
        reasonCodes: ["complete"]
      }
    case "answer_synthesis_user":
      return { answerText: task.answer, confidence: 0.9, usedStepIds: task.calls.map((_, i) => `s${i + 1}`) }
    default:
      return {}
  }
}

/** The ReAct model's next message: the next calls the task needs, or its answer once every result is in. */
const reactAnswer = (body: any, task: TrafficTask, mode: "parallel" | "one-at-a-time") => {
  const done = (body.messages as Array<{ role: string }>).filter((m) => m.role === "tool").length
  const ready = readyCalls(task, done)
  if (ready.length === 0) return { content: task.answer }
  const names = new Map<string, string>((body.tools ?? []).map((t: any) => [t.function.name, t.function.name]))
  const nameOf = (tool: string) => names.get(tool.replace(".", "_")) ?? tool.replace(".", "_")
  return {
    content: "",
    toolCalls: (mode === "parallel" ? ready : ready.slice(0, 1)).map((i) => ({
      id: `call_${done}_${i}`,
      type: "function",
      function: { name: nameOf(task.calls[i]!.tool), arguments: JSON.stringify(task.calls[i]!.input) }
    }))
  }
}

/** The request billed as a provider bills it: the messages, the tools and the output format, in one count. */
const billed = (body: any) =>
  countTokens(JSON.stringify(body.messages)) + (body.tools ? countTokens(JSON.stringify(body.tools)) : 0) +
  (body.response_format ? countTokens(JSON.stringify(body.response_format)) : 0) + 3

let responses = 0

const send = async (
  res: ServerResponse,
  body: any,
  answer: { content: string; toolCalls?: Array<any> },
  usage: { prompt_tokens: number; completion_tokens: number },
  latencyMs: number
) => {
  await new Promise((r) => setTimeout(r, latencyMs))
  // each response its own id: a client that merges messages by id (LangGraph's reducer) keeps them apart
  const id = `chatcmpl-traffic-${++responses}`
  const message = {
    role: "assistant",
    content: answer.content,
    ...(answer.toolCalls ? { tool_calls: answer.toolCalls } : {})
  }
  const finish = answer.toolCalls ? "tool_calls" : "stop"
  if (!body.stream) {
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({
      id,
      object: "chat.completion",
      created: 0,
      model: body.model,
      choices: [{ index: 0, finish_reason: finish, message }],
      usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens }
    }))
    return
  }
  const chunk = (delta: object, finishReason: string | null) =>
    `data: ${
      JSON.stringify({
        id,
        object: "chat.completion.chunk",
        created: 0,
        model: body.model,
        choices: [{ index: 0, delta, finish_reason: finishReason }]
      })
    }\n\n`
  res.writeHead(200, { "content-type": "text/event-stream" })
  res.write(chunk({ role: "assistant", content: answer.content }, null))
  if (answer.toolCalls) {
    res.write(chunk({ tool_calls: answer.toolCalls.map((c, index) => ({ index, ...c })) }, null))
  }
  res.write(chunk({}, finish))
  if (body.stream_options?.include_usage) {
    res.write(
      `data: ${
        JSON.stringify({ id, object: "chat.completion.chunk", created: 0, model: body.model, choices: [], usage })
      }\n\n`
    )
  }
  res.end("data: [DONE]\n\n")
}

export const startTrafficStub = async (
  tasks: ReadonlyArray<TrafficTask>,
  latencyScale = 1
): Promise<TrafficStub> => {
  const exchanges: Array<Exchange> = []
  let mode: "parallel" | "one-at-a-time" = "parallel"
  let typed: Typed | undefined
  const server: Server = createServer(async (req, res) => {
    if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) return void res.writeHead(404).end()
    const body = JSON.parse(await readBody(req))
    const task = taskOf(tasks, body)
    if (!task) {
      return void res.writeHead(400).end(JSON.stringify({ error: { message: "no bench task in the request" } }))
    }
    const prompt = body.response_format?.json_schema?.name as string | undefined
    const answer = body.tools
      ? reactAnswer(body, task, mode)
      : { content: JSON.stringify(aeonAnswer(prompt ?? "", task, typed)) }
    const usage = {
      prompt_tokens: billed(body),
      completion_tokens: countTokens(answer.content + JSON.stringify(answer.toolCalls ?? ""))
    }
    exchanges.push({
      inputTokens: usage.prompt_tokens,
      outputTokens: usage.completion_tokens,
      prompt: JSON.stringify(body.messages.map((m: any) => ({ role: m.role, content: textOf(m.content) })))
    })
    await send(res, body, answer, usage, (400 + 15 * usage.completion_tokens) * latencyScale)
  })
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
  return {
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    exchanges,
    setToolCalls: (m) => void (mode = m),
    setTyped: (m) => void (typed = { mode: m, written: 0 }),
    reset: () => void (exchanges.length = 0, typed = undefined),
    close: () =>
      new Promise((r) => {
        server.closeAllConnections()
        server.close(() => r())
      })
  }
}
