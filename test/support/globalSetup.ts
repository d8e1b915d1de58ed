import pg from "pg"

/** Schemas left on the PostgreSQL server by earlier runs of the suite (over two hours old) are dropped. */
export default async function setup() {
  const url = process.env.AEON_TEST_DATABASE_URL
  if (!url) return
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const { rows } = await client.query<{ nspname: string }>(
      `SELECT nspname FROM pg_namespace WHERE nspname LIKE 't\\_%'`
    )
    // only schemas left by suites that ended long ago: a suite running beside this one keeps its own
    const stale = (name: string) => {
      const made = parseInt(name.split("_")[1] ?? "", 36)
      return !Number.isFinite(made) || Date.now() - made > 2 * 3_600_000
    }
    for (const r of rows) if (stale(r.nspname)) await client.query(`DROP SCHEMA IF EXISTS "${r.nspname}" CASCADE`)
  } finally {
    await client.end()
  }
}
