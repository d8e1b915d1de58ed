import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"
import { traced } from "../telemetry/Span.js"
import { type Dialect, pg, sqlite } from "./Dialects.js"
import { webhooksAndSchedules } from "./TriggerTables.js"

/**
 * The schema, one ordered list for SQLite and PostgreSQL, applied by @effect/sql's Migrator. The dialects differ
 * in types (jsonb/timestamptz vs JSON text and ISO-8601 text: the application writes every timestamp itself, at
 * millisecond precision, so both compare and page alike) and in triggers (plpgsql vs SQLite trigger bodies).
 * Every statement is idempotent (IF NOT EXISTS, OR REPLACE, ON CONFLICT DO NOTHING): a database made before the
 * Migrator (its ledger was `aeon_migrations`) is brought under it unchanged.
 */
const runsAndEvents = (d: Dialect) => [
  `CREATE TABLE IF NOT EXISTS runs (
    id text PRIMARY KEY,
    user_id text,
    task text NOT NULL,
    mode text NOT NULL CHECK (mode IN ('AUTO', 'SIMPLE', 'FULL')),
    status text NOT NULL CHECK (status IN ('QUEUED', 'RUNNING', 'CONVERGED', 'NOT_CONVERGED', 'FAILED', 'CANCELLED')),
    input ${d.json} NOT NULL,
    config ${d.json} NOT NULL DEFAULT '{}',
    result ${d.json},
    usage ${d.json},
    created_at ${d.time} NOT NULL DEFAULT ${d.now},
    updated_at ${d.time} NOT NULL DEFAULT ${d.now}
  )`,
  `CREATE INDEX IF NOT EXISTS runs_by_user ON runs (user_id, created_at DESC, id DESC)`,
  `CREATE INDEX IF NOT EXISTS runs_by_status ON runs (status, created_at DESC, id DESC)`,
  `CREATE TABLE IF NOT EXISTS run_events (
    run_id text NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    seq integer NOT NULL CHECK (seq >= 1),
    type text NOT NULL,
    payload ${d.json} NOT NULL,
    at ${d.time} NOT NULL,
    PRIMARY KEY (run_id, seq)
  )`
]

const appendOnly = {
  pg: [
    `CREATE OR REPLACE FUNCTION run_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN RAISE EXCEPTION 'run_events is append-only'; END $$`,
    `CREATE OR REPLACE TRIGGER run_events_no_update BEFORE UPDATE ON run_events FOR EACH ROW EXECUTE FUNCTION run_events_append_only()`
  ],
  sqlite: [
    `CREATE TRIGGER IF NOT EXISTS run_events_no_update BEFORE UPDATE ON run_events
     BEGIN SELECT RAISE(ABORT, 'run_events is append-only'); END`
  ]
}

const sessionsAndTraces = (d: Dialect) => [
  `CREATE TABLE IF NOT EXISTS aeon_settings (key text PRIMARY KEY, value text NOT NULL)`,
  `INSERT INTO aeon_settings (key, value) VALUES ('retention_days', '7') ON CONFLICT (key) DO NOTHING`,
  `CREATE TABLE IF NOT EXISTS agent_sessions (
    id text PRIMARY KEY,
    user_id text NOT NULL,
    run_id text NOT NULL UNIQUE REFERENCES runs (id) ON DELETE CASCADE,
    status text NOT NULL CHECK (status IN ('running', 'completed', 'failed')),
    prioritized_plan ${d.json},
    execution_metadata ${d.json} NOT NULL,
    created_at ${d.time} NOT NULL DEFAULT ${d.now},
    updated_at ${d.time} NOT NULL DEFAULT ${d.now},
    CONSTRAINT plan_when_completed CHECK ((status = 'completed') = (prioritized_plan IS NOT NULL))
  )`,
  `CREATE UNIQUE INDEX IF NOT EXISTS one_running_session_per_user ON agent_sessions (user_id) WHERE status = 'running'`,
  `CREATE INDEX IF NOT EXISTS agent_sessions_by_user ON agent_sessions (user_id, created_at DESC)`,
  `CREATE INDEX IF NOT EXISTS agent_sessions_created_at ON agent_sessions (created_at)`,
  `CREATE TABLE IF NOT EXISTS reasoning_traces (
    id text PRIMARY KEY,
    session_id text NOT NULL REFERENCES agent_sessions (id) ON DELETE CASCADE,
    steps ${d.json} NOT NULL,
    total_steps integer NOT NULL CHECK (total_steps >= 0),
    created_at ${d.time} NOT NULL DEFAULT ${d.now},
    CONSTRAINT total_steps_matches CHECK (${d.arrayLength}(steps) = total_steps)
  )`,
  `CREATE INDEX IF NOT EXISTS reasoning_traces_session ON reasoning_traces (session_id)`,
  `CREATE INDEX IF NOT EXISTS reasoning_traces_created_at ON reasoning_traces (created_at)`
]

