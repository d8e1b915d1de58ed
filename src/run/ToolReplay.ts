import type { RunEvent } from "../domain/RunEvent.js"
import type { RecordedToolResult, Service as ToolRegistry } from "../tools/ToolRegistry.js"

/** A tool call as a run recorded it: its ToolInvoked event, when the call succeeded. */
export interface ToolRecording extends RecordedToolResult {
  readonly tool: string
  readonly input: string
}

/** The recorded tool calls of a run that succeeded, after `afterSeq`, in order (failed calls are made again). */
export const toolRecordingsOf = (events: ReadonlyArray<RunEvent>, afterSeq = 0): Array<ToolRecording> =>
  events.flatMap((e) =>
    e._tag === "ToolInvoked" && e.seq > afterSeq && e.error === undefined
      ? [{ tool: e.tool, input: JSON.stringify(e.input ?? null), output: e.output, memoryWrites: e.memoryWrites }]
      : []
  )

/**
 * The registry a fork runs with: a call with the same tool and the same input as a recorded one that succeeded is
 * answered with that recording (each once, in order), the tool not called again, for as long as the fork replays
 * (`replaying`: its model calls still match their recordings); from then on, and for any other call, the tools
 * themselves. `used`: the recordings this run already replayed (before a restart).
 */
export const replaying = (
  registry: ToolRegistry,
  recordings: ReadonlyArray<ToolRecording>,
  replaying: () => boolean,
  used: ReadonlyArray<{ readonly tool: string; readonly input: unknown }> = []
): ToolRegistry => {
  const left = [...recordings]
  const take = (tool: string, input: unknown) => {
    const key = JSON.stringify(input ?? null)
    const i = left.findIndex((r) => r.tool === tool && r.input === key)
    return i >= 0 ? left.splice(i, 1)[0] : undefined
  }
  for (const u of used) take(u.tool, u.input)
  const wrap = (inner: ToolRegistry): ToolRegistry => ({
    get tools() {
      return inner.tools
    },
    get names() {
      return inner.names
    },
    get: (name) => inner.get(name),
    invoke: (name, input, context) => inner.invoke(name, input, context),
    snapshot: () => wrap(inner.snapshot()),
    recorded: (name, input) => (replaying() ? take(name, input) : undefined)
  })
  return wrap(registry)
}
