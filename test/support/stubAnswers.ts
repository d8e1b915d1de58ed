import { Contracts } from "../../src/prompts/PromptRegistry.js"
/** A converging one-step run's answers, by prompt, as an OpenAI-compatible endpoint would write them (tests, bench row 15). */
export const byPrompt: Record<string, object> = {
  taskprofile_inference_user: {
    reasoningDepth: 1,
    informationSufficiency: 0.9,
    expectedToolUsage: "minimal",
    outputBreadth: "narrow",
    confidenceRequirement: "medium",
    rawInference: "bench"
  },
  plan_generation_user: {
    goal: "Compute 6 * 7",
    steps: [{ stepId: "s1", description: "Compute 6 * 7", tool: "calculator", toolInput: { expression: "6 * 7" } }]
  },
  validation_semantic_user: { issues: [] },
  reasoning_step_user: { stepOutput: "6 * 7 = 42", clarityState: "CLEAR", handoffToNext: "42" },
  convergence_assessment_user: {
    converged: true,
    completenessScore: 1,
    coherenceScore: 1,
    consistencyAlignment: {},
    reasoning: "ok",
    confidence: 1
  },
  answer_synthesis_user: { answerText: "Forty-two. ".repeat(60).trim(), confidence: 0.9, usedStepIds: ["s1"] }
}

export const ANSWER = "answer_synthesis_user"

/**
 * The prompt a chat request is for, however its format was asked: the json_schema's name, else the prompt whose
 * system text the request's system message begins with (JSON mode, or the schema written in the prompt).
 */
export const promptOfRequest = (body: any): string | undefined => {
  const named = body.response_format?.json_schema?.name
  if (typeof named === "string") return named
  const system: string = body.messages?.[0]?.content ?? ""
  return Object.values(Contracts).find((c) => system.startsWith(c.system.template))?.id
}

/** The prompt a Messages API request is for: its system text, and the opening of its user text before a placeholder. */
export const promptOfMessages = (body: any): string | undefined => {
  const system: string = body.system?.[0]?.text ?? ""
  const user: string = body.messages?.[0]?.content?.find((b: any) => b.type === "text")?.text ?? ""
  return Object.values(Contracts).find((c) =>
    system.startsWith(c.system.template) && user.startsWith(c.user.template.split("{{")[0]!)
  )?.id
}

/** The prompt a Gemini request is for: its system instruction and the opening of its user text. */
export const promptOfGemini = (body: any): string | undefined => {
  const system: string = body.systemInstruction?.parts?.[0]?.text ?? ""
  const user: string = body.contents?.[0]?.parts?.find((p: any) => typeof p.text === "string")?.text ?? ""
  return Object.values(Contracts).find((c) =>
    system.startsWith(c.system.template) && user.startsWith(c.user.template.split("{{")[0]!)
  )?.id
}
