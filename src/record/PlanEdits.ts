import { Either } from "effect"
import type { RefinementAction } from "../domain/Execution.js"
import { isExecuted, MAX_SUBPLAN_DEPTH, type Plan, type PlanStep, renumber } from "../domain/Plan.js"
import { renameReferences } from "./References.js"

/** Applies one refinement action to a plan as pure data; Left says why it was rejected. Executed steps are never rewritten. */
export type Edit = Either.Either<
  { readonly plan: Plan; readonly touched: ReadonlyArray<string>; readonly note?: string },
  string
>

/** The first of base.r2, base.r3 … not taken in the plan. */
const nextRevision = (steps: ReadonlyArray<PlanStep>, base: string): string => {
  const ids = new Set(allIds(steps))
  let n = 2
  while (ids.has(`${base}.r${n}`)) n++
  return `${base}.r${n}`
}

/** A new step keeps its proposed id when it is free. */
const fresh = (plan: Plan, id: string): string => (allIds(plan.steps).includes(id) ? nextRevision(plan.steps, id) : id)

/** s2 → s2.r2 → s2.r3 …: the id of the step that replaces an executed one. */
const successorOf = (steps: ReadonlyArray<PlanStep>, id: string): string =>
  nextRevision(steps, id.replace(/\.r\d+$/, ""))

export const allIds = (steps: ReadonlyArray<PlanStep>): Array<string> =>
  steps.flatMap((s) => [s.stepId, ...(s.subplan ? allIds(s.subplan.substeps) : [])])

const pendingCopy = (step: PlanStep, over: Partial<PlanStep>): PlanStep => ({
  stepId: step.stepId,
  stepIndex: step.stepIndex,
  totalSteps: step.totalSteps,
  description: step.description,
  ...(step.tool ? { tool: step.tool } : {}),
  ...(step.toolInput !== undefined ? { toolInput: step.toolInput } : {}),
  dependencies: step.dependencies,
  provides: step.provides,
  incomingContext: "",
  handoffToNext: "",
  stepOutput: "",
  status: "pending",
  ...over
})

/** A step that reads renamed steps: its dependencies and its tool input's references renamed alike. */
const renamedIn = (s: PlanStep, renamed: ReadonlyMap<string, string>, ids: ReadonlySet<string>): PlanStep => ({
  ...s,
  dependencies: s.dependencies.map((d) => renamed.get(d) ?? d),
  ...(s.toolInput !== undefined ? { toolInput: renameReferences(s.toolInput, renamed, (id) => ids.has(id)) } : {})
})

/**
 * FR-069: an executed step that a rewrite conflicts with is marked invalid and kept as it ran;
 * a pending successor takes its place, and executed steps that consumed it are re-run the same way.
 */
const supersede = (
  plan: Plan,
  targetId: string,
  replacement: Partial<PlanStep>
): { plan: Plan; touched: Array<string> } => {
  let steps = [...plan.steps]
  const touched: Array<string> = []
  const queue: Array<[string, Partial<PlanStep>]> = [[targetId, replacement]]
  const renamed = new Map<string, string>()
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const [id, over] = next
    const i = steps.findIndex((s) => s.stepId === id)
    const old = steps[i]
    if (old === undefined) continue
    const successorId = successorOf(steps, id)
    renamed.set(id, successorId)
    steps[i] = { ...old, status: old.status === "complete" ? "invalid" : old.status, supersededBy: successorId }
    steps.splice(i + 1, 0, pendingCopy(old, { ...over, stepId: successorId }))
    touched.push(successorId)
    for (const s of steps) {
      if (s.supersededBy || !s.dependencies.includes(id) || s.stepId === successorId) continue
      if (isExecuted(s)) {
        if (!queue.some(([q]) => q === s.stepId)) queue.push([s.stepId, {}])
      }
    }
    const ids = new Set(allIds(steps))
    // what still runs reads the successors: its dependencies and its tool input's references ({{s2}}) alike
    steps = steps.map((s) => (s.supersededBy || isExecuted(s) ? s : renamedIn(s, renamed, ids)))
  }
  return { plan: { goal: plan.goal, steps: renumber(steps) }, touched }
}

