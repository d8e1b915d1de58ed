import { type Message, Role } from "@a2a-js/sdk"
import { randomUUID } from "node:crypto"

/** A user's A2A message with one text part (`extra`: its task, context, …). */
export const userMessage = (text: string, extra: Partial<Message> = {}): Message => ({
  messageId: randomUUID(),
  contextId: "",
  taskId: "",
  role: Role.ROLE_USER,
  parts: [{ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" }],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
  ...extra
})
