import type { EventAllowance } from "./QueryLimits.js"

/** What every resolver knows of the request. */
export interface GraphQLContext {
  /** The caller's user, when API keys map to users; such a caller sees only their own runs. */
  readonly userId?: string | undefined
  readonly signal?: AbortSignal | undefined
  /** The run events this operation may still return (AEON_MAX_EVENTS_PER_QUERY). */
  readonly events?: EventAllowance | undefined
}