/**
 * Rows of `table` older than the retention window are deleted whenever a trace is written (the trigger `trigger` on
 * reasoning_traces; PostgreSQL's through the function `fn`).
 */
const retentionOf = (table: string, fn: string, trigger: string) => ({
  pg: [
    `CREATE OR REPLACE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       DELETE FROM ${table}
       WHERE created_at < now() - make_interval(days => (SELECT value::integer FROM aeon_settings WHERE key = 'retention_days'));
       RETURN NULL;
     END $$`,
    `CREATE OR REPLACE TRIGGER ${trigger} AFTER INSERT ON reasoning_traces
     FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`
  ],
  sqlite: [
    `CREATE TRIGGER IF NOT EXISTS ${trigger} AFTER INSERT ON reasoning_traces
     BEGIN
       DELETE FROM ${table} WHERE created_at <
         strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || (SELECT value FROM aeon_settings WHERE key = 'retention_days') || ' days');
     END`
  ]
})

/** Traces older than the retention window are deleted whenever a trace is written. */
const retention = retentionOf("reasoning_traces", "cleanup_old_reasoning_traces", "trigger_cleanup_reasoning_traces")

const statements = (list: { pg: ReadonlyArray<string>; sqlite: ReadonlyArray<string> }) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      Effect.forEach(sql.onDialectOrElse({ pg: () => list.pg, orElse: () => list.sqlite }), (s) => sql.unsafe(s), {
        discard: true
      })
  )

/**
 * Runs stored before timestamps were written by the application carry PostgreSQL's microseconds; a list's cursor
 * holds milliseconds. Truncated once, every run pages exactly (SQLite's were always milliseconds).
 */
const millisecondTimestamps = {
  pg: [
    `UPDATE runs SET created_at = date_trunc('milliseconds', created_at) WHERE created_at <> date_trunc('milliseconds', created_at)`
  ],
  sqlite: []
}

/**
 * Events as they were written: PostgreSQL's jsonb reorders an object's keys (shortest first), so a tool's output
 * read back differed in key order from the one the run saw, and prompts rendered from a resumed run's state
 * differed from the uncrashed run's (found by the resume property test). `json` keeps the text as written.
 */
const eventsAsWritten = {
  pg: [`ALTER TABLE run_events ALTER COLUMN payload TYPE json USING payload::json`],
  sqlite: []
}

/**
 * The prompts and answers of recorded model calls, beside the LlmCalled event they belong to (the event log stays
 * append-only and keeps the call's figures); deleted, as traces are, past the retention window.
 */
const recordedCalls = (d: Dialect) => [
  `CREATE TABLE IF NOT EXISTS llm_calls (
    run_id text NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    seq integer NOT NULL,
    call ${d === pg ? "json" : "text"} NOT NULL,
    created_at ${d.time} NOT NULL,
    PRIMARY KEY (run_id, seq)
  )`,
  `CREATE INDEX IF NOT EXISTS llm_calls_created_at ON llm_calls (created_at)`
]
const callsRetention = retentionOf("llm_calls", "cleanup_old_llm_calls", "trigger_cleanup_llm_calls")

