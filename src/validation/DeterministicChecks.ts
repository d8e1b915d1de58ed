import { Predicate } from "effect"
import { referencesIn, splitReference, transitiveDependencies } from "../record/References.js"
import { memoize, memoizeWeak } from "../support/Memoize.js"
import { evaluate, findExpression } from "../tools/Calculator.js"
import { fit, NUMERIC_KINDS, stepAction, toolActions, toolWords, WEAK_KINDS } from "./Actions.js"
import { type Found, issue, type PlanLike } from "./Findings.js"
import { specificity } from "./Specificity.js"
import type { ToolInfo } from "./ToolInfo.js"
import { stem, words } from "./Words.js"

/** What validation needs to know of a tool: data, not the registry service. */
export type { ToolInfo }

export type { PlanLike } from "./Findings.js"

export { stem, words } from "./Words.js"
const expressionIn = memoize((text: string) => findExpression(text) ?? null)

/** Steps made only of these words serve any goal (combining, checking, reporting what earlier steps produced). */
const GENERIC = new Set(
  ("summarize summary combine merge verify check review compile report present conclude answer explain " +
    "format write final result results output outputs findings finding answer data information steps step previous earlier " +
    "above values value response draft validate double confirm collect gather return provide give state restate the list " +
    "compare reconcile total totals overall clearly user question task goal explanation reasoning").split(" ")
)

const bearsOnGoal = (
  plan: PlanLike,
  s: PlanLike["steps"][number],
  tools: ReadonlyArray<ToolInfo>,
  goal: ReadonlySet<string>
): boolean => {
  const own = words(s.description)
  if (own.length === 0 || own.some((w) => goal.has(stem(w))) || own.every((w) => GENERIC.has(w))) return true
  // arithmetic the goal asks for, done by a step with an expression in its tool input
  if (expressionIn(plan.goal) && inputExpressions(s.toolInput).length > 0) return true
  const tool = tools.find((t) => t.name === s.tool)
  return tool !== undefined && [...toolWords(tool)].some((k) => goal.has(k))
}

/** A step is relevant when it bears on the goal or is linked by dependencies to a step that does. Vague steps are left to specificity. */
const relevance = (plan: PlanLike, tools: ReadonlyArray<ToolInfo>, vague: ReadonlySet<string>): Array<Found> => {
  const goal = new Set(words(plan.goal).map(stem))
  const relevant = new Set(plan.steps.filter((s) => bearsOnGoal(plan, s, tools, goal)).map((s) => s.stepId))
  let grew = true
  while (grew) {
    grew = false
    for (const s of plan.steps) {
      if (relevant.has(s.stepId)) continue
      const linked = s.dependencies.some((d) => relevant.has(d)) ||
        plan.steps.some((o) => relevant.has(o.stepId) && o.dependencies.includes(s.stepId))
      if (linked) {
        relevant.add(s.stepId)
        grew = true
      }
    }
  }
  return plan.steps
    .filter((s) => !relevant.has(s.stepId) && !vague.has(s.stepId))
    .map((s) =>
      issue(
        "relevance",
        "MEDIUM",
        s.stepId,
        `step ${s.stepId} has no bearing on the goal "${plan.goal}": "${s.description}"`,
        "remove the step or tie it to the goal"
      )
    )
}

// ---- hallucination (FR-039) ------------------------------------------------------------------

const hallucination = (s: PlanLike["steps"][number], tools: ReadonlyMap<string, ToolInfo>): Array<Found> => {
  if (!s.tool) return []
  const tool = tools.get(s.tool)
  if (!tool) {
    return [
      issue(
        "hallucination",
        "HIGH",
        s.stepId,
        `step ${s.stepId} uses tool "${s.tool}", which is not in the registry (${[...tools.keys()].join(", ")})`,
        "replace with an existing tool or mark the step invalid"
      )
    ]
  }
  const operation = Predicate.hasProperty(s.toolInput, "operation") ? s.toolInput.operation : undefined
  if (typeof operation === "string" && !(tool.operations ?? []).includes(operation)) {
    return [
      issue(
        "hallucination",
        "HIGH",
        s.stepId,
        `tool "${s.tool}" has no operation "${operation}"${
          tool.operations?.length ? ` (it has ${tool.operations.join(", ")})` : ""
        }`,
        "use an operation the tool has"
      )
    ]
  }
  return []
}

// ---- do/say mismatch (FR-038) ----------------------------------------------------------------

/** A tool's name as a whole word in a description (compiled once per name: plans are validated on every pass). */
const namePattern = memoize((name: string) => new RegExp(`\\b${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\b`, "i"))

