import { generate } from "@graphql-codegen/cli"
import { getIntrospectionQuery } from "graphql"
import { serverAudits } from "graphql-http"
import { readFileSync } from "node:fs"
import { request } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import WebSocket from "ws"
import config from "../../codegen.js"
import { PromptId } from "../../src/prompts/PromptId.js"
import { convergingScript, reasoned } from "../support/scripts.js"
import { awaitRun, gql, startServer, type TestServer, untilStatus } from "../support/server.js"

/** POSTs a body in chunks, without content-length (transfer-encoding: chunked). */
const chunkedPost = (url: string, chunks: Array<string>) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(url, {
      method: "POST",
      headers: { "content-type": "application/json", "transfer-encoding": "chunked" }
    }, (res) => {
      let body = ""
      res.setEncoding("utf8").on("data", (c: string) => (body += c)).on(
        "end",
        () => resolve({ status: res.statusCode ?? 0, body })
      )
    })
    req.on("error", reject)
    for (const c of chunks) req.write(c)
    req.end()
  })

const slowScript = () => ({
  ...convergingScript(),
  [PromptId.REASONING_STEP_USER]: [{ ...reasoned("6 * 7 = 42"), delayMs: 150 }]
})

let server: TestServer
beforeAll(async () => {
  // a body limit of 1 MB (AEON_MAX_BODY_BYTES), to refuse past it without sending 71 MB
  server = await startServer({ script: slowScript(), config: { maxBodyBytes: 1_000_000 } })
}, 60_000)
afterAll(() => server?.stop())

const runTask = (input: object) =>
  gql(server.url, "mutation($input: RunTaskInput!) { runTask(input: $input) { id status mode } }", { input })
const finished = (id: string) => awaitRun(server.url, id).then((r) => r.status as string)

describe("schema-first", () => {
  it("the generated resolver types and the viewer's operation types are up to date with schema.graphql", async () => {
    const outputs = await generate({ ...config, cwd: process.cwd() }, false)
    for (const path of ["src/server/graphql/generated/graphql.ts", "src/viewer/generated/operations.ts"]) {
      const file = outputs.find((o: { filename: string }) => o.filename.endsWith(path))
      expect(file?.content, path).toBe(readFileSync(path, "utf8"))
    }
  }, 60_000)
})

