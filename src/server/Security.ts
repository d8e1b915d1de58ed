import { type ExecutionResult, GraphQLError } from "graphql"
import type { Plugin } from "graphql-yoga"
import { createHash, timingSafeEqual } from "node:crypto"
import { fieldOf } from "../support/Fields.js"

export interface AuthConfig {
  /** A single key for everyone (no user binding). */
  readonly apiKey?: string | undefined
  /** key → user: a caller with such a key sees only that user's runs. */
  readonly keys: ReadonlyMap<string, string>
}

export const parseKeys = (spec: string): Map<string, string> =>
  new Map(
    spec.split(",").map((p) => p.trim()).filter(Boolean).map((p) => {
      const i = p.lastIndexOf(":")
      if (i <= 0) throw new Error(`AEON_API_KEYS entry "${p}" must be key:userId`)
      return [p.slice(0, i), p.slice(i + 1)] as const
    })
  )

const digest = (s: string) => createHash("sha256").update(s).digest()
/** Constant-time comparison (equal-length digests, so length leaks nothing). */
const same = (a: string, b: string) => timingSafeEqual(digest(a), digest(b))

export const authRequired = (c: AuthConfig) => c.apiKey !== undefined || c.keys.size > 0

/** The caller behind an Authorization header: undefined when refused, `{}` for a key without a user. */
/** What a request whose Host or Origin is not this machine is told (every route, the WebSocket upgrade, /mcp). */
export const HOST_REFUSED = "Host or Origin is not this machine (set AEON_ALLOWED_HOSTS to allow it)"

export const authenticate = (c: AuthConfig, header: string | null | undefined): { userId?: string } | undefined => {
  if (!authRequired(c)) return {}
  const token = header?.match(/^Bearer\s+(.+)$/i)?.[1]?.trim()
  if (!token) return undefined
  let found: { userId?: string } | undefined
  // every key is compared, so timing does not reveal which one matched
  if (c.apiKey !== undefined && same(token, c.apiKey)) found = {}
  for (const [key, userId] of c.keys) if (same(token, key)) found = { userId }
  return found
}

/** The code a request error gets when yoga or graphql-js gave it none (a client can branch on codes, not texts). */
const codeOf = (e: GraphQLError): string | undefined => {
  if (e.extensions?.code !== undefined) return undefined
  if (/^Variable "\$[^"]*" (got invalid value|of required type|of non-null type)/.test(e.message)) {
    return "BAD_USER_INPUT"
  }
  if (/CSRF/.test(e.message)) return "CSRF_BLOCKED"
  const status = fieldOf(e.extensions?.http, "status")
  return typeof status === "number" && status >= 400 && status < 500 ? "BAD_REQUEST" : undefined
}

/**
 * Every request error carries `extensions.code`: variable coercion (wrong type, Int overflow, 1.5 for an Int,
 * unknown enum value or input field) is BAD_USER_INPUT, the CSRF block CSRF_BLOCKED, other refused requests
 * BAD_REQUEST. The HTTP status yoga chose is kept.
 */
export const errorCodes: Plugin = {
  onResultProcess({ result, setResult }) {
    const coded = (r: ExecutionResult): ExecutionResult => {
      if (!r.errors?.some((e) => codeOf(e) !== undefined)) return r
      return {
        ...r,
        errors: r.errors.map((e) => {
          const code = codeOf(e)
          return code === undefined ? e : new GraphQLError(e.message, {
            nodes: e.nodes,
            source: e.source,
            positions: e.positions,
            path: e.path,
            originalError: e.originalError,
            extensions: { ...e.extensions, code }
          })
        })
      }
    }
    if (Array.isArray(result)) setResult(result.map((r) => coded(r as ExecutionResult)))
    else if (result && typeof result === "object" && "errors" in result) setResult(coded(result as ExecutionResult))
  }
}

/** The hosts a local server without keys answers: this machine's names, and those AEON_ALLOWED_HOSTS lists. */
const LOCAL = new Set(["localhost", "127.0.0.1", "[::1]", "::1"])

const hostname = (hostHeader: string) => {
  try {
    return new URL(`http://${hostHeader}`).hostname.toLowerCase()
  } catch {
    return undefined
  }
}

/**
 * Whether a request may come from a web page that a name pointing at this machine loaded (DNS rebinding): a server
 * without API keys answers only a Host and Origin naming this machine (or an allowed host); with keys, a page cannot
 * send the key, so any host is answered.
 */
export const hostAllowed = (
  req: { readonly headers: { readonly host?: string | undefined; readonly origin?: string | undefined } },
  auth: AuthConfig,
  allowed: ReadonlyArray<string>
) => {
  if (authRequired(auth)) return true
  const ok = (name: string | undefined) => name !== undefined && (LOCAL.has(name) || allowed.includes(name))
  if (!ok(hostname(req.headers.host ?? ""))) return false
  const origin = req.headers.origin
  if (origin === undefined || origin === "null") return origin === undefined
  try {
    return ok(new URL(origin).hostname.toLowerCase())
  } catch {
    return false
  }
}
