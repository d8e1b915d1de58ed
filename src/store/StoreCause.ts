/**
 * Why the store failed, in words a person can act on — the disk full, an I/O error, a read-only directory, a database
 * that refuses connections — read from the error codes along a failure's causes (SQLite's, PostgreSQL's SQLSTATE,
 * the system's). Never the database's own text (SQL, constraint names): that stays in the log.
 */
const SQLITE: ReadonlyArray<readonly [RegExp, string]> = [
  [
    /^SQLITE_FULL/,
    "the disk holding the embedded database is full (free some space, or set AEON_DATA_DIR to another disk)"
  ],
  [/^SQLITE_IOERR/, "the disk holding the embedded database reports an I/O error (is it full, read-only or gone?)"],
  [/^SQLITE_READONLY/, "the embedded database's directory is read-only (AEON_DATA_DIR must be writable)"],
  [/^SQLITE_CANTOPEN/, "the embedded database cannot be opened (does AEON_DATA_DIR exist, and is it writable?)"],
  [/^SQLITE_CORRUPT|^SQLITE_NOTADB/, "the embedded database file is damaged or not a database"]
]

const POSTGRES: Record<string, string> = {
  "53100": "PostgreSQL's disk is full",
  "57P03": "PostgreSQL does not accept connections now (starting up, shutting down, or connections disallowed)",
  "57P01": "PostgreSQL was shut down by its administrator",
  "3D000": "the database in AEON_DATABASE_URL does not exist",
  "28P01": "PostgreSQL refused the password in AEON_DATABASE_URL",
  "28000": "PostgreSQL refused the user in AEON_DATABASE_URL",
  "25006": "PostgreSQL is read-only (a standby, or a read-only transaction)"
}

const SYSTEM: Record<string, (where: string) => string> = {
  ECONNREFUSED: (where) => `PostgreSQL${where} refuses connections (is it running? AEON_DATABASE_URL)`,
  ENOTFOUND: (where) => `the host of AEON_DATABASE_URL${where} is not found`,
  ETIMEDOUT: (where) => `PostgreSQL${where} does not answer (a network outage?)`,
  ECONNRESET: (where) => `the connection to PostgreSQL${where} was cut`,
  ENOSPC: () => "the disk is full",
  EROFS: () => "the disk is read-only",
  EACCES: () => "permission denied on the data directory (AEON_DATA_DIR must be writable)"
}

/** The cause in words, if one of the known codes is among the failure's causes. */
export const storeCauseInWords = (failure: unknown): string | undefined => {
  for (let c: unknown = failure, depth = 0; c !== null && typeof c === "object" && depth < 6; depth++) {
    const e = c as { code?: unknown; address?: unknown; port?: unknown; cause?: unknown; errors?: unknown }
    if (typeof e.code === "string") {
      const sqlite = SQLITE.find(([code]) => code.test(e.code as string))
      if (sqlite) return sqlite[1]
      if (POSTGRES[e.code]) return POSTGRES[e.code]
      const where = typeof e.address === "string"
        ? ` at ${e.address}${typeof e.port === "number" ? `:${e.port}` : ""}`
        : ""
      const system = SYSTEM[e.code]
      if (system) return system(where)
    }
    // an AggregateError (a host with several addresses) holds the attempts in `errors`
    c = e.cause ?? (Array.isArray(e.errors) ? e.errors[0] : undefined)
  }
  return undefined
}