/** The step that stands for `id` now: `id` itself, or the live end of its chain of successors (s2 → s2.r2 → s2.r3). */
export const liveSuccessor = (steps: ReadonlyArray<PlanStep>, id: string): string => {
  const byId = new Map(steps.map((s) => [s.stepId, s]))
  let current = id
  for (let hops = 0; hops <= steps.length; hops++) {
    const next = byId.get(current)?.supersededBy
    if (next === undefined || !byId.has(next)) return current
    current = next
  }
  return current
}

/**
 * The fragment a step belongs to: a step and the successors that replace it (s2.r3 → s2), at any depth. A substep is
 * a fragment of its own (s2.1 is not s2): nesting is bounded by depth (MAX_SUBPLAN_DEPTH), not by its parent's
 * attempts. A fragment keeps its refinement count whichever of its ids the planner names.
 */
export const fragmentRoot = (steps: ReadonlyArray<PlanStep>, id: string): string => {
  const up = new Map<string, string>()
  const walk = (list: ReadonlyArray<PlanStep>) => {
    for (const s of list) {
      if (s.supersededBy !== undefined) up.set(s.supersededBy, s.stepId)
      if (s.subplan) walk(s.subplan.substeps)
    }
  }
  walk(steps)
  let root = id
  for (let hops = 0, above = up.get(root); above !== undefined && hops <= up.size; hops++, above = up.get(root)) {
    root = above
  }
  return root
}

/** Finds a step at any nesting depth; depth 0 = top level. */
export const findStep = (
  steps: ReadonlyArray<PlanStep>,
  id: string,
  depth = 0
): { step: PlanStep; depth: number } | undefined => {
  for (const s of steps) {
    if (s.stepId === id) return { step: s, depth }
    if (s.subplan) {
      const inner = findStep(s.subplan.substeps, id, depth + 1)
      if (inner) return inner
    }
  }
  return undefined
}

const mapStep = (steps: ReadonlyArray<PlanStep>, id: string, f: (s: PlanStep) => PlanStep): Array<PlanStep> =>
  steps.map((s) =>
    s.stepId === id
      ? f(s)
      : s.subplan
      ? { ...s, subplan: { ...s.subplan, substeps: mapStep(s.subplan.substeps, id, f) } }
      : s
  )

export class DepthExceeded {
  constructor(readonly stepId: string, readonly depth: number) {}
}

/** MODIFY or REPLACE: the step's content changed in place, or — a step that ran — superseded by a new one. */
const rewrite = (
  plan: Plan,
  action: RefinementAction,
  target: PlanStep,
  cleanDeps: (deps: ReadonlyArray<string>) => Array<string>
): Edit => {
  const n = action.newStep
  if (!n) return Either.left(`${action.actionType} needs the new step`)
  const content: Partial<PlanStep> = {
    description: n.description,
    ...(n.tool ? { tool: n.tool } : action.actionType === "REPLACE" ? { tool: undefined } : {}),
    ...(n.toolInput !== undefined
      ? { toolInput: n.toolInput }
      : action.actionType === "REPLACE"
      ? { toolInput: undefined }
      : {}),
    dependencies: cleanDeps(n.dependencies).filter((d) => d !== target.stepId)
  }
  if (isExecuted(target)) {
    const r = supersede(plan, target.stepId, content)
    return Either.right({
      ...r,
      note: `${target.stepId} had run: kept as executed (marked ${
        target.status === "complete" ? "invalid" : target.status
      }) and superseded by ${r.touched[0]}`
    })
  }
  const steps = plan.steps.map((s) => (s.stepId === target.stepId ? pendingCopy(s, content) : s))
  return Either.right({ plan: { goal: plan.goal, steps }, touched: [target.stepId] })
}

