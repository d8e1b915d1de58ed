import { readFileSync } from "node:fs"
import { ISSUE_TYPES, type IssueType } from "../../src/domain/Evaluation.js"
import { builtinTools } from "../../src/tools/ToolRegistry.js"
import { checkPlan, type ToolInfo } from "../../src/validation/DeterministicChecks.js"
import { toolInfos } from "../../src/validation/SemanticValidator.js"

/** A labeled plan: the issues a careful reviewer finds in it, each by type and step. */
export interface CorpusEntry {
  readonly name: string
  readonly goal: string
  readonly steps: ReadonlyArray<
    { stepId: string; description: string; tool?: string; toolInput?: unknown; dependencies: Array<string> }
  >
  readonly expected: ReadonlyArray<{ type: IssueType; stepId: string }>
  /** The registry the plan was written against: the built-in tools plus these (described only by descriptions). */
  readonly tools?: ReadonlyArray<{ name: string; description: string }>
}

export const loadCorpus = (file: "corpus.json" | "independent.json"): Array<CorpusEntry> =>
  JSON.parse(readFileSync(new URL(`../validation/${file}`, import.meta.url), "utf8"))

export interface Score {
  readonly perType: ReadonlyMap<IssueType, { labeled: number; detected: number; falsePositives: number }>
  readonly detected: number
  readonly labeled: number
  readonly reported: number
  readonly falsePositives: number
  readonly cleanPlans: number
  readonly cleanPlansFlagged: number
  readonly misses: ReadonlyArray<string>
  readonly extras: ReadonlyArray<string>
}

/** Scores the deterministic checks on a corpus by exact (type, step) matches: a label is found only on its step. */
export const score = (corpus: ReadonlyArray<CorpusEntry>): Score => {
  const builtins = toolInfos(builtinTools)
  const perType = new Map(ISSUE_TYPES.map((t) => [t, { labeled: 0, detected: 0, falsePositives: 0 }]))
  const misses: Array<string> = []
  const extras: Array<string> = []
  let reported = 0
  let falsePositives = 0
  let cleanPlansFlagged = 0
  for (const entry of corpus) {
    const tools: Array<ToolInfo> = [...builtins, ...(entry.tools ?? [])]
    const plan = { goal: entry.goal, steps: entry.steps.map((s, i) => ({ ...s, stepIndex: i + 1 })) }
    const found = checkPlan(plan, tools)
    const on = (type: IssueType, stepId: string) => (f: (typeof found)[number]) =>
      f.type === type && f.location?.stepId === stepId
    for (const label of entry.expected) {
      const t = perType.get(label.type)!
      t.labeled++
      if (found.some(on(label.type, label.stepId))) t.detected++
      else misses.push(`${entry.name}: ${label.type}@${label.stepId}`)
    }
    // an issue reported twice on one step counts once
    const distinct = [...new Map(found.map((f) => [`${f.type}@${f.location?.stepId}`, f])).values()]
    for (const f of distinct) {
      reported++
      if (!entry.expected.some((l) => on(l.type, l.stepId)(f))) {
        falsePositives++
        perType.get(f.type)!.falsePositives++
        extras.push(`${entry.name}: ${f.type}@${f.location?.stepId} — ${f.description}`)
      }
    }
    if (entry.expected.length === 0 && distinct.length > 0) cleanPlansFlagged++
  }
  const labeled = [...perType.values()].reduce((n, t) => n + t.labeled, 0)
  const detected = [...perType.values()].reduce((n, t) => n + t.detected, 0)
  return {
    perType,
    detected,
    labeled,
    reported,
    falsePositives,
    cleanPlans: corpus.filter((c) => c.expected.length === 0).length,
    cleanPlansFlagged,
    misses,
    extras
  }
}

export const report = (name: string, s: Score): string =>
  [
    `${name}: detected ${s.detected}/${s.labeled} = ${
      (100 * s.detected / s.labeled).toFixed(0)
    }%, false positives ${s.falsePositives}/${s.reported} reported, clean plans flagged ${s.cleanPlansFlagged}/${s.cleanPlans}`,
    ...[...s.perType].map(([type, t]) =>
      `  ${type.padEnd(16)} ${t.detected}/${t.labeled}${
        t.labeled ? ` = ${(100 * t.detected / t.labeled).toFixed(0)}%` : ""
      }, ${t.falsePositives} false positive(s)`
    ),
    ...s.misses.map((m) => `  missed ${m}`),
    ...s.extras.map((e) => `  extra ${e}`)
  ].join("\n")
