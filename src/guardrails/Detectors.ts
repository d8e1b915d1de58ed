/**
 * Where a text holds what a built-in guardrail looks for. Deterministic, no model, no network. A loose pattern finds
 * candidates in linear time; a well-kept library decides: validator (emails, Luhn for cards, IBAN checksums, IP
 * addresses, JWTs) and libphonenumber-js (Google's phone number rules per country). Secrets are the vendors'
 * published key formats.
 */
import { isSupportedCountry, isValidPhoneNumber } from "libphonenumber-js/min"
import { RE2JS } from "re2js"
// one module per check (the whole of validator carries every locale's alphabets): CommonJS modules, whose function
// a loader hands as the module or as its `default`
import email from "validator/lib/isEmail.js"
import iban from "validator/lib/isIBAN.js"
import ip from "validator/lib/isIP.js"
import jwt from "validator/lib/isJWT.js"
import luhn from "validator/lib/isLuhnNumber.js"
import { memoize } from "../support/Memoize.js"
import type { GuardrailSpec, PiiKind } from "./GuardrailSpec.js"
import { PII_KINDS } from "./GuardrailSpec.js"

/** A span of the text a guardrail matched, and its kind (`email`, `api_key`, `word`, …). */
export interface Match {
  readonly start: number
  readonly end: number
  readonly kind: string
}

type Finder = (text: string) => Array<Match>

/** Every match of a pattern whose text `accept` confirms (the pattern's global flag is set here). */
const confirmed = (kind: string, pattern: RegExp, accept: (candidate: string) => boolean): Finder => (text) => {
  const out: Array<Match> = []
  for (const m of text.matchAll(pattern)) {
    if (accept(m[0])) out.push({ start: m.index, end: m.index + m[0].length, kind })
  }
  return out
}

const callable = <F extends (...args: Array<any>) => unknown>(m: { readonly default: F } | F): F =>
  typeof m === "function" ? m : m.default
const [isEmail, isIBAN, isIP, isJWT, isLuhnNumber] = [
  callable(email),
  callable(iban),
  callable(ip),
  callable(jwt),
  callable(luhn)
]

const digitsOf = (s: string) => s.replace(/\D/g, "")

// US social security numbers: no 000, 666 or 9xx area, no 00 group, no 0000 serial (the SSA's rules)
const SSN = /\b(?!000|666|9\d\d)\d{3}([- ])(?!00)\d{2}\1(?!0000)\d{4}\b/g

const LOCAL_PART = /[A-Za-z0-9._%+-]/
const DOMAIN = /[A-Za-z0-9.-]/

/** Emails, found from each `@` outwards (a pattern tried at every word's start costs ten times more on prose). */
const emails: Finder = (text) => {
  const out: Array<Match> = []
  for (let at = text.indexOf("@"); at !== -1; at = text.indexOf("@", at + 1)) {
    let start = at
    while (start > 0 && LOCAL_PART.test(text[start - 1]!)) start--
    let end = at + 1
    while (end < text.length && DOMAIN.test(text[end]!)) end++
    while (end > at + 1 && text[end - 1] === ".") end-- // a sentence's full stop is not the domain's
    if (start < at && isEmail(text.slice(start, end))) out.push({ start, end, kind: "email" })
  }
  return out
}

// IPv6 is looked for only where hex digits meet a colon twice (most texts have none)
const MAYBE_IPV6 = /[0-9A-Fa-f]?:[0-9A-Fa-f]*:/

const piiFinders: Record<Exclude<PiiKind, "phone">, Finder> = {
  email: emails,
  card: confirmed("card", /\b\d(?:[ -]?\d){12,18}\b/g, (c) => isLuhnNumber(digitsOf(c))),
  iban: confirmed("iban", /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b/g, (c) => isIBAN(c.replace(/ /g, ""))),
  ssn: confirmed("ssn", SSN, () => true),
  ip: (text) => [
    ...confirmed("ip", /\b(?:\d{1,3}\.){3}\d{1,3}\b/g, (c) => isIP(c, 4))(text),
    ...(MAYBE_IPV6.test(text)
      ? confirmed("ip", /(?<![\w:])(?:[A-Fa-f0-9]{1,4}:|:){2,7}[A-Fa-f0-9]{0,4}(?![\w:])/g, (c) => isIP(c, 6))(text)
      : [])
  ]
}

