import { Layer } from "effect"
import { execFile } from "node:child_process"
import { serve } from "../src/launch/App.js"
import { PromptId } from "../src/prompts/PromptId.js"
import { engine, loopScript, memoryStore, percentile } from "./support.js"

/**
 * The streaming benches' run (10 steps, 2 passes), each call answered in `callMs`, waiting 2 s on its first call so that
 * every client is there.
 */
export const pacedScript = (callMs: number) => () => {
  const s = loopScript(10, 2, callMs)
  return {
    ...s,
    [PromptId.TASKPROFILE_INFERENCE_USER]: s[PromptId.TASKPROFILE_INFERENCE_USER]!.map((r) => ({
      ...(r as object),
      delayMs: 2_000
    }))
  }
}

/** The streaming benches' run at their own pace: a call every 20 ms. */
export const streamingScript = pacedScript(20)

/**
 * A server whose one run (the streaming benches' loop, each call answered in `callMs`) is followed by clients in a
 * process of their own: `clients(url, runId)` names that process's script and its arguments, which print the live
 * latencies as JSON.
 */
export const followedRun = async (
  callMs: number,
  clients: (url: string, runId: string) => ReadonlyArray<string>
): Promise<Array<number>> => {
  const app = await serve({ port: 0, host: "127.0.0.1", maxConcurrentRuns: 4 }, {
    engine: engine(pacedScript(callMs) as any),
    database: memoryStore as Layer.Layer<any, any>
  })
  try {
    const runId = `followed-${Date.now()}`
    const res = await fetch(app.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        query: `mutation($i: RunTaskInput!) { runTask(input: $i) { id } }`,
        variables: { i: { task: "Compute the running sums", mode: "FULL", runId, budget: { ttl: 2 } } }
      })
    })
    await res.json()
    const out = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        ["--import", "tsx", ...clients(app.url, runId)],
        { maxBuffer: 64 << 20 },
        (e, stdout) => (e ? reject(e) : resolve(stdout))
      )
    )
    return JSON.parse(out)
  } finally {
    await app.stop()
  }
}

/**
 * Latency from an event's emission (its `at`, stamped when it is published) to its arrival at each of
 * `subscribers` clients of one transport, on loopback, the clients in another process. The run waits
 * 2 s on its first model call so that every client is subscribed before the events that are measured.
 */
export const streaming = async (
  transport: "sse" | "ws",
  subscribers = 100,
  options: { readonly callMs?: number } = {}
) => {
  const live = await followedRun(options.callMs ?? 20, (url, runId) => [
    new URL("./StreamingClients.ts", import.meta.url).pathname,
    url,
    runId,
    transport,
    String(subscribers)
  ])
  return {
    transport,
    subscribers,
    events: live.length,
    p50: percentile(live, 50),
    p99: percentile(live, 99),
    max: Math.max(...live)
  }
}