/** The arithmetic expressions among a tool input's strings (references to earlier results are not arithmetic yet). */
const inputExpressions = (input: unknown): Array<string> => {
  const found: Array<string> = []
  const walk = (v: unknown): void => {
    if (typeof v === "string") {
      if (!v.includes("{{") && /\d\s*[-+*/%^]\s*[-(\d]/.test(v) && valueOf(v) !== undefined) found.push(v)
    } else if (Array.isArray(v)) v.forEach(walk)
    else if (v !== null && typeof v === "object") Object.values(v).forEach(walk)
  }
  walk(input)
  return found
}

const valueOf = (expression: string): number | undefined => {
  try {
    return evaluate(expression)
  } catch {
    return undefined // not arithmetic: nothing to compare
  }
}

const sameValue = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b))

/**
 * What a step says it does against what its tool does: the tool named outright; arithmetic compared by value
 * ((1.005)^-360 is 1.005^-360); the kind of action the description asks for (its first verb) against the kinds the
 * tool's own description says it does; or another tool that fits the description clearly better.
 */
/** Whether a step's description holds a content word of the tool's name, past its first verb (its subject). */
const namesItsSubject = (description: string, tool: ToolInfo) => {
  const subject = new Set(words(tool.name.replace(/[._-]+/g, " ")).map(stem))
  return words(description).slice(1).some((w) => subject.has(stem(w)))
}

const doSay = (s: PlanLike["steps"][number], tools: ReadonlyMap<string, ToolInfo>): Array<Found> => {
  if (!s.tool) return []
  const tool = tools.get(s.tool)
  if (!tool) return []
  const mismatch = (description: string, repair: string) => [
    issue("do_say_mismatch", "HIGH", s.stepId, description, repair)
  ]
  const named = [...tools.keys()].find((n) => n !== s.tool && n.length > 3 && namePattern(n).test(s.description))
  if (named) {
    return mismatch(`step ${s.stepId} says it uses ${named} but calls ${s.tool}`, `use ${named} or reword the step`)
  }
  const said = expressionIn(s.description)
  const given = inputExpressions(s.toolInput)
  if (said && given.length > 0 && !given.some((g) => sameValue(valueOf(g)!, valueOf(said) ?? Number.NaN))) {
    return mismatch(
      `step ${s.stepId} says it computes ${said} but ${s.tool} is given ${given[0]}`,
      "make the tool input match the description"
    )
  }
  const does = toolActions(tool)
  // judged by what the input does: an expression given to a computing tool, for a step that names numbers and asks
  // for what arithmetic can do (convert a rate, a unit), is computation whatever the verb
  const asked = stepAction(s.description)
  const kind = asked !== undefined && NUMERIC_KINDS.has(asked) && given.length > 0 && does.has("compute") &&
      /\d/.test(s.description)
    ? "compute"
    : asked
  const others = [...tools.values()].filter((t) => t.name !== s.tool)
  // a step that asks for what the tool's own name says it is about ("Get the weather forecast" of weather_forecast)
  // asks for its work, whatever its verb: "get" of a tool that forecasts is no mismatch
  if (
    kind !== undefined && !WEAK_KINDS.has(kind) && does.size > 0 && !does.has(kind) &&
    !namesItsSubject(s.description, tool)
  ) {
    const instead = others.find((t) => toolActions(t).has(kind))
    return mismatch(
      `step ${s.stepId} asks to ${kind} but ${s.tool} does not (it ${[...does].join(", ")}s)${
        instead ? `; ${instead.name} does` : ""
      }`,
      instead ? `use ${instead.name} or reword the step` : "use a tool that does what the step says"
    )
  }
  const own = fit(s.description, tool, kind)
  const better = others.map((t) => [t, fit(s.description, t, kind)] as const).sort((a, b) => b[1] - a[1])[0]
  if (better && better[1] >= own + 2) {
    return mismatch(
      `step ${s.stepId} describes ${better[0].name}'s work ("${s.description}") but calls ${s.tool}`,
      `use ${better[0].name} or reword the step`
    )
  }
  return []
}

// ---- consistency (FR-040) --------------------------------------------------------------------

