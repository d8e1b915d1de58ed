import type { RunEvent } from "../domain/RunEvent.js"
import { sortedKeys } from "../support/SortedKeys.js"

type ToolInvoked = Extract<RunEvent, { _tag: "ToolInvoked" }>

/** A tool call's identity within a run: the tool and its input, the input's keys in order (a plan may reorder them). */
export const callKey = (tool: string, input: unknown) => `${tool}\u0000${JSON.stringify(sortedKeys(input ?? null))}`

/** The calls a run made, by `callKey`: the first that succeeded of each, and the last failure of each. */
export interface CallsMade {
  readonly callsMade: Map<string, ToolInvoked>
  readonly callsFailed: Map<string, ToolInvoked>
}

/** A call noted (a result reused from an earlier call is not a call made). */
export const noteCall = (calls: CallsMade, e: ToolInvoked) => {
  const key = callKey(e.tool, e.input)
  if (e.error !== undefined) calls.callsFailed.set(key, e)
  else if (e.reusedFrom === undefined && !calls.callsMade.has(key)) calls.callsMade.set(key, e)
}
