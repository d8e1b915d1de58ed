/** `aeon inspect`: a run read where it is stored — through the server holding the data directory, else the store. */
import { Effect } from "effect"
import type { RunEvent } from "../domain/RunEvent.js"
import { llmCallsOf } from "../record/LlmCalls.js"
import { resultFromEvents } from "../record/RunResult.js"
import * as StoredRuns from "../runs/StoredRuns.js"
import * as Database from "../store/Database.js"
import { CliError } from "./CliError.js"
import { callsOnServer } from "./OnServer.js"
import { callsText, guardrailLines, historyTree, jsonResult, memoryLines } from "./Render.js"
import { eventsOnServer, serverHoldingDataDir } from "./ViaServer.js"

/** An event in a line: its seq, its type, and where in the run it happened. */
const eventLine = (e: RunEvent) => {
  const where = [
    "passNumber" in e ? `pass ${e.passNumber}` : undefined,
    "phase" in e ? e.phase : undefined,
    "stepId" in e ? `step ${e.stepId}` : undefined,
    "promptId" in e ? e.promptId : undefined,
    "tool" in e ? e.tool : undefined,
    e._tag === "RunFinished" ? e.status : undefined
  ].filter((x) => x !== undefined)
  return `${String(e.seq).padStart(4)}  ${e._tag}${where.length > 0 ? `  (${where.join(", ")})` : ""}`
}

/** A run's stored events: from the server holding the data directory, else the store. */
export const eventsOf = (runId: string) =>
  Effect.flatMap(serverHoldingDataDir, (server) =>
    server !== undefined
      ? eventsOnServer(server, runId)
      : Effect.provide(StoredRuns.runEvents(runId), Database.layerConfig))

/** A run's recorded model calls: from the server holding the data directory (the prompts are kept there), else the store. */
const callsOf = (runId: string) =>
  Effect.flatMap(serverHoldingDataDir, (server) =>
    server !== undefined
      ? callsOnServer(server, runId)
      : Effect.map(eventsOf(runId), (events) => (events === undefined ? undefined : llmCallsOf(events))))

const inspectCalls = (o: { readonly runId: string; readonly json: boolean }) =>
  Effect.map(callsOf(o.runId), (calls) => {
    if (calls === undefined) throw new CliError(`run ${o.runId} does not exist`)
    process.stdout.write(o.json ? `${JSON.stringify(calls, null, 2)}\n` : `${callsText(calls)}\n`)
  })

/** The run's guardrail triggers as `aeon inspect --json` gives them. */
const guardrailsOf = (events: ReadonlyArray<RunEvent>) =>
  events.flatMap((e) => {
    if (e._tag !== "GuardrailTriggered") return []
    const { at: _at, runId: _runId, seq: _seq, _tag, ...trigger } = e
    return [trigger]
  })

export const inspect = (
  o: { readonly runId: string; readonly json: boolean; readonly calls: boolean; readonly events: boolean }
) =>
  o.calls ? inspectCalls(o) : Effect.flatMap(eventsOf(o.runId), (events) =>
    Effect.sync(() => {
      if (events === undefined) throw new CliError(`run ${o.runId} does not exist`)
      if (o.events) {
        process.stdout.write(o.json ? `${JSON.stringify(events, null, 2)}\n` : `${events.map(eventLine).join("\n")}\n`)
        return
      }
      const result = resultFromEvents(events)
      const recalled = [...memoryLines(events), ...guardrailLines(events)]
      process.stdout.write(
        o.json
          ? `${JSON.stringify({ ...jsonResult(result), guardrails: guardrailsOf(events) }, null, 2)}\n`
          : `${[historyTree(result), ...recalled].join("\n")}\n`
      )
    }))