describe("GraphQL over HTTP", () => {
  it("passes every graphql-http server audit", async () => {
    const audits = serverAudits({
      url: server.url,
      // a client that sends the CSRF-prevention header, as the server requires for GET
      fetchFn: (input: any, init: any = {}) =>
        fetch(input, { ...init, headers: { ...(init.headers ?? {}), "x-graphql-yoga-csrf": "1" } })
    })
    const results = await Promise.all(audits.map(async (a) => ({ name: a.name, result: await a.fn() })))
    const failed = results.filter((r) => r.result.status !== "ok").map((r) =>
      `${r.name}: ${r.result.status} ${"reason" in r.result ? r.result.reason : ""}`
    )
    expect(failed).toEqual([])
    expect(results.length).toBeGreaterThanOrEqual(60)
  }, 60_000)

  it("runTask returns at once; the run is readable with history, trace, metadata, plan and usage", async () => {
    const started = await runTask({ task: "Compute 6 * 7 and explain it", mode: "FULL" })
    expect(["QUEUED", "RUNNING"]).toContain(started.body.data.runTask.status)
    const id = started.body.data.runTask.id
    expect(await finished(id)).toBe("CONVERGED")
    const r = await gql(
      server.url,
      `query($id: ID!) { run(id: $id) {
      id task mode status model finalAnswer { answerText usedStepIds label } result { converged terminationReason advisories }
      history { totalPasses passes { passNumber phases plan { steps { stepId status } } convergence { converged reasonCodes completenessScore } validationReport { overallSeverity } profile { profileVersion } depth { adjustmentReason } } }
      escalation { iterations { iteration } escalated } prioritizedPlan { waves { waveNumber stepIds } dependencies { source target } }
      trace { totalSteps steps { toolName status } } metadata { stepsTaken toolCallCounts successRate } usage { llmCalls }
      events(fromSeq: 2) { seq type ... on PhaseEnteredEvent { phase } }
    } }`,
      { id }
    )
    const run = r.body.data.run
    expect(run).toMatchObject({
      id,
      mode: "FULL",
      status: "CONVERGED",
      model: "scripted",
      finalAnswer: { answerText: "42: six sevens", label: "converged" }
    })
    expect(run.history.passes.map((p: any) => p.phases)).toEqual([["PLAN"], ["EXECUTE", "EVALUATE"]])
    expect(run.history.passes[1].convergence.converged).toBe(true)
    expect(run.history.passes[0].profile.profileVersion).toBe(1)
    expect(run.prioritizedPlan.waves).toEqual([{ waveNumber: 1, stepIds: ["s1"] }, { waveNumber: 2, stepIds: ["s2"] }])
    expect(run.trace.totalSteps).toBe(3)
    expect(run.metadata).toMatchObject({ stepsTaken: 2, toolCallCounts: { calculator: 1 }, successRate: 1 })
    expect(run.events[0].seq).toBe(2)
    expect(run.events.find((e: any) => e.type === "PhaseEntered").phase).toBe("PLAN")
  })

  it("bad input gets a specific error with a code, and nothing starts", async () => {
    const before = (await gql(server.url, "{ runs(first: 100) { edges { node { id } } } }")).body.data.runs.edges.length
    const empty = await runTask({ task: "  " })
    expect(empty.body.errors?.[0]).toMatchObject({
      message: "task: task must not be empty",
      extensions: { code: "InvalidRunInputError" }
    })
    const negative = await runTask({ task: "x", budget: { ttl: -1, maxCostUsd: -2 } })
    expect(negative.body.errors?.[0]?.message).toBe(
      "budget.ttl: ttl must be a positive integer (was -1); budget.maxCostUsd: maxCostUsd must be greater than 0 (was -2)"
    )
    const tool = await runTask({ task: "x", tools: ["web.search"] })
    expect(tool.body.errors?.[0]?.message).toContain("unknown tool web.search")
    const regex = await runTask({ task: "x", criteria: { answerMatches: "(" } })
    expect(regex.body.errors?.[0]?.extensions?.code).toBe("InvalidRunInputError")
    const backReference = await runTask({ task: "x", criteria: { answerMatches: "(a)\\1" } })
    expect(backReference.body.errors?.[0]).toMatchObject({
      message: expect.stringContaining("criteria.answerMatches: answerMatches is not a pattern the linear-time engine"),
      extensions: { code: "InvalidRunInputError" }
    })
    const missing = await gql(server.url, `mutation { cancelRun(id: "nope") { id } }`)
    expect(missing.body.errors?.[0]).toMatchObject({
      message: "run nope does not exist",
      extensions: { code: "RunNotFoundError" }
    })
    expect((await gql(server.url, `{ run(id: "nope") { id } }`)).body.data.run).toBeNull()
    const after = (await gql(server.url, "{ runs(first: 100) { edges { node { id } } } }")).body.data.runs.edges.length
    expect(after).toBe(before)
  })

  it("variable coercion errors and the CSRF block carry codes (BAD_USER_INPUT, CSRF_BLOCKED)", async () => {
    const cases: Array<[string, Record<string, unknown>]> = [
      ["query($n: Int) { runs(first: $n) { edges { cursor } } }", { n: "ten" }],
      ["query($n: Int) { runs(first: $n) { edges { cursor } } }", { n: 2 ** 40 }],
      ["query($n: Int) { runs(first: $n) { edges { cursor } } }", { n: 1.5 }],
      ["query($s: RunStatus) { runs(status: $s) { edges { cursor } } }", { s: "NOPE" }],
      ["mutation($i: RunTaskInput!) { runTask(input: $i) { id } }", { i: { task: "x", bogus: 1 } }],
      ["mutation($i: RunTaskInput!) { runTask(input: $i) { id } }", {}]
    ]
    for (const [query, variables] of cases) {
      const r = await gql(server.url, query, variables)
      expect(r.body.errors?.map((e) => e.extensions?.code), `${query} ${JSON.stringify(variables)}`).toEqual([
        "BAD_USER_INPUT"
      ])
      expect(r.body.data ?? null).toBeNull()
    }
    const csrf = await fetch(`${server.url}?query=${encodeURIComponent("{ health { ok } }")}`, {
      headers: { accept: "application/json" }
    })
    expect(csrf.status).toBe(403)
    expect(((await csrf.json()) as any).errors[0].extensions.code).toBe("CSRF_BLOCKED")
  })

  it("lists runs with cursor pagination and filters", async () => {
    for (let i = 0; i < 3; i++) {
      await finished(
        (await runTask({ task: "Compute 6 * 7 and explain it", mode: "FULL", userId: "pager" })).body.data.runTask.id
      )
    }
    const q =
      `query($after: String) { runs(userId: "pager", first: 2, after: $after) { edges { cursor node { id userId } } pageInfo { endCursor hasNextPage } } }`
    const p1 = (await gql(server.url, q)).body.data.runs
    const p2 = (await gql(server.url, q, { after: p1.pageInfo.endCursor })).body.data.runs
    expect(p1.edges).toHaveLength(2)
    expect(p1.pageInfo.hasNextPage).toBe(true)
    expect(p2.edges).toHaveLength(1)
    expect(p2.pageInfo.hasNextPage).toBe(false)
    expect(new Set([...p1.edges, ...p2.edges].map((e: any) => e.node.id)).size).toBe(3)
    expect((await gql(server.url, `{ runs(status: CANCELLED) { edges { node { id } } } }`)).body.data.runs.edges)
      .toEqual([])
  })

  it("serves tools, prompts and health", async () => {
    const r = await gql(
      server.url,
      "{ tools { name idempotent inputSchema } prompts { id outputSchema } health { ok version model database activeRuns queuedRuns } }"
    )
    expect(r.body.data.tools.map((t: any) => t.name)).toEqual([
      "calculator",
      "memory.read",
      "memory.write",
      "memory.remember",
      "memory.recall",
      "clock.now"
    ])
    expect(r.body.data.prompts).toHaveLength(Object.keys(PromptId).length)
    expect(r.body.data.health).toMatchObject({ ok: true, model: "scripted" })
  })

  it("limits query depth, query cost, body size; refuses GET without the CSRF header", async () => {
    const ofType = (n: number): string => (n === 0 ? "name" : `ofType { ${ofType(n - 1)} }`)
    const deep = await gql(server.url, `{ __schema { types { fields { type { ${ofType(14)} } } } } }`)
    expect(deep.body.errors?.[0]?.extensions?.code).toBe("QUERY_TOO_DEEP")
    const fine = await gql(server.url, `{ __schema { types { fields { type { ${ofType(3)} } } } } }`)
    expect(fine.body.errors).toBeUndefined()
    // the introspection query GraphiQL and codegen send passes every limit (its fragments nest 8 deep)
    const introspection = await gql(server.url, getIntrospectionQuery({ descriptions: true, specifiedByUrl: true }))
    expect(introspection.body.errors).toBeUndefined()
    const codes = (r: Awaited<ReturnType<typeof gql>>) => r.body.errors?.map((e) => e.extensions?.code)
    // lists count by their size: three of these pages of runs with their events are over the cost limit
    const page = (i: number) => `p${i}: runs(first: 100) { edges { node { events { seq type } } } }`
    const costly = await gql(server.url, `{ ${[1, 2, 3].map(page).join(" ")} }`)
    expect(codes(costly)).toEqual(["QUERY_TOO_COSTLY"])
    expect(costly.body.data).toBeUndefined()
    expect((await gql(server.url, `{ ${page(1)} }`)).body.errors).toBeUndefined()
    // the reported abuse: 40 aliases of a page of runs with every event's payload, refused before it runs
    const abuse = await gql(
      server.url,
      `{ ${
        Array.from({ length: 40 }, (_, i) => `a${i}: runs(first: 100) { edges { node { id events { seq payload } } } }`)
          .join(" ")
      } }`
    )
    expect(codes(abuse)).toEqual(expect.arrayContaining(["QUERY_TOO_MANY_ALIASES", "QUERY_TOO_COSTLY"]))
    expect(abuse.body.errors?.[0]?.message).toBe("Aliases limit of 15 exceeded, found 40.")
    const aliases = await gql(
      server.url,
      `{ ${Array.from({ length: 16 }, (_, i) => `h${i}: health { ok }`).join(" ")} }`
    )
    expect(codes(aliases)).toEqual(["QUERY_TOO_MANY_ALIASES"])
    const long = await gql(server.url, `{ ${Array.from({ length: 3000 }, () => `health { ok }`).join(" ")} }`)
    expect(codes(long)).toEqual(["QUERY_TOO_LONG"])
    // fragments that double at each level: refused without expanding them all
    const bomb = [
      `query { ...F0 }`,
      ...Array.from({ length: 30 }, (_, i) => `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`),
      `fragment F30 on Query { health { ok } }`
    ].join("\n")
    const bombed = await gql(server.url, bomb)
    expect(bombed.body.errors?.map((e) => e.extensions?.code)).toContain("QUERY_TOO_COSTLY")
    const huge = await gql(server.url, `# ${"x".repeat(1_100_000)}\n{ health { ok } }`)
    expect(huge.status).toBe(413)
    // a chunked body carries no content-length: it is counted as it arrives
    const chunkedHuge = await chunkedPost(server.url, [
      JSON.stringify({ query: `# ${"x".repeat(600_000)}` }).slice(0, -2),
      `${"y".repeat(600_000)}"}`
    ])
    expect(chunkedHuge.status).toBe(413)
    expect(JSON.parse(chunkedHuge.body).errors[0].extensions.code).toBe("PAYLOAD_TOO_LARGE")
    const chunkedSmall = await chunkedPost(server.url, ["{\"query\":\"{ health", " { ok } }\"}"])
    expect(chunkedSmall.status).toBe(200)
    expect(JSON.parse(chunkedSmall.body).data.health.ok).toBe(true)
    // a WebSocket message over the same limit closes the connection (1009: message too big)
    const closed = await new Promise<number>((resolve, reject) => {
      const socket = new WebSocket(server.url.replace("http", "ws"), "graphql-transport-ws")
      socket.on(
        "open",
        () => socket.send(JSON.stringify({ type: "connection_init", payload: { pad: "x".repeat(1_100_000) } }))
      )
      socket.on("close", (code) => resolve(code))
      socket.on("error", reject)
    })
    expect(closed).toBe(1009)
    const get = await fetch(`${server.url}?query=${encodeURIComponent("{ health { ok } }")}`)
    expect(get.status).toBe(403)
    const getWithHeader = await fetch(`${server.url}?query=${encodeURIComponent("{ health { ok } }")}`, {
      headers: { "x-graphql-yoga-csrf": "1" }
    })
    expect(getWithHeader.status).toBe(200)
  })

  it("one operation returns at most AEON_MAX_EVENTS_PER_QUERY events; events(fromSeq, first) pages them (#15.5)", async () => {
    const small = await startServer({ script: convergingScript(), config: { maxEventsPerQuery: 40 } })
    try {
      const start = `mutation { runTask(input: { task: "Compute 6 * 7 and explain it", mode: FULL }) { id } }`
      const ids: Array<string> = []
      for (let i = 0; i < 3; i++) ids.push((await gql(small.url, start)).body.data.runTask.id)
      const lengths = await Promise.all(ids.map(async (id) => {
        const r = await untilStatus(small.url, id, "CONVERGED", {
          query: `query($id: ID!) { run(id: $id) { status events { seq } } }`
        })
        return r.events.length as number
      }))
      expect(lengths.every((n) => n > 13 && n <= 40)).toBe(true)
      const all = await gql(small.url, `{ runs { edges { node { id events { seq } } } } }`)
      expect(all.body.errors?.[0]).toMatchObject({
        message:
          "this operation asks for more than 40 run events: select fewer runs, or page a run's events with events(fromSeq, first)",
        extensions: { code: "QUERY_TOO_MANY_EVENTS" }
      })
      const paged = await gql(small.url, `{ runs { edges { node { events(fromSeq: 3, first: 4) { seq } } } } }`)
      expect(paged.body.errors).toBeUndefined()
      expect(paged.body.data.runs.edges.map((e: any) => e.node.events.map((x: any) => x.seq))).toEqual(
        ids.map(() => [3, 4, 5, 6])
      )
    } finally {
      await small.stop()
    }
  })
})
