import { byPrompt, promptOfRequest } from "./stubAnswers.js"

/** The prompts of the conversation tests. */
export const SUMMARY = "conversation_summary_user"
export const PLAN_PROMPTS = ["plan_generation_user", "plan_direct_user"]
export const ANSWER_PROMPTS = ["answer_synthesis_user", "answer_typed_user"]

/** The user message of a chat request (its prompt as sent). */
export const userText = (body: any): string => body.messages?.at(-1)?.content ?? ""

/**
 * A stub endpoint's answer by prompt (stubAnswers' converging one-step run), and for a summary call what a careful
 * summariser keeps: every message the user wrote in the notes and conversation it was given, one a line — written
 * here apart from the engine's own rule (memory/Conversation), read from the request as the endpoint received it.
 */
export const conversationReply = (body: any) => {
  const prompt = promptOfRequest(body) ?? ""
  if (prompt !== SUMMARY) return { content: JSON.stringify(byPrompt[prompt] ?? {}) }
  const text = userText(body)
  const notes = /Notes so far \(may be none\): ([\s\S]*?)\n\nConversation to add/.exec(text)?.[1] ?? ""
  const said = [...text.matchAll(/\{"user":("(?:[^"\\]|\\.)*")\}/g)].map((m) => JSON.parse(m[1]!) as string)
  const kept = [...(notes === "(none)" ? [] : [notes]), ...said.map((s) => s.slice(0, 160))].join("\n")
  return { content: JSON.stringify({ summary: kept }) }
}

/** The requests for one of `prompts`. */
export const requestsFor = (requests: ReadonlyArray<any>, prompts: ReadonlyArray<string>) =>
  requests.filter((b) => prompts.includes(promptOfRequest(b) ?? ""))
