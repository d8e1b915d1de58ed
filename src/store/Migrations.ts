import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/** One set of migrations for PGlite and PostgreSQL; each migration is a list of single statements. */
export const migrations: ReadonlyArray<{ readonly id: number; readonly name: string; readonly statements: ReadonlyArray<string> }> = [
  {
    id: 1,
    name: "runs and their events",
    statements: [
      `CREATE TABLE runs (
        id text PRIMARY KEY,
        user_id text,
        task text NOT NULL,
        mode text NOT NULL CHECK (mode IN ('AUTO', 'SIMPLE', 'FULL')),
        status text NOT NULL CHECK (status IN ('QUEUED', 'RUNNING', 'CONVERGED', 'NOT_CONVERGED', 'FAILED', 'CANCELLED')),
        input jsonb NOT NULL,
        config jsonb NOT NULL DEFAULT '{}'::jsonb,
        result jsonb,
        usage jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`,
      `CREATE INDEX runs_by_user ON runs (user_id, created_at DESC, id DESC)`,
      `CREATE INDEX runs_by_status ON runs (status, created_at DESC, id DESC)`,
      `CREATE TABLE run_events (
        run_id text NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        seq integer NOT NULL CHECK (seq >= 1),
        type text NOT NULL,
        payload jsonb NOT NULL,
        at timestamptz NOT NULL,
        PRIMARY KEY (run_id, seq)
      )`,
      `CREATE FUNCTION run_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN RAISE EXCEPTION 'run_events is append-only'; END $$`,
      `CREATE TRIGGER run_events_no_update BEFORE UPDATE ON run_events FOR EACH ROW EXECUTE FUNCTION run_events_append_only()`
    ]
  },
  {
    id: 2,
    name: "agent sessions, reasoning traces, retention",
    statements: [
      `CREATE TABLE aeon_settings (key text PRIMARY KEY, value text NOT NULL)`,
      `INSERT INTO aeon_settings (key, value) VALUES ('retention_days', '7')`,
      `CREATE TABLE agent_sessions (
        id text PRIMARY KEY,
        user_id text NOT NULL,
        run_id text NOT NULL UNIQUE REFERENCES runs (id) ON DELETE CASCADE,
        status text NOT NULL CHECK (status IN ('running', 'completed', 'failed')),
        prioritized_plan jsonb,
        execution_metadata jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT plan_when_completed CHECK ((status = 'completed') = (prioritized_plan IS NOT NULL))
      )`,
      `CREATE UNIQUE INDEX one_running_session_per_user ON agent_sessions (user_id) WHERE status = 'running'`,
      `CREATE INDEX agent_sessions_by_user ON agent_sessions (user_id, created_at DESC)`,
      `CREATE INDEX agent_sessions_created_at ON agent_sessions (created_at)`,
      `CREATE FUNCTION touch_updated_at() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN NEW.updated_at = now(); RETURN NEW; END $$`,
      `CREATE TRIGGER agent_sessions_touch BEFORE UPDATE ON agent_sessions FOR EACH ROW EXECUTE FUNCTION touch_updated_at()`,
      `CREATE TABLE reasoning_traces (
        id text PRIMARY KEY,
        session_id text NOT NULL REFERENCES agent_sessions (id) ON DELETE CASCADE,
        steps jsonb NOT NULL,
        total_steps integer NOT NULL CHECK (total_steps >= 0),
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT total_steps_matches CHECK (jsonb_array_length(steps) = total_steps)
      )`,
      `CREATE INDEX reasoning_traces_session ON reasoning_traces (session_id)`,
      `CREATE INDEX reasoning_traces_created_at ON reasoning_traces (created_at)`,
      `CREATE FUNCTION cleanup_old_reasoning_traces() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         DELETE FROM reasoning_traces
         WHERE created_at < now() - make_interval(days => (SELECT value::integer FROM aeon_settings WHERE key = 'retention_days'));
         RETURN NULL;
       END $$`,
      `CREATE TRIGGER trigger_cleanup_reasoning_traces AFTER INSERT ON reasoning_traces FOR EACH STATEMENT EXECUTE FUNCTION cleanup_old_reasoning_traces()`
    ]
  }
]

/** Applies the migrations not yet applied, each in its own transaction. */
export const migrate = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE IF NOT EXISTS aeon_migrations (id integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`
  const applied = new Set((yield* sql<{ id: number }>`SELECT id FROM aeon_migrations`).map((r) => r.id))
  for (const m of migrations) {
    if (applied.has(m.id)) continue
    yield* Effect.gen(function*() {
      for (const statement of m.statements) yield* sql.unsafe(statement)
      yield* sql`INSERT INTO aeon_migrations (id, name) VALUES (${m.id}, ${m.name})`
    }).pipe(sql.withTransaction)
  }
}).pipe(Effect.withSpan("Store.migrate", { captureStackTrace: false }))
