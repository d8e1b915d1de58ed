import { MemorySaver } from "@langchain/langgraph"
import { createReactAgent } from "@langchain/langgraph/prebuilt"
import { ChatOpenAI } from "@langchain/openai"
import { Layer, ManagedRuntime } from "effect"
import { countTokens } from "gpt-tokenizer/encoding/cl100k_base"
import * as Aeon from "../src/Aeon.js"
import { LanguageModel } from "../src/llm/LanguageModel.js"
import * as OpenAi from "../src/llm/OpenAi.js"
import { DEFAULT_THREAD_CONTEXT_TOKENS } from "../src/memory/Conversation.js"
import { runTask } from "../src/run/Run.js"
import * as Database from "../src/store/Database.js"
import { byPrompt } from "../test/support/stubAnswers.js"
import { billedTokens, billingStub } from "./support.js"

/**
 * A 50-turn conversation (#56): the request tokens of each turn through an Aeon thread (AUTO, its conversation
 * quoted within AEON_THREAD_CONTEXT_TOKENS, the oldest turns summarised past it) and through LangGraph's
 * createReactAgent with a MemorySaver checkpointer on one thread_id (its messages state: every turn resends the whole
 * history). One local stub bills every request as a provider does (cl100k over messages and response_format) and
 * answers each turn with a ~120-word reply; a summary call keeps the user's lines, cut to its cap.
 */
const REPLY = "Here is a considered answer to that. ".repeat(18).trim()
const taskOf = (i: number) =>
  i === 1
    ? "Please remember for this whole conversation: my project is called Larkspur and its deadline is 14 March."
    : `Turn ${i}: suggest one more improvement for the ${i}th section of the Larkspur report and say why it matters.`

const billed = (body: any) => billedTokens(countTokens, body)

const aeonAnswer = (prompt: string, user: string): unknown => {
  switch (prompt) {
    case "plan_direct_user":
    case "plan_generation_user":
      return { steps: [{ stepId: "s1", description: "Answer the user", answer: REPLY }], answer: "{{s1}}" }
    case "conversation_summary_user": {
      const said = [...user.matchAll(/\{"user":("(?:[^"\\]|\\.)*")\}/g)].map((m) => JSON.parse(m[1]!) as string)
      const notes = /Notes so far \(may be none\): ([\s\S]*?)\n\nConversation to add/.exec(user)?.[1] ?? ""
      return { summary: [...(notes === "(none)" ? [] : [notes]), ...said.map((s) => s.slice(0, 120))].join("\n") }
    }
    case "answer_synthesis_user":
      return { answerText: REPLY, confidence: 0.9, usedStepIds: ["s1"] }
    default:
      // the reviews as a converging run's (test/support/stubAnswers)
      return byPrompt[prompt] ?? {}
  }
}

/** Which prompt a request is for (ReAct's requests ask no format). */
const promptOf = (body: any): string => body.response_format?.json_schema?.name ?? "react"

const startStub = () =>
  billingStub(
    (body) => (promptOf(body) === "react"
      ? REPLY
      : JSON.stringify(aeonAnswer(promptOf(body), body.messages?.at(-1)?.content ?? ""))),
    billed,
    countTokens
  )

/** A turn's requests: the prompt each was for and what it billed. */
const billedOf = (requests: ReadonlyArray<any>) => requests.map((b) => ({ prompt: promptOf(b), tokens: billed(b) }))

export interface TurnFigures {
  readonly turn: number
  /** The largest request of the turn (Aeon: its plan request; ReAct: its one request). */
  readonly request: number
  /** Every request of the turn. */
  readonly input: number
  readonly summaries: number
}

const turnOf = (turn: number, requests: ReadonlyArray<{ prompt: string; tokens: number }>): TurnFigures => ({
  turn,
  request: Math.max(0, ...requests.filter((r) => r.prompt !== "conversation_summary_user").map((r) => r.tokens)),
  input: requests.reduce((n, r) => n + r.tokens, 0),
  summaries: requests.filter((r) => r.prompt === "conversation_summary_user").length
})

const aeonTurns = async (stub: Awaited<ReturnType<typeof startStub>>, turns: number) => {
  const model = OpenAi.make({
    baseURL: stub.baseURL,
    apiKey: "bench",
    model: "gpt-4o-mini",
    timeoutMs: 60_000,
    maxRetries: 0
  })
  const runtime = ManagedRuntime.make(
    Layer.mergeAll(Aeon.layerWithTools(), Layer.succeed(LanguageModel, model)).pipe(
      Layer.provideMerge(Database.layer({ dataDir: "memory" }))
    )
  )
  const out: Array<TurnFigures> = []
  try {
    for (let i = 1; i <= turns; i++) {
      stub.requests.length = 0
      await runtime.runPromise(runTask({ task: taskOf(i), threadId: "bench", memory: false }))
      out.push(turnOf(i, billedOf(stub.requests)))
    }
  } finally {
    await runtime.dispose()
  }
  return out
}

const reactTurns = async (stub: Awaited<ReturnType<typeof startStub>>, turns: number) => {
  const llm = new ChatOpenAI({ model: "gpt-4o-mini", apiKey: "bench", configuration: { baseURL: stub.baseURL } })
  const agent = createReactAgent({ llm, tools: [], checkpointSaver: new MemorySaver() })
  const out: Array<TurnFigures> = []
  for (let i = 1; i <= turns; i++) {
    stub.requests.length = 0
    await agent.invoke({ messages: [{ role: "user", content: taskOf(i) }] }, { configurable: { thread_id: "bench" } })
    out.push(turnOf(i, billedOf(stub.requests)))
  }
  return out
}

export const threadTurns = async (turns = 50) => {
  const stub = await startStub()
  try {
    return {
      bound: Number(process.env.AEON_THREAD_CONTEXT_TOKENS ?? DEFAULT_THREAD_CONTEXT_TOKENS),
      aeon: await aeonTurns(stub, turns),
      react: await reactTurns(stub, turns)
    }
  } finally {
    await stub.close()
  }
}
