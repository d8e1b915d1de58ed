import { Either, Predicate } from "effect"

/**
 * References to earlier results in a step's tool input: `{{s1}}` is step s1's result, `{{s1.a.b}}` a field of the
 * structured output of s1's tool. A string that is exactly one reference becomes the value itself (a number stays a
 * number); a reference inside a longer string is written into it as text (objects as JSON). Resolved when the step
 * runs, from completed steps; validation refuses a reference to a step that is not a (transitive) dependency.
 */
const REFERENCE = /\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g
const WHOLE = /^\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}$/

/** What a reference can read of a step. */
export interface ReferencedStep {
  readonly stepId: string
  readonly status: string
  readonly stepOutput: string
  readonly tool?: string | undefined
  readonly supersededBy?: string | undefined
  readonly subplan?: { readonly substeps: ReadonlyArray<ReferencedStep> } | undefined
}

/** The steps and, at any depth, their substeps (a substep's sibling reads it by its full id, s2.s1). */
const withSubsteps = (steps: ReadonlyArray<ReferencedStep>): Array<ReferencedStep> =>
  steps.flatMap((s) => [s, ...(s.subplan ? withSubsteps(s.subplan.substeps) : [])])

/** Every `{{…}}` path in the string values of a tool input (nested objects and arrays included). */
export const referencesIn = (input: unknown): Array<string> => {
  const found: Array<string> = []
  const walk = (v: unknown): void => {
    if (typeof v === "string") {
      for (const [, path] of v.matchAll(REFERENCE)) {
        if (path !== undefined) found.push(path)
      }
    } else if (Array.isArray(v)) v.forEach(walk)
    else if (v !== null && typeof v === "object") Object.values(v).forEach(walk)
  }
  walk(input)
  return found
}

/** The step a path names and the field after it: the longest dotted prefix that is a step id ("s2.r2.value"). */
export const splitReference = (
  path: string,
  isStep: (id: string) => boolean
): { readonly stepId: string; readonly field: ReadonlyArray<string> } | undefined => {
  const parts = path.split(".")
  for (let n = parts.length; n >= 1; n--) {
    const stepId = parts.slice(0, n).join(".")
    if (isStep(stepId)) return { stepId, field: parts.slice(n) }
  }
  return undefined
}

/**
 * The tool input with its references to renamed steps rewritten to their new ids (`{{s2}}` → `{{s2.r2}}`,
 * `{{s2.value}}` → `{{s2.r2.value}}`): what an edit that renames a step (its successor, a substep's full id) does to
 * the inputs that read it, as it does to their dependencies. `isStep` says which ids a path may start with.
 */
export const renameReferences = (
  input: unknown,
  renamed: ReadonlyMap<string, string>,
  isStep: (id: string) => boolean
): unknown => {
  if (renamed.size === 0 || referencesIn(input).length === 0) return input
  const walk = (v: unknown): unknown =>
    typeof v === "string"
      ? v.replace(REFERENCE, (whole, path: string) => {
        const ref = splitReference(path, isStep)
        const to = ref === undefined ? undefined : renamed.get(ref.stepId)
        return to === undefined ? whole : `{{${[to, ...ref!.field].join(".")}}}`
      })
      : Array.isArray(v)
      ? v.map(walk)
      : v !== null && typeof v === "object"
      ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]))
      : v
  return walk(input)
}

const isScalar = (v: unknown) => typeof v === "string" || typeof v === "number" || typeof v === "boolean"

/**
 * A step's result: its tool's output when that is a plain value, its `value` field when it is an object that has one
 * (the calculator's, memory.read's — the convention for a tool's main result), the whole output otherwise; for a step
 * without a tool, its output text.
 */
export const resultOf = (step: ReferencedStep, toolOutput: unknown): unknown => {
  if (toolOutput === undefined) return step.stepOutput
  if (isScalar(toolOutput)) return toolOutput
  if (toolOutput !== null && typeof toolOutput === "object" && "value" in toolOutput) {
    return toolOutput.value
  }
  return toolOutput
}

const asText = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v))

/**
 * The tool input with its references replaced by the results of completed steps, or why it cannot be (one line).
 * A reference to a superseded step reads its live successor.
 */
export const resolveReferences = (
  input: unknown,
  steps: ReadonlyArray<ReferencedStep>,
  toolOutputs: Readonly<Record<string, unknown>>
): Either.Either<unknown, string> => {
  if (referencesIn(input).length === 0) return Either.right(input)
  const byId = new Map(withSubsteps(steps).map((s) => [s.stepId, s]))
  const value = (path: string): Either.Either<unknown, string> => {
    const ref = splitReference(path, (id) => byId.has(id))
    if (!ref) return Either.left(`{{${path}}} names no step of the plan`)
    let step = byId.get(ref.stepId)
    for (let hops = 0; step?.supersededBy !== undefined && byId.has(step.supersededBy) && hops < 100; hops++) {
      step = byId.get(step.supersededBy)
    }
    if (step === undefined) return Either.left(`{{${path}}} names no step of the plan`)
    if (step.status !== "complete") return Either.left(`{{${path}}}: step ${step.stepId} has not completed`)
    const output = toolOutputs[step.stepId]
    if (ref.field.length === 0) return Either.right(resultOf(step, output))
    if (output === undefined || output === null || typeof output !== "object") {
      return Either.left(
        `{{${path}}}: step ${step.stepId} has no structured tool output to take ${ref.field.join(".")} from`
      )
    }
    let v: unknown = output
    for (const key of ref.field) {
      if (!Predicate.hasProperty(v, key)) {
        return Either.left(`{{${path}}}: the output of step ${step.stepId} has no field ${ref.field.join(".")}`)
      }
      v = v[key]
    }
    return Either.right(v)
  }
  const resolve = (v: unknown): Either.Either<unknown, string> => {
    if (typeof v === "string") {
      const whole = v.match(WHOLE)
      if (whole?.[1] !== undefined) return value(whole[1])
      let failure: string | undefined
      const text = v.replace(REFERENCE, (_, path: string) =>
        Either.match(value(path), {
          onLeft: (e) => ((failure ??= e), ""),
          onRight: asText
        }))
      return failure === undefined ? Either.right(text) : Either.left(failure)
    }
    if (Array.isArray(v)) return Either.all(v.map(resolve))
    if (v !== null && typeof v === "object") {
      return Either.map(
        Either.all(Object.entries(v).map(([k, x]) => Either.map(resolve(x), (r) => [k, r] as const))),
        Object.fromEntries
      )
    }
    return Either.right(v)
  }
  return resolve(input)
}

/** The steps `stepId` depends on, directly or through others. */
export const transitiveDependencies = (
  stepId: string,
  dependencies: (id: string) => ReadonlyArray<string>
): Set<string> => {
  const seen = new Set<string>()
  const stack = [...dependencies(stepId)]
  for (let id = stack.pop(); id !== undefined; id = stack.pop()) {
    if (seen.has(id)) continue
    seen.add(id)
    stack.push(...dependencies(id))
  }
  return seen
}