/** SUBPLAN_CREATE: substeps under a step that has not run, within the depth the design documents allow. */
const createSubplan = (plan: Plan, action: RefinementAction, targetId: string | undefined): Edit | DepthExceeded => {
  const found = targetId === undefined ? undefined : findStep(plan.steps, targetId)
  if (!found) return Either.left(`SUBPLAN_CREATE targets ${action.targetStepId}, which is not in the plan`)
  const depthLevel = found.depth + 1
  if (depthLevel > MAX_SUBPLAN_DEPTH) return new DepthExceeded(found.step.stepId, depthLevel)
  if (isExecuted(found.step)) {
    return Either.left(`SUBPLAN_CREATE on ${found.step.stepId} refused: the step already ran`)
  }
  // a substep's id is its parent's and its own (s2.s1): what its siblings' inputs name by its own id reads it
  const local = new Map((action.substeps ?? []).map((s) => [s.stepId, `${found.step.stepId}.${s.stepId}`]))
  const substeps = renumber(
    (action.substeps ?? []).map((s) => ({
      ...pendingCopy(s, { stepId: local.get(s.stepId)!, dependencies: [] }),
      ...(s.toolInput !== undefined
        ? { toolInput: renameReferences(s.toolInput, local, (id) => local.has(id)) }
        : {})
    }))
  )
  const subplan = {
    parentStepId: found.step.stepId,
    subplanGoal: action.subplanGoal ?? found.step.description,
    substeps,
    depthLevel,
    createdBy: "recursive_planner"
  }
  return Either.right({
    plan: { goal: plan.goal, steps: mapStep(plan.steps, found.step.stepId, (s) => ({ ...s, subplan })) },
    touched: [found.step.stepId]
  })
}

export const applyAction = (plan: Plan, action: RefinementAction): Edit | DepthExceeded => {
  // a superseded step is modified through its live successor: never a second live copy of one step. (A REMOVE still
  // names the step the planner saw: removing an executed step is refused.)
  const targetId = action.targetStepId === undefined || action.actionType === "REMOVE"
    ? action.targetStepId
    : liveSuccessor(plan.steps, action.targetStepId)
  const target = targetId !== undefined ? plan.steps.find((s) => s.stepId === targetId) : undefined
  const ids = new Set(plan.steps.map((s) => s.stepId))
  const cleanDeps = (deps: ReadonlyArray<string>) => deps.filter((d) => ids.has(d))
  switch (action.actionType) {
    case "ADD": {
      const n = action.newStep
      if (!n) return Either.left("ADD needs the new step")
      const stepId = fresh(plan, n.stepId)
      const step = pendingCopy(n, { stepId, dependencies: cleanDeps(n.dependencies) })
      const at = target ? plan.steps.indexOf(target) + 1 : plan.steps.length
      const steps = [...plan.steps.slice(0, at), step, ...plan.steps.slice(at)]
      return Either.right({ plan: { goal: plan.goal, steps: renumber(steps) }, touched: [stepId] })
    }
    case "MODIFY":
    case "REPLACE":
      return target ? rewrite(plan, action, target, cleanDeps) : Either.left(
        `${action.actionType} targets ${action.targetStepId}, which is not a top-level step of the plan`
      )
    case "REMOVE": {
      if (!target) return Either.left(`REMOVE targets ${action.targetStepId}, which is not in the plan`)
      if (isExecuted(target)) return Either.left(`REMOVE of ${target.stepId} refused: the step already ran`)
      const steps = plan.steps
        .filter((s) => s.stepId !== target.stepId)
        .map((s) => (isExecuted(s) ? s : { ...s, dependencies: s.dependencies.filter((d) => d !== target.stepId) }))
      return Either.right({ plan: { goal: plan.goal, steps: renumber(steps) }, touched: [] })
    }
    case "STEP_MARK_INVALID": {
      if (!target) return Either.left(`STEP_MARK_INVALID targets ${action.targetStepId}, which is not in the plan`)
      if (isExecuted(target)) {
        const r = supersede(plan, target.stepId, {})
        return Either.right({
          ...r,
          note: `${target.stepId} marked invalid; a pending re-run ${r.touched[0]} takes its place`
        })
      }
      const steps = plan.steps.map((s) => (s.stepId === target.stepId ? { ...s, status: "invalid" as const } : s))
      return Either.right({ plan: { goal: plan.goal, steps }, touched: [target.stepId] })
    }
    case "SUBPLAN_CREATE":
      return createSubplan(plan, action, targetId)
  }
}
