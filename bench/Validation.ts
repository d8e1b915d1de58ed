import { loadCorpus, score } from "../test/support/validationCorpus.js"

/** The deterministic validator on both labeled corpora: detection and false positives per issue type. */
export const validation = () =>
  (["corpus.json", "independent.json"] as const).map((file) => {
    const s = score(loadCorpus(file))
    return {
      file,
      detected: s.detected,
      labeled: s.labeled,
      falsePositives: s.falsePositives,
      reported: s.reported,
      cleanPlans: s.cleanPlans,
      cleanPlansFlagged: s.cleanPlansFlagged,
      perType: Object.fromEntries(s.perType),
      extras: s.extras
    }
  })
