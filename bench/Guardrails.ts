import { Effect } from "effect"
import { checkText, makePlaceholders } from "../src/guardrails/Checking.js"
import type { GuardrailEntry } from "../src/guardrails/Guardrail.js"
import { overhead } from "./Overhead.js"
import { percentile } from "./support.js"

/**
 * What the deterministic guardrails cost (#71 item 7): every built-in (pii of all six kinds, secrets, a denylist of
 * words and a pattern, maxLength) on a 10 KB text, p50 and p99 over many checks; beside a run's own cost per step
 * (bench row 1's loop, no store) measured in the same process. Two texts: a support transcript with the personal data
 * such a ticket has (a dozen values), and a worst case dense with numbers (a phone number's check is
 * libphonenumber-js's, some 20 µs a candidate).
 */
const ALL: ReadonlyArray<GuardrailEntry> = [
  { type: "pii", action: "redact" },
  { type: "secrets", action: "redact" },
  { type: "denylist", action: "redact", words: ["project falcon", "internal only"], patterns: ["ticket-[0-9]{6}"] },
  { type: "maxLength", action: "block", chars: 50_000 }
]

const FILLER = "The customer reports that the export stops halfway and the dashboard shows an empty chart. " +
  "We checked the settings together, cleared the cache and tried again with a smaller date range. "

const ticket = () => {
  const facts = [
    "Contact: maria.keller@example.de, +49 30 901820, card 4111 1111 1111 1111.",
    "Refund to IBAN DE89 3704 0044 0532 0130 00; login from 203.0.113.42.",
    "SSN on file 123-45-6789; callback (415) 555-2671. See ticket-204518."
  ]
  let text = ""
  for (let i = 0; text.length < 10_000; i++) text += (i % 8 === 0 ? facts[(i / 8) % 3]! + " " : "") + FILLER
  return text.slice(0, 10_240)
}

const dense = () => {
  let text = ""
  while (text.length < 10_240) text += "Call (415) 555-2671 or +44 20 7946 0958, order 4111 1111 1111 1111. "
  return text.slice(0, 10_240)
}

const timings = (text: string, n: number) => {
  const run = () => Effect.runSync(checkText(ALL, text, makePlaceholders(), { point: "input", runId: "bench" }))
  for (let i = 0; i < Math.min(200, n); i++) run()
  const ms: Array<number> = []
  for (let i = 0; i < n; i++) {
    const t = performance.now()
    run()
    ms.push(performance.now() - t)
  }
  return {
    p50: percentile(ms, 50),
    p99: percentile(ms, 99),
    found: run().triggers.flatMap((t) => t.placeholders).length
  }
}

export const guardrailsCost = async (quick: boolean) => {
  const n = quick ? 200 : 2_000
  const step = await overhead({ store: false, iterations: quick ? 3 : 20, warmup: quick ? 2 : 10 })
  return { ticket: timings(ticket(), n), dense: timings(dense(), n), perStepMs: step.perStepMs }
}
