/**
 * The GraphiQL page /graphql serves a browser: bundled (it works without internet access), with a demo to run in
 * order — start a run, follow it, read it —, the run started the one the others go to.
 */

const exampleQuery = `# Aeon — start a run, then follow its events live (run them in this order).
# The offline model is a rule-based stand-in unless a provider is configured. Each ▶ of Start starts a new run; its id
# goes into the variables (below) as $runId, where Follow, Output and Inspect read it: they go to the latest run.

mutation Start {
  runTask(input: { task: "Compute (17 + 25) * 3 and explain the result", mode: FULL }) {
    id
    status
  }
}

# Each message is a burst of events (a fast run's whole history comes in one)
subscription Follow($runId: ID!) {
  runEventBatches(runId: $runId, fromSeq: 0) {
    seq
    type
    ... on PhaseEnteredEvent { passNumber phase }
    ... on StepFinishedEvent { stepId stepStatus stepOutput }
    ... on ConvergenceAssessedEvent { assessment { converged completenessScore reasonCodes } }
    ... on RunFinishedEvent { status finalAnswer { answerText } }
  }
}

# The model's text as it is written (not stored: start it while the run goes, beside Follow)
subscription Output($runId: ID!) {
  runOutput(runId: $runId) { promptId stepId text answerText done }
}

# See it in the run viewer too: /runs/<its id>
query Inspect($runId: ID!) {
  run(id: $runId) {
    status
    finalAnswer { answerText label }
    history { passes { passNumber phases convergence { converged reasonCodes } } }
    usage { llmCalls inputTokens outputTokens cachedTokens costUsd }
  }
}

# Human in the loop: this run's memory.write waits for your approval (status AWAITING_INPUT); its id becomes $runId.
mutation StartWithApproval {
  runTask(input: {
    task: "Store 42 in memory under answer, then read it back"
    mode: FULL
    approvalTools: ["memory.write"]
  }) { id status }
}

query Pending($runId: ID!) {
  run(id: $runId) { status pendingApprovals { requestId stepId tool input description } }
}

# Paste the requestId from Pending (EDIT with input: {...} changes the call; REJECT with a reason refuses it).
mutation Approve($runId: ID!) {
  respondToApproval(runId: $runId, requestId: "PASTE-REQUEST-ID", decision: APPROVE) { id status }
}
`

/** The variables a new tab opens with, until a Start puts its run's id there. */
const exampleVariables = `{ "runId": "▶ Start first: its run's id comes here" }`

/**
 * The page's one script: when a tab's response shows a run just started (`runTask { id }`), that id becomes the tab's
 * `runId` variable — through Monaco's models (its global API, which GraphiQL's options turn on), the editors GraphiQL
 * reads each operation from. Nothing the page sends is touched.
 */
const latestRunAsVariable = `<script>(() => {
const started = /"runTask":\\s*\\{\\s*"id":\\s*"([^"]+)"/;
const watch = (api, model) => { const path = model.uri.path; if (!path.endsWith("response.json")) return;
  const tab = path.slice(0, -"response.json".length);
  model.onDidChangeContent(() => { const id = (model.getValue().match(started) || [])[1]; if (!id) return;
    const next = JSON.stringify({ runId: id }, null, 2);
    for (const m of api.editor.getModels()) if (m.uri.path === tab + "variables.json" && m.getValue() !== next) m.setValue(next) }) };
let api; Object.defineProperty(window, "monaco", { configurable: true, get: () => api, set: (v) => { api = v;
  v.editor.getModels().forEach((m) => watch(v, m)); v.editor.onDidCreateModel((m) => watch(v, m)) } }) })()</script>`

/**
 * GraphiQL bundled with the server: it works without internet access (yoga's default loads it from a CDN). Loaded on
 * the first page view: the renderer holds the whole page in the server's memory.
 */
export const renderGraphiQL = (options?: object) =>
  import("@graphql-yoga/render-graphiql").then((m) =>
    m.renderGraphiQL(options)
      .replace("<head>", `<head>${latestRunAsVariable}`)
      // Monaco's global API (window.monaco): the page's script reaches the editors' models through it
      .replace("globalAPI: false", "globalAPI: true")
  )

/** subscriptions from GraphiQL over graphql-ws: its SSE mode uses GET (EventSource), which CSRF prevention refuses */
export const graphiqlOptions = () => ({
  title: "Aeon",
  subscriptionsProtocol: "WS" as const,
  defaultQuery: exampleQuery,
  defaultTabs: [{ query: exampleQuery, variables: exampleVariables }]
})
