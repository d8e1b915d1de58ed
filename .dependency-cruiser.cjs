/* global module */
/**
 * The layers of src/, lowest first: a module may import its own folder and the folders below it, never one above
 * (docs/ARCHITECTURE.md's "Layers" is this list). `npm run lint` runs it (CI fails on an upward import or a cycle).
 */
const layers = [
  ["support", "domain", "telemetry"], // plain helpers, the schemas of every entity, spans
  ["record"], // the run's record: the one fold of its events and what only reads it
  // capabilities, one floor each so that they cannot import each other in a circle
  ["prompts"],
  ["tools"],
  ["mcp"],
  ["llm"],
  ["adaptive"],
  ["supervisor"],
  ["validation"],
  ["planning"],
  ["convergence"],
  ["guardrails"], // checks at a run's input, tool calls, tool results and output (redact, block)
  ["memory"], // memory across runs as a run sees it: relevance, plan reuse (the store keeps the memories)
  ["journal"], // a run's log as it is written and followed: the writer, the replay-then-live journal, live output
  ["kernel"], // the pass loop and one step
  ["simple"],
  ["store"], // the record stored: it implements the kernel's event sink
  ["webhooks"], // the webhooks' delivery: the outbox's deliveries POSTed, signed, retried
  ["agents"], // named, versioned configurations of runs: their definitions, file, store and models
  ["run"], // a run prepared, executed, registered in the store, resumed
  ["Aeon.ts"], // the default engine's layers
  ["viewer"], // the browser page (bundled apart; the server only serves it)
  ["runs"], // the runs a process owns and follows: their execution, journals, answers, admission, placement
  ["cluster"], // runs placed across servers (an owner of runs: below the HTTP edge)
  ["server"], // the HTTP edge: graphql/, mcp/, protocols/ over one listener
  ["launch"], // the whole server as one Layer, npm start
  ["cli"],
  ["index.ts"] // the library's surface
]

const folder = (name) => (name.endsWith(".ts") ? `^src/${name.replace(".", "\\.")}$` : `^src/${name}/`)
const upward = layers.flatMap((floor, i) => {
  const above = layers.slice(i + 1).flat()
  if (above.length === 0) return []
  return [{
    name: `layer-${floor.join("-").replace(/\.ts/g, "")}`,
    comment: `${floor.join(", ")} may not import a layer above it (${above.join(", ")})`,
    severity: "error",
    from: { path: floor.map(folder).join("|") },
    to: { path: above.map(folder).join("|") }
  }]
})
const sameFloor = layers.filter((floor) => floor.length > 1).map((floor) => ({
  name: `no-cycle-within-${floor.join("-")}`,
  comment: "folders of one floor may import each other, but not in a circle",
  severity: "error",
  from: { path: floor.map(folder).join("|") },
  to: { circular: true }
}))

module.exports = {
  forbidden: [
    ...upward,
    ...sameFloor,
    {
      name: "cli-through-the-run-api",
      comment:
        "the CLI starts, answers and follows runs through run/ (the library's run API), never the kernel's parts " +
        "(#43: no second run manager)",
      severity: "error",
      from: { path: "^src/cli/" },
      to: { path: "^src/kernel/" }
    },
    {
      name: "cli-reads-no-store-table",
      comment:
        "the CLI asks the run API — in process (runs/StoredRuns, run/) or the server's beside one — and reads no " +
        "store table itself (#76 item 3): of store/ it takes the layer (Database) and where a server is (ServerAddress)",
      severity: "error",
      from: { path: "^src/cli/" },
      to: { path: "^src/store/", pathNot: "^src/store/(Database|ServerAddress)\\.ts$" }
    },
    {
      name: "runs-reading-below-executing",
      comment: "in runs/, reading a run (RunReads, RunJournals and the feeds) sees the runs executing here through " +
        "LiveRun's RunsHere, never their execution (LiveRuns, take-up, leases, commands) (#75 item 4)",
      severity: "error",
      from: { path: "^src/runs/(RunReads|RunJournals|EventFeed|OutputFeed|StoreWaitFeed|RunModel)\\.ts$" },
      to: { path: "^src/runs/(LiveRuns|TakeUp|RunLeases|RunCommands|RunManager|RunOwners|Admission|Answering)\\.ts$" }
    },
    ...["graphql", "mcp", "protocols"].map((room) => ({
      name: `edge-room-${room}`,
      comment:
        "the HTTP edge's rooms serve one kind of client each: they share the edge's root and the floors below, " +
        "never each other",
      severity: "error",
      from: { path: `^src/server/${room}/` },
      to: { path: `^src/server/(?!${room}/)[a-z]+/` }
    })),
    {
      name: "no-circular",
      comment: "no module imports itself through others",
      severity: "error",
      from: { path: "^src/" },
      to: { circular: true }
    },
    {
      name: "no-orphans",
      comment: "a module nothing imports is dead code (the entry points and generated code aside)",
      severity: "error",
      from: {
        orphan: true,
        pathNot: [
          "^src/index\\.ts$",
          "^src/cli/main\\.ts$",
          "^src/launch/main\\.ts$",
          "^src/viewer/App\\.tsx$",
          "\\.d\\.ts$"
        ]
      },
      to: {}
    },
    {
      name: "no-unlisted-folder",
      comment: "every folder of src/ has its floor in this file's layers",
      severity: "error",
      from: { path: "^src/", pathNot: layers.flat().map(folder).join("|") },
      to: {}
    }
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^src/(server/graphql|viewer)/generated/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".tsx", ".js", ".mjs"] }
  }
}
