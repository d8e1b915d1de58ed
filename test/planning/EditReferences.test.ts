import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import fc from "fast-check"
import type { RefinementAction } from "../../src/domain/Execution.js"
import { isExecuted, type Plan } from "../../src/domain/Plan.js"
import { applyAction } from "../../src/record/PlanEdits.js"
import { referencesIn, resolveReferences, splitReference, transitiveDependencies } from "../../src/record/References.js"
import { checkPlan } from "../../src/validation/DeterministicChecks.js"
import { step } from "../support/fixtures.js"

/**
 * An edit renames what it renames everywhere (#69 item 3): a refinement that rewrites an executed step which a later
 * tool step reads (`{{s2}}`) gives that step the successor in its dependencies and in its tool input alike — the
 * plan's own validation then finds nothing to refuse — for every edit that supersedes (MODIFY, REPLACE,
 * STEP_MARK_INVALID) and for a subplan's substeps reading each other.
 */
const runs = Number(process.env.AEON_PROPERTY_RUNS ?? 300)

/** How a tool input names an earlier result: whole, inside text, or a field of it. */
const reference = (id: string, form: number) =>
  form === 0 ? `{{${id}}}` : form === 1 ? `({{${id}}}) + 1` : `{{${id}.value}} * 2`

const planArbitrary = fc.integer({ min: 2, max: 7 }).chain((n) =>
  fc.record({
    n: fc.constant(n),
    executed: fc.integer({ min: 1, max: n }),
    // each later step: which earlier steps it depends on, and which of those its tool input reads
    links: fc.array(
      fc.record({ deps: fc.array(fc.boolean(), { minLength: n, maxLength: n }), form: fc.nat(2) }),
      { minLength: n, maxLength: n }
    ),
    target: fc.nat(n - 1),
    action: fc.constantFrom("MODIFY", "REPLACE", "STEP_MARK_INVALID") as fc.Arbitrary<
      "MODIFY" | "REPLACE" | "STEP_MARK_INVALID"
    >,
    reads: fc.boolean()
  })
)

type Drawn = typeof planArbitrary extends fc.Arbitrary<infer T> ? T : never

const planOf = (p: Drawn): Plan => {
  const ids = Array.from({ length: p.n }, (_, i) => `s${i + 1}`)
  const steps = ids.map((id, i) => {
    const deps = ids.slice(0, i).filter((_, j) => p.links[i]!.deps[j])
    const ran = i < p.executed
    return step(id, i + 1, p.n, {
      dependencies: deps,
      tool: "calculator",
      toolInput: {
        expression: deps.length === 0 ? `${i + 1} * 7` : deps.map((d) => reference(d, p.links[i]!.form)).join(" + ")
      },
      ...(ran ? { status: "complete" as const, executed: true, stepOutput: String(i + 1) } : {})
    })
  })
  return { goal: "Compute the values", steps }
}

/** Every reference of a step that still runs names a live step it depends on (directly or not). */
const readsWhatItDependsOn = (plan: Plan) => {
  const byId = new Map(plan.steps.map((s) => [s.stepId, s]))
  for (const s of plan.steps) {
    if (s.supersededBy !== undefined || isExecuted(s)) continue
    const upstream = transitiveDependencies(s.stepId, (id) => byId.get(id)?.dependencies ?? [])
    for (const path of referencesIn(s.toolInput)) {
      const ref = splitReference(path, (id) => byId.has(id))
      expect(ref, `${s.stepId} reads {{${path}}}`).toBeDefined()
      expect(upstream.has(ref!.stepId), `${s.stepId} reads {{${path}}} without depending on it`).toBe(true)
      expect(byId.get(ref!.stepId)!.supersededBy, `${s.stepId} reads the superseded ${ref!.stepId}`).toBeUndefined()
    }
  }
}

const calculator = [{ name: "calculator", description: "evaluates an arithmetic expression", inputSchema: {} }]
const referenceIssues = (plan: Plan) =>
  checkPlan(plan, calculator as never).filter((i) => /tool input/.test(i.description)).map((i) => i.description)