/**
 * The epoch of a run's owner: a runner of a cluster that takes a run up raises it, and its appends are refused once
 * another has raised it since (a stale runner's writes never reach the log); `runner`: the address of the runner that
 * took it up last.
 */
const ownerEpoch = [
  "ALTER TABLE runs ADD COLUMN owner_epoch integer NOT NULL DEFAULT 0",
  "ALTER TABLE runs ADD COLUMN runner text",
  // whose turn it is to run, per user, across a cluster's runners (one running session per user)
  "CREATE TABLE IF NOT EXISTS user_turns (user_id text PRIMARY KEY, run_id text NOT NULL)"
]

/**
 * Whether an unfinished run waits for a person (a request not answered): `runs(status: AWAITING_INPUT)` filters on
 * it. A column beside `status`, not a wider CHECK on it: SQLite cannot alter a CHECK in place, and its table rebuild
 * would drop `runs` inside the Migrator's transaction, where foreign keys cannot be turned off, so the drop would
 * cascade to every run's events.
 */
const awaitingInputColumn = ["ALTER TABLE runs ADD COLUMN awaiting_input integer NOT NULL DEFAULT 0"]

/**
 * What each finished run used, as the forecast's calibration reads it (record/RunFigures): written with the run's
 * result at its RunFinished, read newest first (the partial index holds only the runs that have figures).
 */
const runFigures = (d: Dialect) => [
  `ALTER TABLE runs ADD COLUMN figures ${d.json}`,
  `CREATE INDEX IF NOT EXISTS runs_with_figures ON runs (created_at DESC, id DESC) WHERE figures IS NOT NULL`
]

/**
 * Each user's spending per quota window (AEON_QUOTAS; store/QuotaLedger): one row per user and window (`day:…`,
 * `month:…`), shared by every server of a cluster, changed only by conditional updates that keep it within the limit.
 */
const quotaLedger = [
  `CREATE TABLE IF NOT EXISTS quota_ledger (
    user_id text NOT NULL,
    window_key text NOT NULL,
    cost_usd double precision NOT NULL DEFAULT 0,
    tokens bigint NOT NULL DEFAULT 0,
    runs integer NOT NULL DEFAULT 0,
    PRIMARY KEY (user_id, window_key)
  )`
]

/**
 * Memories across runs (store/Memories): a converged run's answer and step outputs, the notes a model kept, each with
 * its owner (the run's user, '' for none) and provenance, searched by full text without any model — SQLite through an
 * FTS5 index kept by triggers (the table's integer key is its rowid, which VACUUM never renumbers), PostgreSQL through
 * a generated tsvector column with a GIN index. Both index `terms`, the stems of the text and its task as the
 * application makes them (memory/Relevance.termsOf), so every store finds by the same words the recall rule
 * counts. `task_key` is the normalized task plan reuse compares.
 */
const memoryColumns = (d: Dialect) => `
    owner text NOT NULL,
    kind text NOT NULL CHECK (kind IN ('answer', 'step', 'noted')),
    text text NOT NULL,
    task text NOT NULL,
    task_key text NOT NULL,
    terms text NOT NULL,
    run_id text,
    step_id text,
    pass_number integer,
    tags ${d === pg ? "json" : "text"} NOT NULL,
    created_at ${d.time} NOT NULL`
