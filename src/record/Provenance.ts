/**
 * Where a run's values come from, as its log says it (issue 70): what a person or the operator gave (trusted: the
 * task, the instructions, guidance, a person's edits), which tool results came from outside the run (untrusted: a
 * tool that reads the outside world), and when each step was last defined. The rule that holds a call steered by
 * untrusted data (`steering`) is decided from this fold alone, so a replay or another process decides it the same.
 */
import { Either } from "effect"
import type { PlanStep } from "../domain/Plan.js"
import type { RunEvent } from "../domain/RunEvent.js"
import { allows, type UntrustedPolicy } from "../domain/UntrustedPolicy.js"
import { fieldOf } from "../support/Fields.js"
import { callKey } from "./Calls.js"
import { referencesIn, resolveReferences, splitReference } from "./References.js"

export interface Provenance {
  /** The seq of the first tool result that came from outside the run. */
  untrustedSince?: number | undefined
  /** Tool steps whose latest result came from outside the run. */
  readonly fromOutside: Set<string>
  /** When each step was last written: the seq of the plan or refinement that wrote it (a person's edit: 0, trusted). */
  readonly definedAt: Map<string, number>
  /** When each step last started. */
  readonly startedAt: Map<string, number>
  /** Each step of the plan as last stated, as its definition's text (what a refinement changed is what differs). */
  definitions: Map<string, string>
  /** What a person or the operator said, lower-cased: an argument found in it is theirs, whatever carried it. */
  readonly trusted: Array<string>
  /** The run's tool outputs are trusted (its input's `toolOutputs: TRUSTED`, AEON_TOOL_OUTPUTS=trusted). */
  trustsToolOutputs: boolean
  /** What the operator allows arguments to take from untrusted data (the run's first event says it). */
  policy?: UntrustedPolicy | undefined
}

export const emptyProvenance = (): Provenance => ({
  fromOutside: new Set(),
  definedAt: new Map(),
  startedAt: new Map(),
  definitions: new Map(),
  trusted: [],
  trustsToolOutputs: false
})

const definitionOf = (s: PlanStep) =>
  JSON.stringify([s.description, s.tool ?? null, s.toolInput ?? null, s.dependencies])

/** The steps a plan states, each marked defined at `seq` when it is new or differs from what was stated before. */
const restate = (p: Provenance, steps: ReadonlyArray<PlanStep>, seq: number) => {
  const next = new Map<string, string>()
  for (const s of steps) {
    const text = definitionOf(s)
    next.set(s.stepId, text)
    if (p.definitions.get(s.stepId) !== text) p.definedAt.set(s.stepId, seq)
  }
  p.definitions = next
}

export const applyProvenance = (p: Provenance, e: RunEvent): void => {
  switch (e._tag) {
    case "RunStarted":
      p.trusted.push(e.task.toLowerCase())
      if (e.instructions) p.trusted.push(e.instructions.toLowerCase())
      p.trustsToolOutputs = e.toolOutputs === "TRUSTED"
      p.policy = e.untrustedPolicy
      return
    case "GuidanceProvided":
      p.trusted.push(e.text.toLowerCase())
      return
    case "ApprovalAnswered":
      if (e.input !== undefined) p.trusted.push(JSON.stringify(e.input).toLowerCase())
      return
    case "PlanCreated":
      // a new attempt's plan: every step is written anew (after untrusted data, it was planned having read it)
      p.definitions = new Map()
      return restate(p, e.plan.steps, e.seq)
    case "RefinementApplied":
      // a person's edit of the plan is theirs (trusted); the planner's refinement is written at its seq
      return restate(p, e.plan.steps, e.requestId !== undefined ? 0 : e.seq)
    case "StepStarted":
      p.startedAt.set(e.stepId, e.seq)
      return
    case "ToolInvoked":
      if (e.untrusted === true && e.output !== undefined) {
        p.untrustedSince ??= e.seq
        p.fromOutside.add(e.stepId)
      } else if (e.output !== undefined) p.fromOutside.delete(e.stepId)
      return
  }
}

