/**
 * The operator's agents file (AEON_AGENTS): `{ "agents": { "math": { … } }, "a2aAgents": { "weather": { "url": … } } }`,
 * `${VAR}` read from the environment as in mcp.json. A bad file stops the start, naming the field.
 */
import { Data, Effect, Either, Schema } from "effect"
import { readFileSync } from "node:fs"
import { expandVariables } from "../mcp/McpConfig.js"
import { fieldOf, recordOf } from "../support/Fields.js"
import { formatIssues } from "../support/ParseIssues.js"
import { messageOf } from "../support/Thrown.js"
import { nameRefusal, RemoteAgent } from "./Agent.js"

export class AgentsConfigError extends Data.TaggedError("AgentsConfigError")<{ readonly message: string }> {}

export interface AgentsFile {
  /** Each agent's definition as written (checked when it is saved). */
  readonly agents: Readonly<Record<string, unknown>>
  readonly a2aAgents: Readonly<Record<string, RemoteAgent>>
}

const fail = (file: string, why: string) => Effect.fail(new AgentsConfigError({ message: `agents ${file}: ${why}` }))

const objectAt = (raw: unknown, field: string): Either.Either<Record<string, unknown>, string> => {
  const value = recordOf(fieldOf(raw, field) ?? {})
  if (value === undefined) return Either.left(`${field} must be an object of agents by name`)
  const bad = Object.keys(value).find((n) => nameRefusal(n) !== undefined)
  return bad === undefined ? Either.right(value) : Either.left(`${field}.${bad}: ${nameRefusal(bad)}`)
}

/** Decodes a parsed agents file (its variables expanded first). */
export const decode = (raw: unknown, file: string, env: Record<string, string | undefined> = process.env) =>
  Effect.gen(function*() {
    const expanded = yield* Effect.try({ try: () => expandVariables(raw, env), catch: messageOf }).pipe(
      Effect.catchAll((why) => fail(file, why))
    )
    if (expanded === null || typeof expanded !== "object" || Array.isArray(expanded)) {
      return yield* fail(file, "must be an object { agents, a2aAgents }")
    }
    const extra = Object.keys(expanded).filter((k) => k !== "agents" && k !== "a2aAgents")
    if (extra.length > 0) return yield* fail(file, `unknown field ${extra[0]} (the file holds agents and a2aAgents)`)
    const agents = objectAt(expanded, "agents")
    if (Either.isLeft(agents)) return yield* fail(file, agents.left)
    const remote = objectAt(expanded, "a2aAgents")
    if (Either.isLeft(remote)) return yield* fail(file, remote.left)
    const a2aAgents: Record<string, RemoteAgent> = {}
    for (const [name, entry] of Object.entries(remote.right)) {
      const decoded = Schema.decodeUnknownEither(RemoteAgent)(entry, { onExcessProperty: "error", errors: "all" })
      if (Either.isLeft(decoded)) return yield* fail(file, `a2aAgents.${name}: ${formatIssues(decoded.left, 3)}`)
      a2aAgents[name] = decoded.right
    }
    return { agents: agents.right, a2aAgents } satisfies AgentsFile
  })

/** Reads the file. */
export const load = (file: string) =>
  Effect.gen(function*() {
    const text = yield* Effect.try({ try: () => readFileSync(file, "utf8"), catch: messageOf }).pipe(
      Effect.catchAll((why) => fail(file, `cannot be read: ${why}`))
    )
    const raw = yield* Effect.try({ try: (): unknown => JSON.parse(text), catch: messageOf }).pipe(
      Effect.catchAll((why) => fail(file, `is not JSON: ${why}`))
    )
    return yield* decode(raw, file)
  })
