import { Effect, Layer } from "effect"
import { jsonrepair } from "jsonrepair"
import { textSignals } from "../domain/TextSignals.js"
import { PromptId } from "../prompts/PromptId.js"
import { Contracts, type PromptContract } from "../prompts/PromptRegistry.js"
import { fieldOf, stringField } from "../support/Fields.js"
import { findExpression } from "../tools/Calculator.js"
import * as LanguageModel from "./LanguageModel.js"
import { offlineValue } from "./OfflineValue.js"
import { FREE } from "./Pricing.js"

/**
 * The offline model: a deterministic, rule-based stand-in so the engine runs with no provider.
 * It splits the task into clauses, routes arithmetic to the calculator tool and restates step
 * results. It does not reason; every result it produces is labeled "offline".
 */
export const LABEL = "offline"
const MARK = "[offline rule-based model]"

const clauses = (task: string): Array<string> =>
  task
    .split(/(?:[.;!?]\s+|,?\s+(?:and then|then|and)\s+(?=[a-z]))/i)
    .map((c) => c.trim().replace(/[.;!?,]$/, ""))
    .filter((c) => c.length > 0)

// an operand: a number, or the previous step's result ("the result", "it", "that")
const OPERAND = String.raw`(-?\d+(?:\.\d+)?|(?:the )?(?:previous )?result|it|that|this)`
const WORDED: ReadonlyArray<readonly [RegExp, (a: string, b: string) => string]> = [
  [new RegExp(String.raw`\b(?:add|sum)\s+${OPERAND}\s+(?:and|to|plus)\s+${OPERAND}`, "i"), (a, b) => `${a} + ${b}`],
  [new RegExp(String.raw`\bsubtract\s+${OPERAND}\s+from\s+${OPERAND}`, "i"), (a, b) => `${b} - ${a}`],
  [new RegExp(String.raw`\bmultiply\s+${OPERAND}\s+(?:by|and|times)\s+${OPERAND}`, "i"), (a, b) => `${a} * ${b}`],
  [new RegExp(String.raw`\bdivide\s+${OPERAND}\s+by\s+${OPERAND}`, "i"), (a, b) => `${a} / ${b}`]
]

/**
 * Arithmetic a clause states in words ("add 17 and 25", "multiply the result by 3"); `previous` stands for "the
 * result", "it", "that": the previous step's result as a reference (`{{s1}}`, resolved when the step runs), or, for a
 * turn's first clause, the number the conversation's last answer ended with.
 */
const wordedExpression = (text: string, previous: string | undefined): string | undefined => {
  for (const [pattern, build] of WORDED) {
    const m = text.match(pattern)
    if (!m) continue
    const operand = (o: string) => (/\d/.test(o) ? o : previous)
    const [a, b] = [operand(m[1] ?? ""), operand(m[2] ?? "")]
    if (a !== undefined && b !== undefined) return build(a, b)
  }
  return undefined
}

