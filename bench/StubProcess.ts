import { startOpenAiStub } from "../test/support/OpenAiStub.js"
import { ANSWER, byPrompt } from "../test/support/stubAnswers.js"

/**
 * The OpenAI-compatible stub in a process of its own (bench/ModelOutput): the endpoint's work (writing each chunk)
 * is not on the measured server's two cores' event loop, as a provider's is not. Told over IPC how to answer
 * ("paced": the final answer in 8-character chunks 10 ms apart, after a second; "plain": everything at once; "model":
 * every answer written at a model's pace, streamed or, asked plainly, sent whole when it would have been written),
 * it reports the chunks it sent with their times on the machine's clock (timeOrigin + now, comparable across
 * processes).
 */
const stub = await startOpenAiStub()
/** A model's pace: a chunk of 8 characters every 5 ms; a plain reply comes when its last chunk would have. */
const CHUNK_MS = 5
const answering = (mode: Mode) =>
  stub.replyWith((body) => {
    const prompt = body.response_format?.json_schema?.name as string
    const content = JSON.stringify(byPrompt[prompt] ?? {})
    const writing = (Math.ceil(content.length / 8) - 1) * CHUNK_MS
    return {
      content,
      ...(mode === "paced" && prompt === ANSWER ? { chunkChars: 8, chunkDelayMs: 10, delayMs: 1_000 } : {}),
      ...(mode === "model" ? (body.stream ? { chunkChars: 8, chunkDelayMs: CHUNK_MS } : { delayMs: writing }) : {})
    }
  })
type Mode = "paced" | "plain" | "model"
answering("plain")
process.on("message", (m: { readonly type: Mode | "chunks" }) => {
  if (m.type === "chunks") {
    const chunks = stub.sentChunks.filter((c) => c.prompt === ANSWER).map((c) => ({
      length: c.text.length,
      at: performance.timeOrigin + c.at
    }))
    stub.sentChunks.length = 0
    process.send!({ type: "chunks", chunks })
  } else {
    answering(m.type)
    process.send!({ type: "ok" })
  }
})
process.send!({ type: "ready", baseURL: stub.baseURL })
