import { describe, expect, it } from "vitest"
import { ISSUE_TYPES } from "../../src/domain/Evaluation.js"
import { loadCorpus, report, score } from "../support/validationCorpus.js"

// Scored by exact (type, step) matches: an issue counts as found only on the step it is labeled on.
describe("deterministic validation against labeled corpora (SC-006)", () => {
  for (
    const [file, size] of [
      ["corpus.json", 40], // written with the first checks
      ["independent.json", 60] // written apart from the checks' word lists: paraphrases, user tools, tricky words
    ] as const
  ) {
    it(`${file}: detects ≥ 90% of the labeled issues (each type), flags ≤ 5% of the clean plans`, () => {
      const corpus = loadCorpus(file)
      expect(corpus.length).toBeGreaterThanOrEqual(size)
      const s = score(corpus)
      console.log(report(file, s))
      expect(s.cleanPlans).toBeGreaterThanOrEqual(10)
      // completeness compares a plan with its task, which the corpora's plans do not carry (Completeness.test.ts)
      for (const type of ISSUE_TYPES.filter((t) => t !== "completeness")) {
        const t = s.perType.get(type)!
        expect(t.labeled, `${type} is labeled in ${file}`).toBeGreaterThan(0)
        expect(t.detected / t.labeled, `detection of ${type}`).toBeGreaterThanOrEqual(0.9)
      }
      expect(s.cleanPlansFlagged / s.cleanPlans).toBeLessThanOrEqual(0.05)
    })
  }
})