const memoryIndexes = [
  `CREATE INDEX IF NOT EXISTS memories_by_owner ON memories (owner, created_at DESC, id DESC)`,
  `CREATE INDEX IF NOT EXISTS memories_by_task ON memories (owner, task_key)`,
  `CREATE INDEX IF NOT EXISTS memories_created_at ON memories (created_at)`,
  `INSERT INTO aeon_settings (key, value) VALUES ('memory_retention_days', '0') ON CONFLICT (key) DO NOTHING`
]
const memories = {
  pg: [
    `CREATE TABLE IF NOT EXISTS memories (
    id text PRIMARY KEY,${memoryColumns(pg)},
    search tsvector GENERATED ALWAYS AS (to_tsvector('simple', terms)) STORED
  )`,
    `CREATE INDEX IF NOT EXISTS memories_search ON memories USING gin (search)`,
    ...memoryIndexes
  ],
  sqlite: [
    `CREATE TABLE IF NOT EXISTS memories (
    n integer PRIMARY KEY,
    id text NOT NULL UNIQUE,${memoryColumns(sqlite)}
  )`,
    `CREATE VIRTUAL TABLE IF NOT EXISTS memories_fts USING fts5(terms, content = 'memories', content_rowid = 'n',
      tokenize = 'unicode61')`,
    `CREATE TRIGGER IF NOT EXISTS memories_fts_insert AFTER INSERT ON memories
     BEGIN INSERT INTO memories_fts (rowid, terms) VALUES (new.n, new.terms); END`,
    `CREATE TRIGGER IF NOT EXISTS memories_fts_delete AFTER DELETE ON memories
     BEGIN INSERT INTO memories_fts (memories_fts, rowid, terms) VALUES ('delete', old.n, old.terms); END`,
    ...memoryIndexes
  ]
}

/**
 * Who executes a run now (0014 replaced the inbox by messages to the holder): a process holds the runs it executes for a lease it renews (`holder`,
 * `held_until` in ms since the epoch); a person's answer given elsewhere — the CLI while a server runs it — goes to
 * `run_answers`, which the holder takes and records through its own run manager: a run's log has one writer.
 */
const answerInbox = (d: Dialect) => [
  "ALTER TABLE runs ADD COLUMN holder text",
  "ALTER TABLE runs ADD COLUMN held_until bigint",
  `CREATE TABLE IF NOT EXISTS run_answers (
    id text PRIMARY KEY,
    run_id text NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    answer ${d.json} NOT NULL,
    created_at ${d.time} NOT NULL,
    taken_by text,
    outcome ${d.json}
  )`,
  `CREATE INDEX IF NOT EXISTS run_answers_open ON run_answers (run_id) WHERE taken_by IS NULL`
]

/**
 * Where a run's owner is reached (store/RunLease): `holder` is now its HTTP edge's URL and `holder_key` the key its
 * owner endpoint asks; answers given elsewhere are sent there (runs/RunOwners), so the answer inbox is gone.
 */
const ownerAddress = [
  "ALTER TABLE runs ADD COLUMN holder_key text",
  "UPDATE runs SET holder = NULL, held_until = NULL",
  "DROP TABLE IF EXISTS run_answers"
]

/**
 * Conversations (store/Threads): a thread of its owner (the user, '' for none; ids are per owner, so another user's
 * thread is never found), its turns — runs, in order: the primary key refuses a second turn numbered alike, which is
 * how two turns sent at once on one thread are told apart across a cluster —, and the summaries its compactions made
 * (memory/Conversation), each for the conversation prefix it covers (`prefix_hash`; a client-sent history's summaries
 * under `history:` keys). A turn's run deleted takes its turn with it.
 */
const threads = (d: Dialect) => [
  `CREATE TABLE IF NOT EXISTS threads (
    owner text NOT NULL,
    id text NOT NULL,
    created_at ${d.time} NOT NULL,
    updated_at ${d.time} NOT NULL,
    PRIMARY KEY (owner, id)
  )`,
  `CREATE INDEX IF NOT EXISTS threads_by_owner ON threads (owner, updated_at DESC, id DESC)`,
  `CREATE TABLE IF NOT EXISTS thread_turns (
    owner text NOT NULL,
    thread_id text NOT NULL,
    turn integer NOT NULL CHECK (turn >= 1),
    run_id text NOT NULL UNIQUE REFERENCES runs (id) ON DELETE CASCADE,
    PRIMARY KEY (owner, thread_id, turn),
    FOREIGN KEY (owner, thread_id) REFERENCES threads (owner, id) ON DELETE CASCADE
  )`,
  `CREATE TABLE IF NOT EXISTS thread_summaries (
    owner text NOT NULL,
    thread_key text NOT NULL,
    covers integer NOT NULL CHECK (covers >= 1),
    prefix_hash text NOT NULL,
    text text NOT NULL,
    run_id text,
    created_at ${d.time} NOT NULL,
    PRIMARY KEY (owner, thread_key, covers, prefix_hash)
  )`
]

