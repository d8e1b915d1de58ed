import { createClient as createSseClient } from "graphql-sse"
import { createClient as createWsClient } from "graphql-ws"
import WebSocket from "ws"

/**
 * The load generator of bench/Load.ts, in a process of its own. Role `load`: submits runs at a steady rate and keeps
 * `subscribers` clients following the newest runs; role `health`: probes health every 100 ms (apart, so that the
 * subscribers' own work does not delay its answers). Prints latencies, failures and gaps as JSON.
 */
const [role, url, rate, count, seconds, warmup] = process.argv.slice(2) as [
  "load" | "health",
  string,
  string,
  string,
  string,
  string
]
const runsPerSecond = Number(rate)
const until = Date.now() + Number(seconds) * 1000
/** Before this, the load runs but nothing is measured (connections opening, the JIT warming up). */
const measureFrom = Date.now() + Number(warmup) * 1000
const query = `subscription($id: ID!) { runEvents(runId: $id) { seq type at } }`
const latencies: Array<number> = []
const health: Array<number> = []
const failures: Array<string> = []
const started: Array<string> = []
/** Runs whose runTask answered: what subscribers follow (a run does not exist before its runTask returns). */
const created: Array<string> = []
let finished = 0
let followed = 0
let gaps = 0

const post = async (body: object) => {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body)
  })
  const json = await res.json() as { errors?: Array<{ message: string }> }
  if (res.status !== 200 || json.errors) failures.push(`${res.status} ${JSON.stringify(json.errors ?? json)}`)
  return json
}

const submitter = async () => {
  let n = 0
  const t0 = Date.now()
  while (Date.now() < until) {
    const id = `load-${t0.toString(36)}-${n++}`
    started.push(id)
    void post({
      query: `mutation($i: RunTaskInput!) { runTask(input: $i) { id } }`,
      variables: { i: { task: "Compute the running sums", mode: "FULL", runId: id, budget: { ttl: 1 } } }
    }).then((r: any) => r.data?.runTask && created.push(id), (e) => failures.push(`runTask: ${e}`))
    const next = t0 + (n * 1000) / runsPerSecond
    await new Promise((r) => setTimeout(r, Math.max(0, next - Date.now())))
  }
}

const prober = async () => {
  while (Date.now() < until) {
    const t = performance.now()
    await post({ query: "{ health { ok } }" }).catch((e) => failures.push(`health: ${e}`))
    if (Date.now() >= measureFrom) health.push(performance.now() - t)
    await new Promise((r) => setTimeout(r, 100))
  }
}

/** One subscriber: follows the newest run to its RunFinished, then the next newest, until the submitter stops. */
const subscriber = async (i: number) => {
  const client: any = i % 2 === 0
    ? createSseClient({ url })
    : createWsClient({ url: url.replace("http", "ws"), webSocketImpl: WebSocket, retryAttempts: 0 })
  try {
    while (Date.now() < until) {
      const runId = created[created.length - 1]
      if (!runId) {
        await new Promise((r) => setTimeout(r, 20))
        continue
      }
      let expected = 1
      let joined: number | undefined
      let done = false
      try {
        for await (
          const r of client.iterate({ query, variables: { id: runId } }) as AsyncIterable<
            { data?: { runEvents: { seq: number; type: string; at: string } }; errors?: unknown }
          >
        ) {
          const arrived = Date.now()
          if (!r.data) {
            failures.push(`subscription: ${JSON.stringify(r.errors)}`)
            break
          }
          const e = r.data.runEvents
          if (e.seq !== expected) gaps++
          expected = e.seq + 1
          joined ??= arrived
          const at = Date.parse(e.at)
          // emitted after this subscriber joined: a live delivery
          if (at >= joined && at >= measureFrom) latencies.push(arrived - at)
          if (e.type === "RunFinished") done = true
        }
      } catch (e) {
        failures.push(`subscription: ${(e as Error)?.message ?? JSON.stringify(e)}`)
        await new Promise((r) => setTimeout(r, 20))
        continue
      }
      followed++
      if (done) finished++
      else failures.push(`subscription to ${runId} ended before RunFinished`)
    }
  } finally {
    client.dispose()
  }
}

if (role === "health") await prober()
else await Promise.all([submitter(), ...Array.from({ length: Number(count) }, (_, i) => subscriber(i))])
process.stdout.write(JSON.stringify({ latencies, health, runs: started.length, finished, followed, failures, gaps }))
