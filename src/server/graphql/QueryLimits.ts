import { costLimitPlugin } from "@escape.tech/graphql-armor-cost-limit"
import { maxAliasesPlugin } from "@escape.tech/graphql-armor-max-aliases"
import { maxDepthPlugin } from "@escape.tech/graphql-armor-max-depth"
import { maxDirectivesPlugin } from "@escape.tech/graphql-armor-max-directives"
import { maxTokensPlugin } from "@escape.tech/graphql-armor-max-tokens"
import { GraphQLError, type ValidationContext } from "graphql"
import type { Plugin } from "graphql-yoga"

/** What one GraphQL operation may ask for. */
export interface QueryLimits {
  /** Deepest selection (introspection included). */
  readonly maxDepth: number
  /** graphql-armor's cost: 2 per object, 1 per scalar, ×1.5 per level, × a list's `first`/`last`; aliases count. */
  readonly maxCost: number
  /** Aliased fields in one operation (40 aliases of one costly list was the abuse). */
  readonly maxAliases: number
  /** Tokens in one document, counted while it is parsed (a huge document is refused before it is built). */
  readonly maxTokens: number
  /** Run events one operation may return, over all its `Run.events` fields. */
  readonly maxEvents: number
}

/** graphql-armor reports "Syntax Error: …" and no code: the client gets the limit's own code and the bare reason. */
const coded = (code: string) => (context: ValidationContext | null, error: GraphQLError) => {
  const coded = new GraphQLError(error.message.replace(/^Syntax Error: /, ""), { extensions: { code } })
  if (context === null) throw coded // the token limit stops the parser: nothing else would report it
  context.reportError(coded)
}

const reject = (code: string) => ({ propagateOnRejection: false, onReject: [coded(code)] })

/**
 * The operation limits as graphql-armor plugins (validation rules and a counting parser), each refusal with a code:
 * QUERY_TOO_DEEP, QUERY_TOO_COSTLY, QUERY_TOO_MANY_ALIASES, QUERY_TOO_LONG, QUERY_TOO_MANY_DIRECTIVES. A
 * fragment is measured once however often it is spread, so fragments nested to double at each level are cheap to
 * refuse.
 */
export const plugins = (limits: QueryLimits): Array<Plugin> =>
  [
    maxTokensPlugin({ n: limits.maxTokens, ...reject("QUERY_TOO_LONG") }),
    // depth counts fields, not fragment spreads (GraphiQL's introspection query nests its TypeRef fragment 8 deep)
    maxDepthPlugin({
      n: limits.maxDepth,
      ignoreIntrospection: false,
      flattenFragments: true,
      ...reject("QUERY_TOO_DEEP")
    }),
    maxAliasesPlugin({ n: limits.maxAliases, ...reject("QUERY_TOO_MANY_ALIASES") }),
    maxDirectivesPlugin({ n: 50, ...reject("QUERY_TOO_MANY_DIRECTIVES") }),
    costLimitPlugin({ maxCost: limits.maxCost, ...reject("QUERY_TOO_COSTLY") })
  ] as Array<Plugin>

/** The events an operation has left to return; a list field takes from it (`Run.events`). */
export interface EventAllowance {
  readonly max: number
  left: number
}

/**
 * Takes `count` events from the operation's allowance, or refuses the field: a list's size is known only once the
 * runs are read, so this cap is counted as the operation resolves (variables can hide a `first` from the cost).
 */
export const takeEvents = (allowance: EventAllowance | undefined, count: number) => {
  if (allowance === undefined) return
  if (count > allowance.left) {
    throw new GraphQLError(
      `this operation asks for more than ${allowance.max} run events: select fewer runs, or page a run's events with events(fromSeq, first)`,
      { extensions: { code: "QUERY_TOO_MANY_EVENTS" } }
    )
  }
  allowance.left -= count
}

/** Why a page's arguments are refused (a connection's first is 1–100; after must be a cursor it gave), if they are. */
export const pageRefusal = (
  first: number | null | undefined,
  after: string | null | undefined,
  isCursorOf: (after: string) => boolean
): string | undefined =>
  first !== null && first !== undefined && (first < 1 || first > 100) ?
    `first must be between 1 and 100 (was ${first})`
    : after !== null && after !== undefined && !isCursorOf(after) ?
    "after is not a cursor of this list: pass a pageInfo.endCursor or an edge's cursor"
    : undefined
