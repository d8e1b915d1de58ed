import { codeOf, fieldOf, stringField } from "../support/Fields.js"

/**
 * Why the store failed, in words a person can act on — the disk full, an I/O error, a read-only directory, a database
 * that refuses connections — read from the error codes along a failure's causes (SQLite's, PostgreSQL's SQLSTATE,
 * the system's). Never the database's own text (SQL, constraint names): that stays in the log.
 */
/** A cause in words, and whether it can pass by itself (space freed, the database back): a write waits for it. */
export interface StoreCause {
  readonly words: string
  readonly passes: boolean
}

const SQLITE: ReadonlyArray<readonly [RegExp, string, boolean]> = [
  [
    /^SQLITE_FULL/,
    "the disk holding the embedded database is full (free some space, or set AEON_DATA_DIR to another disk)",
    true
  ],
  [
    /^SQLITE_IOERR/,
    "the disk holding the embedded database reports an I/O error (is it full, read-only or gone?)",
    true
  ],
  [/^SQLITE_READONLY/, "the embedded database's directory is read-only (AEON_DATA_DIR must be writable)", true],
  [/^SQLITE_CANTOPEN/, "the embedded database cannot be opened (does AEON_DATA_DIR exist, and is it writable?)", false],
  [/^SQLITE_CORRUPT|^SQLITE_NOTADB/, "the embedded database file is damaged or not a database", false]
]

const POSTGRES: Record<string, readonly [string, boolean]> = {
  "53100": ["PostgreSQL's disk is full", true],
  "57P03": ["PostgreSQL does not accept connections now (starting up, shutting down, or connections disallowed)", true],
  "55000": ["PostgreSQL does not accept connections to the database now (connections disallowed)", true],
  "57P01": ["PostgreSQL was shut down by its administrator", true],
  "57P02": ["PostgreSQL is restarting after a crash", true],
  "08006": ["the connection to PostgreSQL failed", true],
  "08001": ["PostgreSQL cannot be reached", true],
  "3D000": ["the database in AEON_DATABASE_URL does not exist", false],
  "28P01": ["PostgreSQL refused the password in AEON_DATABASE_URL", false],
  "28000": ["PostgreSQL refused the user in AEON_DATABASE_URL", false],
  "25006": ["PostgreSQL is read-only (a standby, or a read-only transaction)", true]
}

const SYSTEM: Record<string, readonly [(where: string) => string, boolean]> = {
  ECONNREFUSED: [(where) => `PostgreSQL${where} refuses connections (is it running? AEON_DATABASE_URL)`, true],
  ENOTFOUND: [(where) => `the host of AEON_DATABASE_URL${where} is not found`, true],
  ETIMEDOUT: [(where) => `PostgreSQL${where} does not answer (a network outage?)`, true],
  ECONNRESET: [(where) => `the connection to PostgreSQL${where} was cut`, true],
  EPIPE: [(where) => `the connection to PostgreSQL${where} was cut`, true],
  ENOSPC: [() => "the disk is full", true],
  EROFS: [() => "the disk is read-only", true],
  EACCES: [() => "permission denied on the data directory (AEON_DATA_DIR must be writable)", false]
}

/** node-postgres's words for a connection it lost (its errors carry no code then). */
const LOST =
  /^Connection terminated|^Client has encountered a connection error|^Connection ended unexpectedly|^Client was closed and is not queryable/

/** The cause, if one of the known codes is among the failure's causes. */
export const storeCauseOf = (failure: unknown): StoreCause | undefined => {
  for (let c: unknown = failure, depth = 0; c !== null && typeof c === "object" && depth < 6; depth++) {
    const errorCode = codeOf(c)
    if (errorCode !== undefined) {
      const sqlite = SQLITE.find(([code]) => code.test(errorCode))
      if (sqlite) return { words: sqlite[1], passes: sqlite[2] }
      const pg = POSTGRES[errorCode]
      if (pg) return { words: pg[0], passes: pg[1] }
      const address = fieldOf(c, "address")
      const port = fieldOf(c, "port")
      const where = typeof address === "string" ? ` at ${address}${typeof port === "number" ? `:${port}` : ""}` : ""
      const system = SYSTEM[errorCode]
      if (system) return { words: system[0](where), passes: system[1] }
    }
    // node-postgres says a connection it lost in words only (no code): the server closed it, or it was cut
    if (LOST.test(stringField(c, "message") ?? "")) {
      return {
        words: "the connection to PostgreSQL was cut (a restart, a failover, or its backends terminated)",
        passes: true
      }
    }
    // an AggregateError (a host with several addresses) holds the attempts in `errors`
    const errors = fieldOf(c, "errors")
    c = fieldOf(c, "cause") ?? (Array.isArray(errors) ? errors[0] : undefined)
  }
  return undefined
}

/** The cause in words, if one of the known codes is among the failure's causes. */
export const storeCauseInWords = (failure: unknown): string | undefined => storeCauseOf(failure)?.words
