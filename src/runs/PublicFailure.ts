import { Cause, Option, Predicate } from "effect"

/**
 * A failure a client may read: a coded error's tag and its own message (a store error's words for people; the
 * database's own stay in its `detail`, for the log); anything else — a defect — is "internal", said in the log only.
 * Every surface says failures by this rule: GraphQL, MCP, the protocols, a message to a run's owner (runs/RunOwners).
 */
export const publicFailure = (cause: Cause.Cause<unknown>): { readonly code: string; readonly message: string } => {
  const e = Option.getOrUndefined(Cause.failureOption(cause))
  if (!Predicate.hasProperty(e, "_tag") || typeof e._tag !== "string") {
    return { code: "INTERNAL", message: "internal error (see the server's log)" }
  }
  const message = Predicate.hasProperty(e, "message") && typeof e.message === "string" ? e.message : ""
  return { code: e._tag, message: message || e._tag }
}
