import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option, Schema } from "effect"
import { AgentSession, ReasoningTrace } from "../../src/domain/Records.js"
import { foldEvents } from "../../src/record/RunRecord.js"
import { prepare, register } from "../../src/run/Run.js"
import { RunStore } from "../../src/store/RunStore.js"
import { CHUNK_SIZES, chunked, insertRows } from "../../src/store/Statements.js"
import { backend, claimedBy, storeLayer } from "../support/database.js"
import { scripted } from "../support/engine.js"
import { convergingScript } from "../support/scripts.js"

const task = "Compute 6 * 7 and explain it"
const withStore = (script = convergingScript()) =>
  Layer.provideMerge(scripted(script, { fallback: false }).layer, storeLayer())

const run = (input: object) =>
  Effect.gen(function*() {
    const p = yield* prepare({ task, mode: "FULL", ...input })
    const result = yield* p.execute
    return { result, events: yield* p.events.log }
  })

/** A plain event of a run, to append. */
const passStarted = (runId: string, seq: number) => ({
  _tag: "PassStarted" as const,
  runId,
  seq,
  at: Date.now(),
  passNumber: 1,
  ttlRemaining: 3
})

describe(`RunStore on ${backend}`, () => {
  it.effect("a user's turn (one running session across a cluster): held by one run until it has ended", () =>
    Effect.gen(function*() {
      const store = yield* RunStore
      const first = (yield* register({ task, mode: "FULL", userId: "ada" }, { queueBehindUser: true })).runId
      const second = (yield* register({ task, mode: "FULL", userId: "ada" }, { queueBehindUser: true })).runId
      expect(yield* store.takeTurn("ada", first)).toBe(true)
      expect(yield* store.takeTurn("ada", second)).toBe(false)
      expect(yield* store.takeTurn("ada", first)).toBe(true) // resumed on another runner: its turn still
      expect(yield* store.takeTurn("bob", second)).toBe(true) // another user's turn is another turn
      yield* store.setStatus(first, "CONVERGED")
      expect(yield* store.takeTurn("ada", second)).toBe(true)
      expect(yield* store.takeTurn("ada", first)).toBe(false)
    }).pipe(Effect.provide(withStore())))

  it.effect("a batch of any size is stored whole and in order, through a fixed set of INSERT shapes", () =>
    Effect.gen(function*() {
      const store = yield* RunStore
      const { runId } = yield* register({ task, mode: "FULL" })
      const pass = (seq: number) => passStarted(runId, seq)
      let next = 1
      const shapes = new Set<TemplateStringsArray>()
      for (const size of [1, 3, 37, 150, 5, 64, 2]) {
        const batch = Array.from({ length: size }, () => pass(next++))
        for (
          const s of insertRows(
            "INSERT INTO run_events (run_id, seq, type, payload, at)",
            batch.map(() => [1, 2, 3, 4, 5])
          )
        ) {
          shapes.add(s.strings)
        }
        yield* store.append(batch)
      }
      expect((yield* store.events(runId)).map((e) => e.seq)).toEqual(Array.from({ length: next - 1 }, (_, i) => i + 1))
      expect(shapes.size).toBe(CHUNK_SIZES.length)
      expect(chunked(Array.from({ length: 37 }, (_, i) => i)).map((c) => c.length)).toEqual([16, 16, 4, 1])
    }).pipe(Effect.provide(withStore())))

  it.effect("a runner's appends are fenced by the epoch it took the run up with: a stale runner's are refused", () =>
    Effect.gen(function*() {
      const store = yield* RunStore
      const { runId } = yield* register({ task, mode: "FULL" })
      const pass = (seq: number) => passStarted(runId, seq)
      const stale = yield* claimedBy(runId, "runner-a")
      yield* store.append([pass(1)], undefined, stale)
      const fresh = yield* claimedBy(runId, "runner-b")
      expect(fresh.epoch).toBeGreaterThan(stale.epoch)
      const refused = yield* Effect.flip(store.append([pass(2)], undefined, stale))
      expect(refused).toMatchObject({ _tag: "RunFencedError", runId, epoch: stale.epoch })
      yield* store.append([pass(2)], undefined, fresh)
      expect((yield* store.events(runId)).map((e) => e.seq)).toEqual([1, 2])
      expect(Option.getOrThrow(yield* store.getRun(runId)).runner).toBe("runner-b")
      // an unfenced append (one process, no cluster) is not checked
      yield* store.append([pass(3)])
      expect((yield* store.events(runId)).map((e) => e.seq)).toEqual([1, 2, 3])
    }).pipe(Effect.provide(withStore())))

  it.effect("stores the run, its events in order, its result and a history equal to the live one", () =>
    Effect.gen(function*() {
      const store = yield* RunStore
      const { result, events } = yield* run({ userId: "ada" })
      const stored = Option.getOrThrow(yield* store.getRun(result.runId))
      expect(stored).toMatchObject({ status: "CONVERGED", userId: "ada", task, mode: "FULL" })
      expect((stored.result as any).finalAnswer.answerText).toBe(result.finalAnswer?.answerText)
      expect(stored.usage).toEqual(result.usage)
      const persisted = yield* store.events(result.runId)
      expect(persisted.map((e) => [e.seq, e._tag])).toEqual(events.map((e) => [e.seq, e._tag]))
      expect(persisted).toEqual(events)
      expect((yield* store.events(result.runId, 5)).map((e) => e.seq)[0]).toBe(5)
      const history = yield* store.history(result.runId)
      expect(history.passes.length).toBe(result.history.passes.length)
      expect(history.finalResult.converged).toBe(true)
    }).pipe(Effect.provide(withStore())))

  it.effect("recorded prompts are kept beside the log and deleted with the traces past the retention window (#18.1)", () =>
    Effect.gen(function*() {
      const store = yield* RunStore
      const sql = yield* SqlClient.SqlClient
      const first = (yield* run({ userId: "old" })).result.runId
      const recorded = (events: ReadonlyArray<any>) =>
        events.filter((e) => e._tag === "LlmCalled" && e.call !== undefined).length
      const before = yield* store.events(first)
      expect(recorded(before)).toBe(before.filter((e) => e._tag === "LlmCalled").length)
      // the calls were written a month ago; the next trace written applies the 7-day window
      const monthAgo = new Date(Date.now() - 30 * 86_400_000).toISOString()
      yield* sql`UPDATE llm_calls SET created_at = ${
        sql.onDialectOrElse({ pg: () => sql`${monthAgo}::timestamptz`, orElse: () => sql`${monthAgo}` })
      } WHERE run_id = ${first}`
      yield* run({ userId: "new" })
      const after = yield* store.events(first)
      expect(recorded(after)).toBe(0)
      // the run's log itself is whole: the same events, figures and all, only the prompts gone
      expect(after.map((e) => [e.seq, e._tag])).toEqual(before.map((e) => [e.seq, e._tag]))
      expect(after.filter((e) => e._tag === "LlmCalled").map((e: any) => e.inputTokens)).toEqual(
        before.filter((e) => e._tag === "LlmCalled").map((e: any) => e.inputTokens)
      )
    }).pipe(Effect.provide(withStore())))

  it.effect("one session per run with execution metadata consistent with the events, and a non-empty trace", () =>
    Effect.gen(function*() {
      const store = yield* RunStore
      const { result, events } = yield* run({ userId: "bob" })
      const session = Option.getOrThrow(yield* store.session(result.runId))
      expect(() => Schema.decodeUnknownSync(AgentSession)(session)).not.toThrow()
      expect(session.status).toBe("completed")
      expect(session.prioritizedPlan?.executionWaves.map((w) => w.taskIds)).toEqual([["s1"], ["s2"]])
      expect(session.prioritizedPlan?.dependencies).toEqual([
        expect.objectContaining({ sourceTaskId: "s2", targetTaskId: "s1", relationshipType: "prerequisite" })
      ])
      const m = session.executionMetadata
      expect(m.stepsTaken).toBe(events.filter((e) => e._tag === "StepFinished").length)
      expect(m.toolCallCounts).toEqual({ calculator: 1 })
      expect(m.successRate).toBe(1)
      expect(m.errorCount).toBe(0)
      const trace = Option.getOrThrow(yield* store.trace(result.runId))
      expect(() => Schema.decodeUnknownSync(ReasoningTrace)(trace)).not.toThrow()
      expect(trace.steps.map((s) => [s.toolName, s.planStepId, s.status])).toEqual([["calculator", "s1", "success"], [
        null,
        "s1",
        "success"
      ], [null, "s2", "success"]])
      expect(trace.steps[0]).toMatchObject({
        toolInput: { expression: "6 * 7" },
        toolOutput: { expression: "6 * 7", value: 42 }
      })
    }).pipe(Effect.provide(withStore())))

  it.effect("a batch holding a whole run (its start and its end) opens and closes the session and writes the trace, with or without the caller's log", () =>
    Effect.gen(function*() {
      const store = yield* RunStore
      // the events of a run made without a store, appended afterwards in one batch
      const { events } = yield* run({}).pipe(Effect.provide(scripted(convergingScript(), { fallback: false }).layer))
      const written: Array<unknown> = []
      for (
        const [id, given] of [["batch-with-log", "log"], ["with-record", "record"], ["without-log", "none"]] as const
      ) {
        const batch = events.map((e) => ({ ...e, runId: id }))
        yield* store.createRun({ id, task, mode: "FULL", input: { task }, status: "RUNNING" })
        yield* store.append(
          batch,
          given === "none" ? undefined : batch,
          undefined,
          given === "record" ? foldEvents(batch) : undefined
        )
        const stored = Option.getOrThrow(yield* store.getRun(id))
        expect(stored.status).toBe("CONVERGED")
        const session = Option.getOrThrow(yield* store.session(id))
        expect(session.status).toBe("completed")
        const trace = Option.getOrThrow(yield* store.trace(id))
        expect(trace.steps.length).toBeGreaterThan(0)
        expect((yield* store.events(id)).length).toBe(events.length)
        // the same records however the run's end was given (ids and times apart)
        written.push(JSON.parse(
          JSON.stringify([stored.result, session.prioritizedPlan, session.executionMetadata, trace.steps])
            .replaceAll(id, "ID").replace(/"\d{4}-\d\d-\d\dT[^"]*"/g, "\"T\"")
        ))
      }
      expect(written[1]).toEqual(written[0])
      expect(written[2]).toEqual(written[0])
    }).pipe(Effect.provide(withStore())))

  it.effect("a run's end is stored all or none: its trace refused, none of the batch's events is stored and the run stays open", () =>
    Effect.gen(function*() {
      const store = yield* RunStore
      const sql = yield* SqlClient.SqlClient
      const { events } = yield* run({}).pipe(Effect.provide(scripted(convergingScript(), { fallback: false }).layer))
      const id = "end-of-run"
      const log = events.map((e) => ({ ...e, runId: id }))
      yield* store.createRun({ id, task, mode: "FULL", input: { task }, status: "QUEUED" })
      yield* store.append(log.slice(0, -2), log.slice(0, -2))
      yield* sql.onDialectOrElse({
        pg: () =>
          Effect.zipRight(
            sql.unsafe(`CREATE OR REPLACE FUNCTION refuse_trace() RETURNS trigger AS $$
              BEGIN RAISE EXCEPTION 'refused'; END $$ LANGUAGE plpgsql`),
            sql.unsafe(`CREATE OR REPLACE TRIGGER refuse_trace BEFORE INSERT ON reasoning_traces
              FOR EACH ROW EXECUTE FUNCTION refuse_trace()`)
          ),
        orElse: () =>
          sql.unsafe(`CREATE TRIGGER IF NOT EXISTS refuse_trace BEFORE INSERT ON reasoning_traces
            BEGIN SELECT RAISE(ABORT, 'refused'); END`)
      })
      const refused = yield* Effect.flip(store.append(log.slice(-2), log, undefined, foldEvents(log)))
      yield* sql.onDialectOrElse({
        pg: () => sql.unsafe(`DROP TRIGGER refuse_trace ON reasoning_traces`),
        orElse: () => sql.unsafe(`DROP TRIGGER refuse_trace`)
      })
      expect(refused._tag).toBe("StoreError")
      expect(refused.message).not.toMatch(/INSERT|SELECT|refused/)
      expect((yield* store.events(id)).length).toBe(log.length - 2)
      expect(Option.getOrThrow(yield* store.getRun(id)).status).toBe("RUNNING")
      expect(Option.getOrThrow(yield* store.session(id)).status).toBe("running")
      // and once the database takes it, the end is stored whole
      yield* store.append(log.slice(-2), log, undefined, foldEvents(log))
      expect(Option.getOrThrow(yield* store.getRun(id)).status).toBe("CONVERGED")
      expect(Option.getOrThrow(yield* store.session(id)).status).toBe("completed")
    }).pipe(Effect.provide(withStore())))

  it.effect("lists runs by user and status with cursor pagination", () =>
    Effect.gen(function*() {
      const store = yield* RunStore
      const ids: Array<string> = []
      for (let i = 0; i < 5; i++) ids.push((yield* run({ userId: i % 2 === 0 ? "even" : "odd" })).result.runId)
      const page1 = yield* store.listRuns({ first: 2 })
      expect(page1.runs).toHaveLength(2)
      expect(page1.hasNextPage).toBe(true)
      const page2 = yield* store.listRuns({ first: 2, after: page1.endCursor! })
      const page3 = yield* store.listRuns({ first: 2, after: page2.endCursor! })
      const all = [...page1.runs, ...page2.runs, ...page3.runs].map((r) => r.id)
      expect(new Set(all).size).toBe(5)
      expect(page3.hasNextPage).toBe(false)
      expect((yield* store.listRuns({ userId: "even" })).runs.map((r) => r.userId)).toEqual(["even", "even", "even"])
      expect((yield* store.listRuns({ status: "CONVERGED" })).runs).toHaveLength(5)
      expect((yield* store.listRuns({ status: "FAILED" })).runs).toHaveLength(0)
    }).pipe(Effect.provide(withStore())))

  it.effect("cursor pagination is exact: runs created within one millisecond are neither skipped nor repeated", () =>
    Effect.gen(function*() {
      const store = yield* RunStore
      const ids: Array<string> = []
      // a burst: many rows share their creation millisecond, so the id must break the tie in the cursor
      for (let i = 0; i < 120; i++) {
        const id = `burst-${String(i).padStart(3, "0")}-${Math.random().toString(36).slice(2, 6)}`
        ids.push(id)
        yield* store.createRun({ id, userId: "burst", task, mode: "FULL", input: { task }, status: "QUEUED" })
      }
      // the burst as a fast machine makes it: every run in the same millisecond (the id must break the tie)
      const sql = yield* SqlClient.SqlClient
      const at = new Date().toISOString()
      yield* sql`UPDATE runs SET created_at = ${
        sql.onDialectOrElse({ pg: () => sql`${at}::timestamptz`, orElse: () => sql`${at}` })
      } WHERE user_id = 'burst'`
      for (const first of [1, 7]) {
        const seen: Array<string> = []
        let after: string | undefined
        for (let page = 0; page < 200; page++) {
          const p = yield* store.listRuns({ userId: "burst", first, after })
          seen.push(...p.runs.map((r) => r.id))
          if (!p.hasNextPage) break
          after = p.endCursor!
        }
        expect(seen.length).toBe(ids.length)
        expect(new Set(seen).size).toBe(ids.length)
      }
    }).pipe(Effect.provide(withStore())))

  it.effect("at most one running session per user, earlier sessions kept", () =>
    Effect.gen(function*() {
      const store = yield* RunStore
      const sql = yield* SqlClient.SqlClient
      yield* run({ userId: "cy" })
      yield* run({ userId: "cy" })
      expect((yield* sql`SELECT status FROM agent_sessions WHERE user_id = 'cy'`).length).toBe(2)
      yield* store.createRun({ id: "busy-1", userId: "dee", task, mode: "FULL", input: {}, status: "RUNNING" })
      yield* store.append([{
        _tag: "RunStarted",
        runId: "busy-1",
        seq: 1,
        at: Date.now(),
        task,
        mode: "FULL",
        model: "m",
        budget: { ttl: 1, deadlineMs: 1, maxCostUsd: 1, maxTokens: 1, maxLlmCalls: 1, maxSteps: 1 }
      }])
      const busy = yield* Effect.flip(prepare({ task, userId: "dee" }))
      expect(busy._tag).toBe("UserBusyError")
      expect(busy.message).toContain("user dee already has a running run")
      const direct = yield* Effect.flip(
        sql`INSERT INTO agent_sessions (id, user_id, run_id, status, execution_metadata) VALUES ('x', 'dee', 'busy-1', 'running', '{}')`
      )
      expect(direct._tag).toBe("SqlError")
    }).pipe(Effect.provide(withStore())))

  it.effect("retention: a trigger deletes traces older than the window", () =>
    Effect.gen(function*() {
      const store = yield* RunStore
      const sql = yield* SqlClient.SqlClient
      const a = (yield* run({})).result.runId
      const b = (yield* run({})).result.runId
      const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString()
      yield* sql`UPDATE reasoning_traces SET created_at = ${daysAgo(8)} WHERE id = ${`trace-${a}`}`
      yield* sql`UPDATE reasoning_traces SET created_at = ${daysAgo(6)} WHERE id = ${`trace-${b}`}`
      yield* run({})
      expect(Option.isNone(yield* store.trace(a))).toBe(true)
      expect(Option.isSome(yield* store.trace(b))).toBe(true)
      yield* store.setRetentionDays(5)
      yield* run({})
      expect(Option.isNone(yield* store.trace(b))).toBe(true)
    }).pipe(Effect.provide(withStore())))

  it.effect("run_events is append-only; a write the database refuses is a typed StoreError", () =>
    Effect.gen(function*() {
      const store = yield* RunStore
      const sql = yield* SqlClient.SqlClient
      const { result } = yield* run({})
      const update = yield* Effect.flip(sql`UPDATE run_events SET type = 'x' WHERE run_id = ${result.runId}`)
      expect(String(update.cause ?? update.message)).toContain("append-only")
      const orphan = yield* Effect.flip(
        store.append([{
          _tag: "PassFinished",
          runId: "no-such-run",
          seq: 1,
          at: Date.now(),
          passNumber: 0,
          ttlRemaining: 0
        }])
      )
      expect(orphan._tag).toBe("StoreError")
      expect(orphan.message).toContain("no-such-run")
      const dup = yield* Effect.flip(
        store.append([{
          _tag: "PassFinished",
          runId: result.runId,
          seq: 1,
          at: Date.now(),
          passNumber: 0,
          ttlRemaining: 0
        }])
      )
      expect(dup._tag).toBe("StoreError")
    }).pipe(Effect.provide(withStore())))

  it.effect("a batch is stored all or none: its recorded call refused, none of its events is stored", () =>
    Effect.gen(function*() {
      const store = yield* RunStore
      const sql = yield* SqlClient.SqlClient
      const { result } = yield* run({})
      const before = yield* store.events(result.runId)
      // the database refuses this one recorded call (a trigger), after the batch's events were inserted
      yield* sql.onDialectOrElse({
        pg: () =>
          Effect.zipRight(
            sql.unsafe(`CREATE OR REPLACE FUNCTION refuse_call() RETURNS trigger AS $$
              BEGIN IF NEW.call::text LIKE '%refuse me%' THEN RAISE EXCEPTION 'refused'; END IF; RETURN NEW; END
              $$ LANGUAGE plpgsql`),
            sql.unsafe(`CREATE OR REPLACE TRIGGER refuse_call BEFORE INSERT ON llm_calls
              FOR EACH ROW EXECUTE FUNCTION refuse_call()`)
          ),
        orElse: () =>
          sql.unsafe(`CREATE TRIGGER IF NOT EXISTS refuse_call BEFORE INSERT ON llm_calls
            WHEN NEW.call LIKE '%refuse me%' BEGIN SELECT RAISE(ABORT, 'refused'); END`)
      })
      const at = Date.now()
      const next = before.length + 1
      const refused = yield* Effect.flip(store.append([
        { _tag: "AdvisoryRaised", runId: result.runId, seq: next, at, passNumber: 1, advisory: "kept?" },
        {
          _tag: "LlmCalled",
          runId: result.runId,
          seq: next + 1,
          at,
          promptId: "p",
          model: "m",
          inputTokens: 1,
          outputTokens: 1,
          costUsd: 0,
          latencyMs: 0,
          call: { system: "s", user: "refuse me", answer: "a" }
        }
      ] as any))
      yield* sql.onDialectOrElse({
        pg: () => sql.unsafe(`DROP TRIGGER refuse_call ON llm_calls`),
        orElse: () => sql.unsafe(`DROP TRIGGER refuse_call`)
      })
      expect(refused._tag).toBe("StoreError")
      expect(refused.message).not.toMatch(/INSERT|SELECT/)
      expect((yield* store.events(result.runId)).map((e) => e.seq)).toEqual(before.map((e) => e.seq))
    }).pipe(Effect.provide(withStore())))
})