const consistency = (plan: PlanLike): Array<Found> => {
  const found: Array<Found> = []
  const byId = new Map(plan.steps.map((s) => [s.stepId, s]))
  for (const s of plan.steps) {
    for (const dep of s.dependencies) {
      const target = byId.get(dep)
      if (!target) {
        found.push(
          issue(
            "consistency",
            "HIGH",
            s.stepId,
            `step ${s.stepId} depends on ${dep}, which is not in the plan`,
            "remove the dependency or add the step"
          )
        )
      } else if (dep === s.stepId) {
        found.push(
          issue("consistency", "CRITICAL", s.stepId, `step ${s.stepId} depends on itself`, "remove the self-dependency")
        )
      } else if (target.stepIndex > s.stepIndex) {
        found.push(
          issue(
            "consistency",
            "MEDIUM",
            s.stepId,
            `step ${s.stepId} depends on ${dep}, which comes later in the plan`,
            "reorder the steps"
          )
        )
      }
    }
  }
  // cycles (longer than a self-dependency)
  const state = new Map<string, 1 | 2>()
  const reported = new Set<string>()
  const path: Array<string> = [] // the current chain of the depth-first walk (shared: no copy per step)
  const visit = (id: string): void => {
    if (state.get(id) === 2) return
    if (state.get(id) === 1) {
      const cycle = path.slice(path.indexOf(id))
      if (cycle.length > 1 && !cycle.some((c) => reported.has(c))) {
        // every step of the cycle is in it: each is reported (none of them can ever run)
        for (const c of cycle) {
          reported.add(c)
          found.push(
            issue("consistency", "CRITICAL", c, `dependency cycle: ${[...cycle, id].join(" → ")}`, "break the cycle")
          )
        }
      }
      return
    }
    state.set(id, 1)
    path.push(id)
    for (const dep of byId.get(id)?.dependencies ?? []) if (byId.has(dep) && dep !== id) visit(dep)
    path.pop()
    state.set(id, 2)
  }
  for (const s of plan.steps) visit(s.stepId)
  return found
}

/** A tool input's references to earlier results (`{{s1}}`) must name a step the step depends on, directly or not. */
const references = (plan: PlanLike): Array<Found> => {
  const byId = new Map(plan.steps.map((s) => [s.stepId, s]))
  const found: Array<Found> = []
  for (const s of plan.steps) {
    const paths = referencesIn(s.toolInput)
    if (paths.length === 0) continue
    const upstream = transitiveDependencies(s.stepId, (id) => byId.get(id)?.dependencies ?? [])
    const said = new Set<string>()
    for (const path of paths) {
      const ref = splitReference(path, (id) => byId.has(id))
      const problem = !ref
        ? `step ${s.stepId}'s tool input refers to {{${path}}}, which names no step of the plan`
        : !upstream.has(ref.stepId)
        ? `step ${s.stepId}'s tool input uses the result of ${ref.stepId} ({{${path}}}) but does not depend on it`
        : undefined
      if (problem === undefined || said.has(problem)) continue
      said.add(problem)
      found.push(
        issue(
          "consistency",
          "HIGH",
          s.stepId,
          problem,
          ref ? `add ${ref.stepId} to the dependencies of ${s.stepId}` : "refer to an earlier step by its id"
        )
      )
    }
  }
  return found
}

type Step = PlanLike["steps"][number]

/**
 * A step's own findings (its tool's existence and fit, its wording), remembered for a run's tool list by what the
 * step says and calls: a plan is checked at every validation and at every refinement action, its steps mostly the same.
 * Remembered, each step is checked once a run; checked afresh each time (six times a step in a run of bench row 6's
 * 100 × 3 loop), checkPlan was a visible part of that loop's CPU profile (the do/say check most of it).
 */
const stepChecks = memoizeWeak((tools: ReadonlyArray<ToolInfo>) => {
  const byName = new Map(tools.map((t) => [t.name, t]))
  const check = memoize((key: string) => {
    const s = JSON.parse(key) as Step
    return { tooling: [...hallucination(s, byName), ...doSay(s, byName)], vague: specificity(s) }
  }, { maxKeyLength: 20_000 })
  // a step object seen before (the plan's steps are kept while their events do not change) skips the key's JSON
  const seen = new WeakMap<Step, ReturnType<typeof check>>()
  return (s: Step) => {
    let found = seen.get(s)
    if (found === undefined) {
      found = check(
        JSON.stringify({ stepId: s.stepId, description: s.description, tool: s.tool, toolInput: s.toolInput })
      )
      seen.set(s, found)
    }
    return found
  }
})

/** Every deterministic check on a plan; no model needed. */
export const checkPlan = (plan: PlanLike, tools: ReadonlyArray<ToolInfo>): Array<Found> => {
  const own = plan.steps.map(stepChecks(tools))
  const vague = own.flatMap((c) => c.vague)
  return [
    ...consistency(plan),
    ...references(plan),
    ...own.flatMap((c) => c.tooling),
    ...vague,
    ...relevance(
      plan,
      tools,
      new Set(vague.flatMap((v) => (v.location?.stepId === undefined ? [] : [v.location.stepId])))
    )
  ]
}