const STORE =
  /\b(?:store|save|remember|write|put)\s+(.+?)\s+(?:in|into|to)\s+(?:the\s+)?memory\s+(?:under|as|at)\s+(?:the\s+key\s+)?["'`]?([\w.-]+)/i
const READ = /\b(?:read|recall|fetch|get|look up)\b.*\b(?:back|memory)\b/i
const KEY = /\b(?:under|key)\s+["'`]?([\w.-]+)/i

/** A clause that stores a value in memory ("store 42 in memory under answer") or reads it back ("then read it back"). */
const memoryCall = (text: string, lastKey: string | undefined) => {
  const store = text.match(STORE)
  if (store) {
    const value = /^-?\d+(?:\.\d+)?$/.test(store[1]!) ? Number(store[1]) : store[1]!.replace(/^["'`]|["'`]$/g, "")
    return { tool: "memory.write", toolInput: { key: store[2]!, value } }
  }
  const key = text.match(KEY)?.[1] ?? lastKey
  return READ.test(text) && key !== undefined ? { tool: "memory.read", toolInput: { key } } : undefined
}

interface ToolSeen {
  readonly name: string
  /** A JSON Schema, as the tool's source gave it. */
  readonly inputSchema?: unknown
}

/** The one field a tool's input is named by: its only required field, else its first property. */
const inputField = (inputSchema: unknown): string | undefined => {
  const properties = fieldOf(inputSchema, "properties")
  const required = fieldOf(inputSchema, "required")
  if (Array.isArray(required) && required.length === 1 && typeof required[0] === "string") return required[0]
  return typeof properties === "object" && properties !== null ? Object.keys(properties)[0] : undefined
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/**
 * A clause that names a tool of the run's list (`Use fs.list_directory on /tmp`): a call of it, the input being the
 * JSON object the clause gives, else the text after the name as the input's one required field (or its first).
 */
const namedToolCall = (text: string, tools: ReadonlyArray<ToolSeen>) => {
  const tool = tools.find((t) =>
    t.name.includes(".") && new RegExp(`(?:^|[\\s"'\`(])${escapeRegExp(t.name)}(?=$|[\\s"'\`),:])`).test(text)
  )
  if (!tool) return undefined
  const after = text.slice(text.indexOf(tool.name) + tool.name.length)
  const json = after.match(/\{.*\}/s)?.[0]
  if (json) {
    try {
      const toolInput: unknown = JSON.parse(json)
      return { tool: tool.name, toolInput }
    } catch {
      // not JSON after all: read as text below
    }
  }
  const argument = after.replace(/^[\s"'`),:]*(?:on|with|for|in|at|of|from|to)?\s*/i, "").replace(/^["'`]|["'`]$/g, "")
  const field = inputField(tool.inputSchema)
  return { tool: tool.name, toolInput: argument && field ? { [field]: argument } : {} }
}

/** Operators said in words between numbers ("6 * 7 plus 3"), as symbols, so the whole expression is planned. */
const OPERATOR_WORDS: ReadonlyArray<readonly [RegExp, string]> = [
  [/(?<=[\d)])\s+plus\s+(?=[-(\d])/gi, " + "],
  [/(?<=[\d)])\s+minus\s+(?=[-(\d])/gi, " - "],
  [/(?<=[\d)])\s+(?:times|multiplied by)\s+(?=[-(\d])/gi, " * "],
  [/(?<=[\d)])\s+(?:divided by|over)\s+(?=[-(\d])/gi, " / "]
]
const symbolic = (text: string) => OPERATOR_WORDS.reduce((t, [word, symbol]) => t.replace(word, symbol), text)

/**
 * The number the conversation's last answer ended with ("45" of "… 45"): what "that" means in a follow-up ("Multiply
 * that by 2"). The conversation as memory/Conversation quotes it, a JSON line a message.
 */
const lastAnswerNumber = (conversation: string | undefined): string | undefined => {
  const answers = (conversation ?? "").split("\n").flatMap((l) => {
    try {
      const said = fieldOf(JSON.parse(l), "assistant")
      return typeof said === "string" ? [said] : []
    } catch {
      return [] // the heading, a summary: not a message
    }
  })
  return answers.at(-1)?.match(/-?\d+(?:\.\d+)?(?=\D*$)/)?.[0]
}

const planFor = (request: string, seen: ReadonlyArray<ToolSeen | string>, conversation?: string) => {
  const toolsSeen = seen.map((t) => (typeof t === "string" ? { name: t } : t))
  const tools = toolsSeen.map((t) => t.name)
  const parts = clauses(request)
  let lastKey: string | undefined
  const steps = parts.map((text, i) => {
    const named = namedToolCall(text, toolsSeen)
    if (named) {
      return {
        stepId: `s${i + 1}`,
        description: text.charAt(0).toUpperCase() + text.slice(1),
        ...named,
        dependencies: i === 0 ? [] : [`s${i}`],
        provides: [`result_${i + 1}`]
      }
    }
    const expression = findExpression(symbolic(text)) ??
      wordedExpression(text, i > 0 ? `{{s${i}}}` : lastAnswerNumber(conversation))
    const useCalculator = expression !== undefined && tools.includes("calculator")
    const memory = useCalculator ? undefined : memoryCall(text, lastKey)
    if (memory) lastKey = memory.toolInput.key
    const memoryTool = memory && tools.includes(memory.tool) ? memory : undefined
    return {
      stepId: `s${i + 1}`,
      description: useCalculator
        ? `${
          expression.includes("{{") ? text.charAt(0).toUpperCase() + text.slice(1) : `Compute ${expression}`
        } with the calculator`
        : text.charAt(0).toUpperCase() + text.slice(1),
      ...(useCalculator ? { tool: "calculator", toolInput: { expression } } : memoryTool ?? {}),
      dependencies: i === 0 ? [] : [`s${i}`],
      provides: [`result_${i + 1}`]
    }
  })
  return {
    goal: request,
    steps: steps.length > 0 ? steps : [{ stepId: "s1", description: `Answer: ${request}`, dependencies: [] }],
    // what its answer synthesis writes of a converged run — the steps' results — with each as its reference (the
    // stand-in is labeled where an answer is shown, by the run's model: not inside the answer, which memories keep)
    ...(steps.length > 0 ? { answer: steps.map((s) => `{{${s.stepId}}}`).join("\n") } : {})
  }
}

const profileFor = (request: string) => {
  // the same text signals adaptive depth reads, so the stand-in and the engine agree on what is vague
  const { vagueTerms: vague, questionMarks: questions, sufficiency: informationSufficiency } = textSignals(request)
  const parts = clauses(request).length
  const reasoningDepth = Math.min(5, Math.max(1, Math.ceil(parts / 2) + (request.length > 400 ? 1 : 0)))
  const arithmetic = findExpression(request) !== undefined
  return {
    reasoningDepth,
    informationSufficiency,
    expectedToolUsage: arithmetic ? "minimal" : "none",
    outputBreadth: parts > 3 ? "broad" : parts > 1 ? "moderate" : "narrow",
    confidenceRequirement: arithmetic ? "high" : "medium",
    rawInference:
      `${MARK} ${parts} clause(s) → depth ${reasoningDepth}; ${vague} vague term(s), ${questions} question mark(s) → ` +
      `sufficiency ${informationSufficiency.toFixed(2)}; ${
        arithmetic ? "arithmetic found → calculator" : "no arithmetic → no tools"
      }.`
  } as const
}

const formatToolResult = (result: unknown): string => {
  if (result && typeof result === "object" && "value" in result && "expression" in result) {
    return `${String(result.expression)} = ${String(result.value)}`
  }
  // a text result, or one text field (an MCP tool's structured content often is): the text itself
  const values = result && typeof result === "object" ? Object.values(result) : [result]
  return values.length === 1 && typeof values[0] === "string" ? values[0] : JSON.stringify(result)
}

/**
 * A stand-in's verdict on a rubric: it cannot judge, so it checks only what a rule can — that every number and every
 * quoted phrase of the rubric appears in the answer — and says so. A rubric with neither is not passed.
 */
const rubricVerdict = (rubric: string, answerText: string) => {
  const wanted = [...rubric.matchAll(/"([^"]+)"|(-?\d+(?:\.\d+)?)/g)].map((m) => m[1] ?? m[2] ?? "")
  const missing = wanted.filter((w) => !answerText.toLowerCase().includes(w.toLowerCase()))
  const passed = wanted.length > 0 && missing.length === 0
  return {
    passed,
    score: wanted.length === 0 ? 0 : (wanted.length - missing.length) / wanted.length,
    reasoning: `${MARK} no judgement: checked only that the rubric's numbers and quoted phrases appear in the answer; ${
      wanted.length === 0
        ? "the rubric has none, so it is not passed"
        : missing.length === 0
        ? `all ${wanted.length} do`
        : `missing: ${missing.join(", ")}`
    }.`
  }
}

/**
 * The stand-in's notes of a conversation: no reading — the notes so far, then what the user said, message by message
 * (the caller cuts them to the summary's share).
 */
const extractiveSummary = (notes: string | undefined, messages: string) => {
  const said = messages.split("\n").flatMap((l) => {
    try {
      const user = stringField(JSON.parse(l), "user")
      return user === undefined ? [] : [user]
    } catch {
      return []
    }
  })
  return [...(notes ? [notes] : [`${MARK} the user's messages, not summarised:`]), ...said].join("\n")
}

type InputOf<C> = C extends PromptContract<infer I, any> ? I : never

/** A step's reasoning: a tool's result or the earlier steps restated; with neither, it says it cannot. */
const stepAnswer = (input: InputOf<typeof Contracts.reasoningStep>) => {
  // it can restate a tool's result or earlier steps; with neither it has nothing to answer from, and says so
  if (input.toolResult === undefined && !input.incomingContext) {
    const stepOutput =
      `${MARK} cannot do "${input.stepDescription}": it has no knowledge of its own, and this step has no tool result or earlier step to work from`
    return { stepOutput, clarityState: "BLOCKED", handoffToNext: "" }
  }
  const stepOutput = input.toolResult !== undefined
    ? `${input.stepDescription}: ${formatToolResult(input.toolResult)}`
    : `${input.stepDescription} — from the earlier steps: ${input.incomingContext}`
  return { stepOutput, clarityState: "CLEAR", handoffToNext: stepOutput }
}

/** Converged when enough steps are complete and few are blocked or failed (the thresholds the run gives). */
const convergenceVerdict = (input: InputOf<typeof Contracts.convergence>) => {
  const steps = input.plan.steps
  const done = steps.filter((s) => s.status === "complete").length
  const completenessScore = steps.length === 0 ? 0 : done / steps.length
  const blocked = steps.filter((s) => s.clarityState === "BLOCKED" || s.status === "failed").length
  const coherenceScore = steps.length === 0 ? 0 : 1 - blocked / steps.length
  const converged = completenessScore >= input.completenessThreshold && coherenceScore >= input.coherenceThreshold
  return {
    converged,
    completenessScore,
    coherenceScore,
    consistencyAlignment: [{ name: "planSteps", aligned: done === steps.length }],
    reasoning: `${MARK} ${done}/${steps.length} steps complete, ${blocked} blocked or failed.`,
    confidence: 0.5,
    reasonCodes: converged
      ? ["complete"]
      : [completenessScore < input.completenessThreshold ? "incomplete" : "incoherent"]
  }
}

/** The answer: the complete steps' outputs restated. */
const synthesized = (input: InputOf<typeof Contracts.answerSynthesis>) => {
  const used = input.executionResults.filter((r) => r.status === "complete" && r.stepOutput)
  const body = used.map((r) => r.stepOutput).join("\n")
  return {
    answerText: body || "no step produced an output",
    confidence: input.convergenceStatus ? 0.6 : 0.3,
    usedStepIds: used.map((r) => r.stepId),
    notes: "Produced by the offline rule-based model: it restates step results and does not reason."
  }
}

const answer = (promptId: string, input: unknown, jsonSchema: object): unknown => {
  /** The call's input as its prompt's contract types it (the prompt was rendered from it: its schema held). */
  const inputOf = <I, O>(_: PromptContract<I, O>) => input as I
  switch (promptId) {
    case PromptId.PLAN_GENERATION_USER: {
      const i = inputOf(Contracts.planGeneration)
      return planFor(i.request, i.tools, i.conversation)
    }
    case PromptId.PLAN_DIRECT_USER: {
      const i = inputOf(Contracts.planDirect)
      return planFor(i.request, [], i.conversation)
    }
    case PromptId.RECURSIVE_PLAN_GENERATION_USER: {
      const i = inputOf(Contracts.recursivePlan)
      return planFor(i.goal, i.tools)
    }
    case PromptId.SUPERVISOR_REPAIR_PLAN_USER:
      return planFor(inputOf(Contracts.repairPlan).request, [])
    case PromptId.REASONING_STEP_USER:
      return stepAnswer(inputOf(Contracts.reasoningStep))
    case PromptId.VALIDATION_SEMANTIC_USER:
      return { issues: [] }
    case PromptId.CONVERGENCE_ASSESSMENT_USER:
      return convergenceVerdict(inputOf(Contracts.convergence))
    case PromptId.TASKPROFILE_INFERENCE_USER:
      return profileFor(inputOf(Contracts.profileInference).request)
    case PromptId.TASKPROFILE_UPDATE_USER:
      return {
        ...(inputOf(Contracts.profileUpdate).currentProfile as object),
        adjustmentReason: `${MARK} profile kept: the offline model does not revise profiles`
      }
    case PromptId.RECURSIVE_SUBPLAN_GENERATION_USER: {
      const input = inputOf(Contracts.subplan)
      const parts = clauses(input.parentStep.description)
      return {
        subplanGoal: input.parentStep.description,
        substeps: parts.map((p, i) => ({
          stepId: `${input.parentStep.stepId}.${i + 1}`,
          description: p,
          dependencies: []
        }))
      }
    }
    case PromptId.RECURSIVE_REFINEMENT_USER:
      return { actions: [], followUpQuestions: [] }
    case PromptId.SUPERVISOR_REPAIR_JSON_USER:
      return { repairedJson: jsonrepair(inputOf(Contracts.repairJson).raw) }
    case PromptId.SUPERVISOR_REPAIR_TOOLCALL_USER: {
      const input = inputOf(Contracts.repairToolCall)
      return { toolInput: typeof input.badInput === "string" ? { expression: input.badInput } : input.badInput }
    }
    case PromptId.SUPERVISOR_REPAIR_MISSINGTOOL_USER: {
      const input = inputOf(Contracts.repairMissingTool)
      const match = input.tools.find((t) => input.stepDescription.toLowerCase().includes(t.split(".")[0] ?? t))
      return { replacementTool: match ?? null, justification: `${MARK} matched by name in the step description` }
    }
    case PromptId.ANSWER_SYNTHESIS_USER:
      return synthesized(inputOf(Contracts.answerSynthesis))
    case PromptId.ANSWER_TYPED_USER: {
      const input = inputOf(Contracts.typedAnswer)
      return offlineValue(
        jsonSchema,
        input.executionResults.filter((r) => r.status === "complete").map((r) => r.stepOutput)
      )
    }
    case PromptId.CONVERSATION_SUMMARY_USER: {
      const input = inputOf(Contracts.conversationSummary)
      return { summary: extractiveSummary(input.summary, input.messages) }
    }
    case PromptId.EVAL_RUBRIC_USER: {
      const input = inputOf(Contracts.evalRubric)
      return rubricVerdict(input.rubric, input.answer)
    }
    default:
      throw new Error(`offline model has no rule for ${promptId}`)
  }
}

/**
 * The stand-in has no tokens of its own: it reports its usage as an API does, estimated at one token per four
 * characters. (Counted exactly, every answer loaded the o200k tokenizer's tables — tens of megabytes of a server's
 * memory — only to count a stand-in's notional tokens.)
 */
const estimatedTokens = (text: string) => Math.ceil(text.length / 4)

const made: LanguageModel.Service = LanguageModel.make(LABEL, FREE, (request) =>
  Effect.sync(() => {
    const full = JSON.stringify(answer(request.promptId, request.input, request.jsonSchema))
    const text = LanguageModel.capOutput(full, request.maxOutputTokens, estimatedTokens)
    return {
      text,
      truncated: text.length < full.length,
      inputTokens: estimatedTokens(request.system) + estimatedTokens(request.user),
      outputTokens: estimatedTokens(text)
    }
  }).pipe(Effect.tap((r) => LanguageModel.streamText(r.text, request.onText))))

/** The stand-in reads no file or image: a task carrying one is refused before it starts (it says so). */
export const service: LanguageModel.Service = { ...made, accepts: () => false }

export const layer = Layer.succeed(LanguageModel.LanguageModel, service)
