/**
 * A layered drawing of a plan's dependency graph, small enough to write here: each step in the column of its longest
 * chain of dependencies, rows in plan order. (Plans are small DAGs, at most a few dozen steps: a layout library such
 * as elkjs or dagre would add far more than it saves.)
 */
export interface GraphStep {
  readonly stepId: string
  readonly dependencies: ReadonlyArray<string>
}

export interface Placed<S> {
  readonly step: S
  readonly x: number
  readonly y: number
}

export const NODE = { width: 180, height: 54, gapX: 60, gapY: 18 } as const

export const layout = <S extends GraphStep>(steps: ReadonlyArray<S>) => {
  const byId = new Map(steps.map((s) => [s.stepId, s]))
  const column = new Map<string, number>()
  const depthOf = (id: string, seen: Set<string>): number => {
    const known = column.get(id)
    if (known !== undefined) return known
    if (seen.has(id)) return 0 // a cycle: validation reports it; drawn flat
    seen.add(id)
    const deps = byId.get(id)?.dependencies.filter((d) => byId.has(d)) ?? []
    const depth = deps.length === 0 ? 0 : 1 + Math.max(...deps.map((d) => depthOf(d, seen)))
    column.set(id, depth)
    return depth
  }
  const rows = new Map<number, number>()
  const placed: Array<Placed<S>> = steps.map((step) => {
    const c = depthOf(step.stepId, new Set())
    const r = rows.get(c) ?? 0
    rows.set(c, r + 1)
    return { step, x: c * (NODE.width + NODE.gapX), y: r * (NODE.height + NODE.gapY) }
  })
  const at = new Map(placed.map((p) => [p.step.stepId, p]))
  const edges = placed.flatMap((p) =>
    p.step.dependencies.flatMap((d) => {
      const from = at.get(d)
      return from ? [{ from, to: p }] : []
    })
  )
  const width = Math.max(0, ...placed.map((p) => p.x + NODE.width))
  const height = Math.max(0, ...placed.map((p) => p.y + NODE.height))
  return { placed, edges, width, height }
}
