import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { checkText, checkValue, makePlaceholders } from "../../src/guardrails/Checking.js"
import { findMatches } from "../../src/guardrails/Detectors.js"
import * as Guardrails from "../../src/guardrails/Guardrails.js"

const ctx = { point: "input" as const, runId: "r" }
const kindsIn = (text: string) => findMatches({ type: "pii", action: "redact" }, text).map((m) => m.kind)

describe("built-in detectors", () => {
  it("finds each kind of personal data", () => {
    expect(kindsIn("write to ana.lopez@example.org today")).toEqual(["email"])
    expect(kindsIn("card 4111 1111 1111 1111 exp 12/29")).toEqual(["card"])
    expect(kindsIn("IBAN DE89 3704 0044 0532 0130 00 please")).toEqual(["iban"])
    expect(kindsIn("SSN 123-45-6789.")).toEqual(["ssn"])
    expect(kindsIn("from 192.168.10.23 and 2001:db8::ff00:42:8329")).toEqual(["ip", "ip"])
    expect(kindsIn("call (415) 555-2671 or +44 20 7946 0958")).toEqual(["phone", "phone"])
  })

  it("leaves look-alikes that fail the checks", () => {
    // Luhn fails, IBAN checksum fails, SSN area 000, 999.1.1.1 is no address, a date is no phone number
    expect(kindsIn("4111 1111 1111 1112 DE00 3704 0044 0532 0130 00 000-12-3456 999.1.1.1 on 2024-05-01")).toEqual(
      []
    )
  })

  it("finds keys, private key blocks and JWTs", () => {
    const secrets = (t: string) => findMatches({ type: "secrets", action: "block" }, t).map((m) => m.kind)
    expect(secrets(`key sk-ant-api03-${"a".repeat(40)} and ghp_${"B".repeat(36)} and AKIAIOSFODNN7EXAMPLE`))
      .toEqual(["api_key", "api_key", "api_key"])
    expect(secrets("-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----")).toEqual(["private_key"])
    expect(
      secrets(
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
      )
    ).toEqual(["jwt"])
    expect(secrets("a task about sk-learn and skeletons")).toEqual([])
  })

  it("denylist words are whole words in any case; patterns are RE2", () => {
    const spec = {
      type: "denylist" as const,
      action: "block" as const,
      words: ["Project Falcon"],
      patterns: ["ticket-\\d+"]
    }
    expect(findMatches(spec, "about project falcon and TICKET-42").map((m) => m.kind)).toEqual(["word"])
    expect(findMatches(spec, "about project falcon and ticket-42").map((m) => m.kind)).toEqual(["word", "pattern"])
    expect(findMatches(spec, "projectfalcons")).toEqual([])
  })
})

describe("checking a text", () => {
  it("redacts with one placeholder per value, numbered per kind", () =>
    Effect.gen(function*() {
      const placeholders = makePlaceholders()
      const checked = yield* checkText(
        [{ type: "pii", action: "redact", kinds: ["email"] }],
        "a@example.com, b@example.com, a@example.com",
        placeholders,
        ctx
      )
      expect(checked.value).toBe("<EMAIL_1>, <EMAIL_2>, <EMAIL_1>")
      expect(checked.triggers).toEqual([{
        point: "input",
        guardrail: "pii",
        action: "redact",
        kinds: ["email"],
        placeholders: ["<EMAIL_1>", "<EMAIL_2>"]
      }])
      // the run's later texts share its placeholders; a log's seeds go on after the highest
      expect(placeholders.of("email", "b@example.com")).toBe("<EMAIL_2>")
      expect(makePlaceholders(["<EMAIL_4>"]).of("email", "z@example.com")).toBe("<EMAIL_5>")
    }).pipe(Effect.runPromise))

  it("blocks naming the guardrail and kinds, never the text", () =>
    Effect.gen(function*() {
      const checked = yield* checkText(
        [{ type: "denylist", name: "codenames", action: "block", words: ["falcon"] }],
        "tell me about Falcon",
        makePlaceholders(),
        ctx
      )
      expect(checked.blocked?.reason).toBe("guardrail codenames blocked the input: it holds word")
      // what a caller keeps of a blocked text holds no match
      expect(checked.value).toBe("tell me about <WORD_1>")
    }).pipe(Effect.runPromise))

  it("one's own guardrail is an Effect of a verdict", () =>
    Effect.gen(function*() {
      const shouting: Guardrails.Guardrail = {
        name: "no-shouting",
        check: (text) => Effect.succeed(text === text.toUpperCase() ? Guardrails.block("shouting") : Guardrails.allow)
      }
      const checked = yield* checkText([shouting], "HELLO", makePlaceholders(), ctx)
      expect(checked.blocked?.reason).toBe("guardrail no-shouting blocked the input: shouting")
      expect((yield* checkText([shouting], "hello", makePlaceholders(), ctx)).triggers).toEqual([])
    }).pipe(Effect.runPromise))

  it("a JSON value keeps its shape: each string checked", () =>
    Effect.gen(function*() {
      const checked = yield* checkValue(
        [{ type: "pii", action: "redact" }],
        { to: "ana@example.org", cc: ["bo@example.org"], n: 3 },
        makePlaceholders(),
        { ...ctx, point: "tool_result" }
      )
      expect(checked.value).toEqual({ to: "<EMAIL_1>", cc: ["<EMAIL_2>"], n: 3 })
      expect(checked.triggers).toHaveLength(1)
    }).pipe(Effect.runPromise))

  it("maxLength cuts (redact) or blocks", () =>
    Effect.gen(function*() {
      const cut = yield* checkText(
        [{ type: "maxLength", action: "redact", chars: 5 }],
        "abcdefgh",
        makePlaceholders(),
        ctx
      )
      expect(cut.value).toBe("abcde…")
      const blocked = yield* checkText(
        [{ type: "maxLength", action: "block", chars: 5 }],
        "abcdefgh",
        makePlaceholders(),
        ctx
      )
      expect(blocked.blocked?.reason).toBe("guardrail maxLength blocked the input: it is longer than 5 characters")
    }).pipe(Effect.runPromise))

  it("refuses a bad spec naming the field", () => {
    const decoded = Guardrails.decodeSpec({ output: [{ type: "denylist", action: "block", patterns: ["(?=x)"] }] })
    expect(decoded._tag).toBe("Left")
    expect(decoded._tag === "Left" && decoded.left).toMatch(/^output\.0\.patterns\.0: .*RE2/)
    const kinds = Guardrails.decodeSpec({ input: [{ type: "pii", action: "redact", kinds: ["dna"] }] })
    expect(kinds._tag === "Left" && kinds.left).toMatch(/^input\.0\.kinds\.0/)
  })
})