/** The files and images tasks carry, once by their bytes' hash (store/Attachments); base64 text on both stores. */
const attachments = (d: Dialect) => [
  `CREATE TABLE IF NOT EXISTS attachments (
    sha256 text PRIMARY KEY,
    media_type text NOT NULL,
    data text NOT NULL,
    size integer NOT NULL,
    created_at ${d.time} NOT NULL
  )`
]

/**
 * Agents (agents/Agents): each saved version of a definition, per owner (the user id, '' for the operator's and a
 * server without users); a run of an agent keeps its name and its parent run (an agent called as a tool).
 */
const agents = (d: Dialect) => [
  `CREATE TABLE IF NOT EXISTS agents (
    owner text NOT NULL,
    name text NOT NULL,
    version integer NOT NULL CHECK (version >= 1),
    definition text NOT NULL,
    created_at ${d.time} NOT NULL,
    PRIMARY KEY (owner, name, version)
  )`,
  "ALTER TABLE runs ADD COLUMN agent text",
  "ALTER TABLE runs ADD COLUMN parent_run_id text",
  "CREATE INDEX IF NOT EXISTS runs_parent ON runs (parent_run_id)"
]

/** The migrations in order; each runs in one transaction with the Migrator's ledger row. */
export const migrations = {
  "0001_runs_and_events": statements({
    pg: [...runsAndEvents(pg), ...appendOnly.pg],
    sqlite: [...runsAndEvents(sqlite), ...appendOnly.sqlite]
  }),
  "0002_sessions_traces_retention": statements({
    pg: [...sessionsAndTraces(pg), ...retention.pg],
    sqlite: [...sessionsAndTraces(sqlite), ...retention.sqlite]
  }),
  "0003_runs_created_at_milliseconds": statements(millisecondTimestamps),
  "0004_run_events_payload_as_written": statements(eventsAsWritten),
  "0005_recorded_calls": statements({
    pg: [...recordedCalls(pg), ...callsRetention.pg],
    sqlite: [...recordedCalls(sqlite), ...callsRetention.sqlite]
  }),
  "0006_run_owner_epoch": statements({ pg: ownerEpoch, sqlite: ownerEpoch }),
  "0007_runs_awaiting_input": statements({ pg: awaitingInputColumn, sqlite: awaitingInputColumn }),
  "0008_quota_ledger": statements({ pg: quotaLedger, sqlite: quotaLedger }),
  "0009_runs_figures": statements({ pg: runFigures(pg), sqlite: runFigures(sqlite) }),
  "0010_memories": statements(memories),
  "0011_answer_inbox": statements({ pg: answerInbox(pg), sqlite: answerInbox(sqlite) }),
  "0012_threads": statements({ pg: threads(pg), sqlite: threads(sqlite) }),
  "0013_attachments": statements({ pg: attachments(pg), sqlite: attachments(sqlite) }),
  "0014_run_owner_address": statements({ pg: ownerAddress, sqlite: ownerAddress }),
  "0015_agents": statements({ pg: agents(pg), sqlite: agents(sqlite) }),
  "0016_webhooks": statements({ pg: webhooksAndSchedules(pg), sqlite: webhooksAndSchedules(sqlite) })
}

/** Applies the migrations not yet applied (ledger: `aeon_schema_migrations`). */
export const migrate = Migrator.make({})({ loader: Migrator.fromRecord(migrations), table: "aeon_schema_migrations" })
  .pipe(
    traced("Store.migrate", { captureStackTrace: false })
  )
