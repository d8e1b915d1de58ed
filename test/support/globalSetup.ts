import pg from "pg"

/** Schemas left by earlier runs of the suite on the PostgreSQL server are dropped before a new run. */
export default async function setup() {
  const url = process.env.AEON_TEST_DATABASE_URL
  if (!url) return
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const { rows } = await client.query<{ nspname: string }>(
      `SELECT nspname FROM pg_namespace WHERE nspname LIKE 't\\_%'`
    )
    for (const r of rows) await client.query(`DROP SCHEMA IF EXISTS "${r.nspname}" CASCADE`)
  } finally {
    await client.end()
  }
}
