/**
 * The GraphiQL page /graphql serves a browser: bundled (it works without internet access), with a demo to run in
 * order — start a run, follow it, read it — whose run id is fresh on each page view.
 */
import { randomUUID } from "node:crypto"

const exampleQuery = (runId: string) =>
  `# Aeon — start a run, then follow its events live (run them in this order).
# The offline model is a rule-based stand-in unless a provider is configured. Each ▶ of Start starts a new run
# (its id gets -1, -2, …); Follow, Output and Inspect go to the latest.

mutation Start {
  runTask(input: { task: "Compute (17 + 25) * 3 and explain the result", mode: FULL, runId: "${runId}" }) {
    id
    status
  }
}

# Each message is a burst of events (a fast run's whole history comes in one)
subscription Follow {
  runEventBatches(runId: "${runId}", fromSeq: 0) {
    seq
    type
    ... on PhaseEnteredEvent { passNumber phase }
    ... on StepFinishedEvent { stepId stepStatus stepOutput }
    ... on ConvergenceAssessedEvent { assessment { converged completenessScore reasonCodes } }
    ... on RunFinishedEvent { status finalAnswer { answerText } }
  }
}

# The model's text as it is written (not stored: start it while the run goes, beside Follow)
subscription Output {
  runOutput(runId: "${runId}") { promptId stepId text answerText done }
}

# See it in the run viewer: /runs/${runId}
query Inspect {
  run(id: "${runId}") {
    status
    finalAnswer { answerText label }
    history { passes { passNumber phases convergence { converged reasonCodes } } }
    usage { llmCalls inputTokens outputTokens cachedTokens costUsd }
  }
}

# Human in the loop: this run's memory.write waits for your approval (status AWAITING_INPUT).
mutation StartWithApproval {
  runTask(input: {
    task: "Store 42 in memory under answer, then read it back"
    mode: FULL
    runId: "${runId}-approval"
    approvalTools: ["memory.write"]
  }) { id status }
}

query Pending {
  run(id: "${runId}-approval") { status pendingApprovals { requestId stepId tool input description } }
}

# Paste the requestId from Pending (EDIT with input: {...} changes the call; REJECT with a reason refuses it).
mutation Approve {
  respondToApproval(runId: "${runId}-approval", requestId: "PASTE-REQUEST-ID", decision: APPROVE) { id status }
}
`

/**
 * A script that puts this page's demo run id in place of an earlier one in GraphiQL's stored tabs, and gives each ▶
 * of a Start operation whose run id was already started from this page a run id of its own (the id with -1, -2, …:
 * a second Start would otherwise be refused, the id taken). The new id is written into the editor's text as the
 * request leaves (Monaco's models, reached through its global API), so the editor always shows the id it sent, and
 * Follow, Output and Inspect — sent as the editor reads — go to that run.
 */
const freshDemoId = (defaultQuery: string) => {
  const id = defaultQuery.match(/demo-[0-9a-f]{8}/)?.[0]
  if (!id) return ""
  return `<script>(() => { try { for (const k of Object.keys(localStorage)) { if (!k.startsWith("graphiql:")) continue;
const v = localStorage.getItem(k); if (v && /demo-[0-9a-f]{8}/.test(v)) localStorage.setItem(k, v.replace(/demo-[0-9a-f]{8}(-[0-9]+)?/g, "${id}")) } }
catch (e) {}
const demo = "${id}"; const started = new Set(); let n = 0;
const quoted = (s) => JSON.stringify(s);
const show = (from, to) => { const api = window.monaco; if (!api) return;
  for (const model of api.editor.getModels()) { const v = model.getValue();
    if (v.includes(quoted(from))) model.setValue(v.split(quoted(from)).join(quoted(to))) } };
const rewrite = (raw) => { try { const m = JSON.parse(raw); const p = m.payload || m;
  if (typeof p.query !== "string" || !/^Start/.test(p.operationName || "")) return raw;
  const used = (p.query.match(/runId:\\s*"([^"]+)"/) || [])[1];
  if (!used || !used.startsWith(demo)) return raw;
  if (!started.has(used)) { started.add(used); return raw }
  let next; do { next = demo + "-" + (++n) } while (started.has(next));
  started.add(next); show(used, next); p.query = p.query.split(quoted(used)).join(quoted(next));
  return JSON.stringify(m) } catch (e) { return raw } };
const fetch0 = window.fetch; window.fetch = (input, init) =>
  fetch0(input, init && typeof init.body === "string" ? { ...init, body: rewrite(init.body) } : init);
const send0 = WebSocket.prototype.send;
WebSocket.prototype.send = function (d) { return send0.call(this, typeof d === "string" ? rewrite(d) : d) } })()</script>`
}

/**
 * GraphiQL bundled with the server: it works without internet access (yoga's default loads it from a CDN). Loaded on
 * the first page view: the renderer holds the whole page in the server's memory. Each page view gets a fresh demo run
 * id, also in the tabs GraphiQL restores from the browser's storage (else a reload would run Start again with an id
 * already taken).
 */
export const renderGraphiQL = (options?: { readonly defaultQuery?: string | undefined }) =>
  import("@graphql-yoga/render-graphiql").then((m) =>
    m.renderGraphiQL(options)
      .replace("<head>", `<head>${freshDemoId(options?.defaultQuery ?? "")}`)
      // Monaco's global API (window.monaco): the demo script writes a new run id into the editor through it
      .replace("globalAPI: false", "globalAPI: true")
  )

/** subscriptions from GraphiQL over graphql-ws: its SSE mode uses GET (EventSource), which CSRF prevention refuses */
export const graphiqlOptions = () => ({
  title: "Aeon",
  subscriptionsProtocol: "WS" as const,
  defaultQuery: exampleQuery(`demo-${randomUUID().slice(0, 8)}`)
})
