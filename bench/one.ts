import { delegation } from "./Agents.js"
import { breakdown } from "./Breakdown.js"
import { caching } from "./Caching.js"
import { catalogSizes } from "./Catalog.js"
import { cluster } from "./Cluster.js"
import { concurrency } from "./Concurrency.js"
import { entityPath } from "./EntityPath.js"
import { fanOut } from "./FanOut.js"
import { fanOutPeer } from "./FanOutPeer.js"
import { forecastError } from "./Forecast.js"
import { forkReplay } from "./ForkReplay.js"
import { guardrailsCost } from "./Guardrails.js"
import { injection } from "./Injection.js"
import { load } from "./Load.js"
import { mcpCall } from "./McpCall.js"
import { memoryRecall } from "./MemoryRecall.js"
import { modelOutputDelivery, streamedWall } from "./ModelOutput.js"
import { overhead } from "./Overhead.js"
import { peer } from "./Peer.js"
import { peerSizes } from "./PeerSizes.js"
import { protocolFanOut, timeToFirstToken } from "./Protocols.js"
import { quotaCheck } from "./Quota.js"
import { retention } from "./Retention.js"
import { scaling } from "./Scaling.js"
import { streaming } from "./Streaming.js"
import { threadTurns } from "./Threads.js"
import { throughput } from "./Throughput.js"
import { traffic, trafficRepeated, typedTraffic } from "./Traffic.js"
import { validation } from "./Validation.js"
import { webhookSoak } from "./Webhooks.js"

/**
 * One measurement in a process of its own (started by bench/main.ts): what an earlier measurement left in the
 * heap, the JIT or the event loop does not move the next one. Prints the result as JSON.
 */
const [name, mode] = process.argv.slice(2)
const quick = mode === "quick"
const measurements: Record<string, () => Promise<unknown>> = {
  overhead: () => overhead({ store: false, iterations: quick ? 5 : 50, warmup: quick ? 3 : 30 }),
  guardrails: () => guardrailsCost(quick),
  injection: () => injection(),
  agents: () => delegation(),
  webhooks: () => webhookSoak(quick ? 40 : 200),
  overheadStore: () => overhead({ store: true, iterations: quick ? 3 : 20, warmup: quick ? 3 : 10 }),
  share: async () => {
    await overhead({ store: false, iterations: 1, warmup: quick ? 3 : 20 }) // the JIT warm, as in a running server
    return overhead({ store: false, iterations: quick ? 1 : 2, warmup: 1, delayMs: 200 })
  },
  concurrency: () => concurrency(quick ? 200 : 1000, 200),
  breakdown: () => breakdown(quick),
  streamingSse1: () => streaming("sse", 1),
  streamingSse: () => streaming("sse", 100),
  streamingWs1: () => streaming("ws", 1),
  streamingWs: () => streaming("ws", 100),
  // row 12b: at a model's pace (a call every 100 ms)
  pacedSse: () => streaming("sse", 100, { callMs: 100 }),
  pacedAgUi: () => protocolFanOut("ag-ui", 100),
  pacedUiStream: () => protocolFanOut("ui-stream", 100),
  pacedAgUiRaw: () => protocolFanOut("ag-ui", 100, "raw"),
  pacedUiStreamRaw: () => protocolFanOut("ui-stream", 100, "raw"),
  timeToFirstToken: () => timeToFirstToken(quick ? 3 : 15),
  pacedWs: () => streaming("ws", 100, { callMs: 100 }),
  throughput: () => throughput(quick ? 2 : 8),
  peer: () => peer(quick ? 5 : 20),
  scaling: () => scaling(quick ? [10, 100] : [10, 100, 1000]),
  fanOut: () => fanOut(100, quick ? 2_000 : 10_000),
  load: () => load(20, 200, quick ? 5 : 15),
  loadReported: () => load(50, 300, quick ? 5 : 15),
  validation: async () => validation(),
  mcpCall: () => mcpCall(quick ? 200 : 2_000, quick ? 50 : 300),
  modelOutput1: () => modelOutputDelivery(1, quick ? 2 : 5),
  modelOutput100: () => modelOutputDelivery(100, quick ? 2 : 5),
  streamedWall: () => streamedWall(quick ? 20 : 100, false),
  forkReplay: () => forkReplay(quick ? 5 : 20, 200),
  retention: () => retention(quick ? 200 : 1_000, quick ? 60 : 300),
  // the modeled latency (400 ms + 15 ms an output token) in full; a tenth of it with --quick
  traffic: () => traffic(quick ? 0.1 : 1),
  typedTraffic: () => typedTraffic(quick ? 0.1 : 1),
  catalogSizes: () => catalogSizes(),
  caching: () => caching(),
  threadTurns: () => threadTurns(quick ? 20 : 50),
  forecastError: () => forecastError(),
  quotaCheck: () => quotaCheck(quick ? 300 : 3_000),
  memoryRecall: () => memoryRecall(quick ? [10_000] : [10_000, 100_000], quick ? 200 : 1_000),
  trafficRepeated: () => trafficRepeated(quick ? 0.1 : 1),
  streamedWallPaced: () => streamedWall(quick ? 5 : 20, true),
  cluster1: () => cluster(1, quick ? 60 : 300),
  cluster3: () => cluster(3, quick ? 60 : 300),
  cluster1Light: () => cluster(1, quick ? 40 : 150, 8),
  cluster3Light: () => cluster(3, quick ? 40 : 150, 8),
  entityPath: () => entityPath(quick ? 200 : 1000),
  peerSizes: () => peerSizes(quick),
  fanOutPeerSse: () => fanOutPeer("sse", 100, quick ? 1 : 3),
  fanOutPeerWs: () => fanOutPeer("ws", 100, quick ? 1 : 3),
  fanOutPeerSse1: () => fanOutPeer("sse", 1, quick ? 1 : 3),
  fanOutPeerWs1: () => fanOutPeer("ws", 1, quick ? 1 : 3)
}
const run = measurements[name ?? ""]
if (!run) {
  console.error(`unknown measurement ${name}; one of ${Object.keys(measurements).join(", ")}`)
  process.exit(1)
}
process.stdout.write(JSON.stringify(await run()))
process.exit(0)
