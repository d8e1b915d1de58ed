import { Data, Effect, Either, Schema } from "effect"
import { readFileSync } from "node:fs"
import { formatIssues } from "../support/ParseIssues.js"
import { messageOf } from "../support/Thrown.js"

/**
 * What the operator allows a tool's argument to take from untrusted data (docs/untrusted-data.md): per tool, per
 * argument, any value, listed values, or addresses within listed domains (an email's, a URL's host). A call whose
 * every argument from untrusted data is allowed is not held for it.
 */
export const ArgumentRule = Schema.Struct({
  any: Schema.optional(Schema.Boolean),
  values: Schema.optional(Schema.Array(Schema.String)),
  domains: Schema.optional(Schema.Array(Schema.String))
})
export type ArgumentRule = typeof ArgumentRule.Type

export const UntrustedPolicy = Schema.Struct({
  allow: Schema.Record({ key: Schema.String, value: Schema.Record({ key: Schema.String, value: ArgumentRule }) })
})
export type UntrustedPolicy = typeof UntrustedPolicy.Type

/** The domain of an email address or a URL's host, lower-cased (undefined: the value is neither). */
const domainOf = (value: string): string | undefined => {
  const email = /^[^@\s]+@([^@\s]+)$/.exec(value.trim())
  if (email) return email[1]!.toLowerCase()
  try {
    return new URL(value).hostname.toLowerCase()
  } catch {
    return undefined // neither an address nor a URL: no domain to allow
  }
}

/** Whether the policy lets `tool`'s argument `name` take `value` from untrusted data. */
export const allows = (policy: UntrustedPolicy | undefined, tool: string, name: string, value: unknown) => {
  const rule = policy?.allow[tool]?.[name]
  if (rule === undefined) return false
  if (rule.any === true) return true
  const text = typeof value === "string" ? value : JSON.stringify(value) ?? ""
  if (rule.values?.some((v) => v.toLowerCase() === text.trim().toLowerCase())) return true
  const domain = domainOf(text)
  return domain !== undefined &&
    (rule.domains ?? []).some((d) => domain === d.toLowerCase() || domain.endsWith(`.${d.toLowerCase()}`))
}

/** The operator's policy file (AEON_UNTRUSTED_POLICY, `aeon replay --policy FILE`), read and checked. */
export class PolicyFileError extends Data.TaggedError("PolicyFileError")<{ readonly message: string }> {}

export const loadPolicy = (file: string) =>
  Effect.gen(function*() {
    const raw = yield* Effect.try({
      try: (): unknown => JSON.parse(readFileSync(file, "utf8")),
      catch: (e) => new PolicyFileError({ message: `untrusted-data policy ${file}: ${messageOf(e)}` })
    })
    const decoded = Schema.decodeUnknownEither(UntrustedPolicy)(raw, { onExcessProperty: "error", errors: "all" })
    if (Either.isLeft(decoded)) {
      return yield* new PolicyFileError({ message: `untrusted-data policy ${file}: ${formatIssues(decoded.left, 5)}` })
    }
    return decoded.right
  })
