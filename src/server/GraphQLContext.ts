/** What every resolver knows of the request. */
export interface GraphQLContext {
  /** The caller's user, when API keys map to users; such a caller sees only their own runs. */
  readonly userId?: string | undefined
  readonly signal?: AbortSignal | undefined
}