const PHONE_CANDIDATE = /(?<![\w+])\+?\(?\d[\d ().-]{5,18}\d(?![\w])/g

/**
 * Phone numbers: libphonenumber-js is the judge (some 20 µs a candidate), asked only of what could be one — 7 to 15
 * digits, not already a card, an IBAN, an SSN or an address.
 */
const phones = (text: string, region: string, taken: ReadonlyArray<Match>): Array<Match> => {
  const out: Array<Match> = []
  for (const m of text.matchAll(PHONE_CANDIDATE)) {
    const start = m.index
    const end = start + m[0].length
    if (taken.some((t) => t.start < end && start < t.end)) continue
    const n = digitsOf(m[0]).length
    if (n < 7 || n > 15) continue
    if (isSupportedCountry(region) ? isValidPhoneNumber(m[0], region) : isValidPhoneNumber(m[0])) {
      out.push({ start, end, kind: "phone" })
    }
  }
  return out
}

const SECRET_PATTERNS: ReadonlyArray<readonly [kind: string, pattern: RegExp, accept?: (c: string) => boolean]> = [
  ["api_key", /\bsk-ant-[A-Za-z0-9_-]{20,}/g],
  ["api_key", /\bsk-(?!ant-)[A-Za-z0-9_-]{20,}/g],
  ["api_key", /\bgh[pousr]_[A-Za-z0-9]{36,}\b/g],
  ["api_key", /\bgithub_pat_[A-Za-z0-9_]{22,}\b/g],
  ["api_key", /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g],
  ["api_key", /\bxox[abposr]-[A-Za-z0-9-]{10,}/g],
  ["private_key", /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g],
  ["jwt", /\beyJ[A-Za-z0-9_-]+\.eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/g, (c) => isJWT(c)]
]

const secretFinder: Finder = (text) =>
  SECRET_PATTERNS.flatMap(([kind, pattern, accept]) => confirmed(kind, pattern, accept ?? (() => true))(text))

const escapeRegExp = (word: string) => word.replace(/[\\^$.|?*+()[\]{}/]/g, "\\$&")

/**
 * One pattern for a denylist's words (whole words, any case), compiled once per list. The words are escaped: an
 * alternation of literals cannot backtrack without end, so it runs on JS's engine (RE2's is some 100 times slower on
 * a case-insensitive alternation); a list's own patterns run on RE2.
 */
const wordsPattern = memoize(
  (joined: string) => new RegExp(`(?<!\\w)(?:${joined.split("\n").map(escapeRegExp).join("|")})(?!\\w)`, "giu"),
  { limit: 200 }
)
const patternProgram = memoize((source: string) => RE2JS.compile(source), { limit: 1_000 })

const re2Matches = (kind: string, program: RE2JS, text: string): Array<Match> => {
  const out: Array<Match> = []
  const m = program.matcher(text)
  while (m.find()) {
    // an empty match marks nothing (and would not advance)
    if (m.end() > m.start()) out.push({ start: m.start(), end: m.end(), kind })
  }
  return out
}

const denylistFinder = (spec: Extract<GuardrailSpec, { type: "denylist" }>): Finder => (text) => [
  ...(spec.words && spec.words.length > 0
    ? confirmed("word", wordsPattern(spec.words.join("\n")), () => true)(text)
    : []),
  ...(spec.patterns ?? []).flatMap((p) => re2Matches("pattern", patternProgram(p), text))
]

/** Where the text holds what the guardrail looks for, first to last, no two overlapping (the longer wins). */
export const findMatches = (spec: GuardrailSpec, text: string): Array<Match> => {
  switch (spec.type) {
    case "pii": {
      const kinds = spec.kinds ?? PII_KINDS
      const found = kinds.flatMap((k) => (k === "phone" ? [] : piiFinders[k](text)))
      return disjoint(kinds.includes("phone") ? [...found, ...phones(text, spec.region ?? "US", found)] : found)
    }
    case "secrets":
      return disjoint(secretFinder(text))
    case "denylist":
      return disjoint(denylistFinder(spec)(text))
    case "maxLength":
      return text.length > spec.chars ? [{ start: spec.chars, end: text.length, kind: "length" }] : []
  }
}

/** The matches sorted by where they start, an overlapped one dropped (the one found first, or the longer, stays). */
const disjoint = (matches: Array<Match>): Array<Match> => {
  const sorted = matches
    .map((m, order) => ({ m, order }))
    .sort((a, b) => a.m.start - b.m.start || (b.m.end - b.m.start) - (a.m.end - a.m.start) || a.order - b.order)
  const out: Array<Match> = []
  for (const { m } of sorted) {
    const last = out.at(-1)
    if (last && m.start < last.end) continue
    out.push(m)
  }
  return out
}
