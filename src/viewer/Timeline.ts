/** What the viewer shows of a run's events as a timeline: passes, their phases, their steps, each with its times. */
export interface StreamedEvent {
  readonly seq: number
  readonly type: string
  readonly at: string
  readonly payload: Record<string, any>
}

export interface Span {
  readonly label: string
  readonly start: number
  end?: number | undefined
  status?: string | undefined
}

export interface PassLine extends Span {
  readonly passNumber: number
  readonly phases: Array<Span>
  readonly steps: Array<Span>
}

export const timeline = (events: ReadonlyArray<StreamedEvent>): Array<PassLine> => {
  const passes: Array<PassLine> = []
  const pass = (n: number, at: number) => {
    let p = passes.find((x) => x.passNumber === n)
    if (!p) passes.push(p = { passNumber: n, label: `pass ${n}`, start: at, phases: [], steps: [] })
    return p
  }
  const closePhase = (p: PassLine, at: number) => {
    const open = p.phases.at(-1)
    if (open && open.end === undefined) open.end = at
  }
  for (const e of events) {
    const at = Date.parse(e.at)
    const n = e.payload.passNumber as number | undefined
    switch (e.type) {
      case "PassStarted":
        pass(n!, at)
        break
      case "PhaseEntered": {
        const p = pass(n!, at)
        closePhase(p, at)
        p.phases.push({ label: e.payload.phase, start: at })
        break
      }
      case "StepStarted":
        pass(n!, at).steps.push({ label: e.payload.stepId, start: at })
        break
      case "StepFinished":
      case "StepAbandoned": {
        const step = pass(n!, at).steps.findLast((s) => s.label === e.payload.stepId && s.end === undefined)
        if (step) {
          step.end = at
          step.status = e.type === "StepAbandoned" ? "abandoned" : e.payload.status
        }
        break
      }
      case "PassFinished": {
        const p = pass(n!, at)
        closePhase(p, at)
        p.end = at
        break
      }
      case "RunFinished":
        for (const p of passes) {
          closePhase(p, at)
          p.end ??= at
        }
        break
    }
  }
  return passes
}