/** Whether a step's result carries untrusted data: a tool's from outside, or a step that ran after such data came. */
const untrustedStep = (p: Provenance, step: PlanStep | undefined) =>
  step !== undefined && p.untrustedSince !== undefined &&
  (p.fromOutside.has(step.stepId) ||
    (step.tool === undefined && (p.startedAt.get(step.stepId) ?? 0) > p.untrustedSince))

/** Whether a value is what a person or the operator said (found in their words). */
const saidByPerson = (p: Provenance, value: unknown) => {
  const text = (typeof value === "string" ? value : JSON.stringify(value) ?? "").trim().toLowerCase()
  return text.length > 0 && p.trusted.some((t) => t.includes(text))
}

export interface Steering {
  /** Why the call is held, in words. */
  readonly reason: string
  /** The steps whose untrusted results steered it. */
  readonly sources: ReadonlyArray<string>
}

/** The call's arguments: each top-level field of its input with the template it came from (the whole, if no object). */
const argumentsOf = (template: unknown, input: unknown): Array<readonly [string, unknown, unknown]> =>
  template !== null && typeof template === "object" && !Array.isArray(template) &&
    input !== null && typeof input === "object" && !Array.isArray(input)
    ? Object.entries(template).map(([name, t]) => [name, t, fieldOf(input, name)] as const)
    : [["", template, input] as const]

/**
 * Whether a call with side effects was steered by untrusted data: (a) its step was written by the planner after
 * untrusted data entered the run, or (b) an argument's value comes from an untrusted step's result and is nowhere in
 * what a person or the operator said. An argument the run's policy allows to come from untrusted data steers nothing
 * (a call planned after untrusted data is held unless the policy allows every argument). Undefined: the task's own.
 */
export const steering = (
  p: Provenance,
  step: PlanStep,
  steps: ReadonlyArray<PlanStep>,
  toolOutputs: Readonly<Record<string, unknown>>,
  input: unknown
): Steering | undefined => {
  if (p.trustsToolOutputs || p.untrustedSince === undefined) return undefined
  const tool = step.tool ?? ""
  const byId = new Map(steps.map((s) => [s.stepId, s]))
  const outside = [...p.fromOutside].sort()
  const allowed = (name: string, value: unknown) => allows(p.policy, tool, name, value)
  const args = argumentsOf(step.toolInput, input)
  // an input a model rewrote (a repair of a refused input) after untrusted data came is as if planned then
  const template = resolveReferences(step.toolInput, steps, toolOutputs)
  const rewritten = Either.isRight(template) && callKey("", template.right) !== callKey("", input) &&
    !saidByPerson(p, input)
  if (rewritten || (p.definedAt.get(step.stepId) ?? 0) > p.untrustedSince) {
    const held = args.filter(([name, , value]) => !allowed(name, value)).map(([name]) => name)
    if (args.length > 0 && held.length === 0) return undefined
    return {
      reason: `untrusted input: step ${step.stepId} was ${rewritten ? "rewritten" : "planned"} after the results of ${
        outside.join(", ")
      } came from outside the run`,
      sources: outside
    }
  }
  const sources = new Set<string>()
  for (const [name, template, value] of args) {
    const tainted = referencesIn(template).flatMap((path) => {
      const ref = splitReference(path, (id) => byId.has(id))
      return ref && untrustedStep(p, byId.get(ref.stepId)) ? [ref.stepId] : []
    })
    if (tainted.length === 0 || saidByPerson(p, value) || allowed(name, value)) continue
    for (const id of tainted) sources.add(id)
  }
  if (sources.size === 0) return undefined
  const from = [...sources].sort()
  return {
    reason: `untrusted input: an argument of step ${step.stepId} comes from ${
      from.join(", ")
    }, whose result came from outside the run, and is not in the task`,
    sources: from
  }
}

/** The steps whose results came from outside the run, for a model to be told they are data (none when trusted). */
export const untrustedSteps = (p: Provenance): Array<string> => (p.trustsToolOutputs ? [] : [...p.fromOutside].sort())