describe("an edit renames references as it renames dependencies (#69.3)", () => {
  it("a step reading an executed step that a refinement rewrites reads its successor: validation has nothing to refuse", () => {
    fc.assert(
      fc.property(planArbitrary, (p) => {
        const plan = planOf(p)
        expect(referenceIssues(plan)).toEqual([])
        const target = plan.steps[p.target]!
        const deps = target.dependencies
        const action: RefinementAction = {
          actionType: p.action,
          targetStepId: target.stepId,
          ...(p.action === "STEP_MARK_INVALID" ? {} : {
            newStep: step(target.stepId, 1, 1, {
              dependencies: deps,
              tool: "calculator",
              toolInput: { expression: p.reads && deps[0] ? `{{${deps[0]}}} * 3` : "6 * 7" }
            })
          }),
          justification: "the value was wrong",
          inconsistencyDetected: false
        }
        const edited = applyAction(plan, action)
        if (!Either.isEither(edited) || Either.isLeft(edited)) throw new Error(`refused: ${JSON.stringify(edited)}`)
        readsWhatItDependsOn(edited.right.plan)
        expect(referenceIssues(edited.right.plan)).toEqual([])
      }),
      { numRuns: runs }
    )
  })

  it("the issue's case: MODIFY of executed s2, which s4's tool input reads, gives s4 {{s2.r2}} and the dependency", () => {
    const plan: Plan = {
      goal: "Compute and store",
      steps: [
        step("s1", 1, 4, {
          status: "complete",
          executed: true,
          tool: "calculator",
          toolInput: { expression: "6 * 7" }
        }),
        step("s2", 2, 4, {
          status: "complete",
          executed: true,
          dependencies: ["s1"],
          tool: "calculator",
          toolInput: { expression: "{{s1}} + 1" }
        }),
        step("s3", 3, 4, { dependencies: ["s2"] }),
        step("s4", 4, 4, {
          dependencies: ["s2"],
          tool: "memory.write",
          toolInput: { key: "total", value: "{{s2}}", note: "from {{s2.value}}" }
        })
      ]
    }
    const edited = applyAction(plan, {
      actionType: "MODIFY",
      targetStepId: "s2",
      newStep: step("s2", 2, 4, {
        dependencies: ["s1"],
        tool: "calculator",
        toolInput: { expression: "{{s1}} + 2" }
      }),
      justification: "off by one",
      inconsistencyDetected: false
    })
    if (!Either.isEither(edited) || Either.isLeft(edited)) throw new Error("refused")
    const s4 = edited.right.plan.steps.find((s) => s.stepId === "s4")!
    expect(s4.dependencies).toEqual(["s2.r2"])
    expect(s4.toolInput).toEqual({ key: "total", value: "{{s2.r2}}", note: "from {{s2.r2.value}}" })
    expect(referenceIssues(edited.right.plan)).toEqual([])
  })

  it("a subplan's substeps read each other by the ids they were given; the reference resolves when it runs", () => {
    const plan: Plan = {
      goal: "Compute",
      steps: [step("s1", 1, 1, { description: "Compute a total in two parts" })]
    }
    const edited = applyAction(plan, {
      actionType: "SUBPLAN_CREATE",
      targetStepId: "s1",
      subplanGoal: "two parts",
      substeps: [
        step("a", 1, 2, { tool: "calculator", toolInput: { expression: "6 * 7" } }),
        step("b", 2, 2, { tool: "calculator", toolInput: { expression: "{{a}} + 1" } })
      ],
      justification: "split it",
      inconsistencyDetected: false
    })
    if (!Either.isEither(edited) || Either.isLeft(edited)) throw new Error("refused")
    const substeps = edited.right.plan.steps[0]!.subplan!.substeps
    expect(substeps.map((s) => s.stepId)).toEqual(["s1.a", "s1.b"])
    expect(substeps[1]!.toolInput).toEqual({ expression: "{{s1.a}} + 1" })
    const ran = {
      ...edited.right.plan.steps[0]!,
      subplan: {
        ...edited.right.plan.steps[0]!.subplan!,
        substeps: [{ ...substeps[0]!, status: "complete" as const, stepOutput: "42" }, substeps[1]!]
      }
    }
    expect(resolveReferences(substeps[1]!.toolInput, [ran], { "s1.a": { value: 42 } })).toEqual(
      Either.right({ expression: "42 + 1" })
    )
  })
})
