import { Effect, Either, Option, Schema } from "effect"
import type { BudgetInput } from "../domain/Budget.js"
import { InvalidRunInputError, RunNotFoundError } from "../domain/Errors.js"
import type { RunEvent, RunEventBody } from "../domain/RunEvent.js"
import * as LanguageModel from "../llm/LanguageModel.js"
import * as Offline from "../llm/Offline.js"
import { editPlan } from "../planning/PlanEdit.js"
import { attemptPlan } from "../record/Attempt.js"
import {
  beginsRun,
  foldEvents,
  pendingApprovals,
  pendingGuidance,
  reachesEnd,
  type RunRecord
} from "../record/RunRecord.js"
import { RunStore } from "../store/RunStore.js"
import { extend } from "../support/Extend.js"
import * as ToolRegistry from "../tools/ToolRegistry.js"
import { toolInfos } from "../validation/SemanticValidator.js"
import { withoutTriggers } from "./InputGuard.js"
import { progressOf } from "./Recovery.js"
import { prepareResume } from "./Run.js"
import { decodeRunInput, RunTaskInput } from "./RunInput.js"

/** What a fork may change at its fork point. */
export interface ForkChanges {
  /** Caps merged over the source's budget. */
  readonly budget?: BudgetInput | undefined
  /** The answer to the approval request open at the fork point (another than the one given). */
  readonly approval?: { readonly decision: "APPROVE" | "REJECT"; readonly reason?: string | undefined } | undefined
  /** The answer to the guidance request open at the fork point. */
  readonly guidance?: string | undefined
  /**
   * Edits of the plan as it stands at the fork point (a pass's end): the planner's refinement actions
   * (planning/PlanEdit), validated as the planner's are; the next pass runs the edited plan.
   */
  readonly planEdits?: ReadonlyArray<unknown> | undefined
  /**
   * The model the fork's live calls go to (the calls that differ from the recordings): one of the models this
   * server is configured with, by its label (an AEON_MODELS entry, the single model, or `offline`).
   */
  readonly model?: string | undefined
}

const refused = (message: string) => new InvalidRunInputError({ message })

/** Why a fork is refused: an unknown run, a bad fork point or change, the store. */
export type ForkError = Effect.Effect.Error<ReturnType<typeof create>>

/** The answers the changes give to what the run asked and had not been answered at the fork point. */
const answersAt = (
  prefix: ReadonlyArray<RunEvent>,
  atSeq: number,
  changes: ForkChanges,
  by: string | undefined,
  tools: ToolRegistry.Service
) => {
  const record = foldEvents(prefix)
  const bodies: Array<RunEventBody> = []
  if (changes.approval) {
    const open = pendingApprovals(record)
    const [only] = open
    if (only === undefined || open.length !== 1) {
      return Effect.fail(
        refused(`no approval request is open at seq ${atSeq} (${open.length} are): fork at an ApprovalRequested event`)
      )
    }
    bodies.push({
      _tag: "ApprovalAnswered",
      requestId: only.requestId,
      decision: changes.approval.decision,
      ...(changes.approval.reason ? { reason: changes.approval.reason } : {}),
      ...(by ? { by } : {})
    })
  }
  if (changes.guidance !== undefined) {
    const open = pendingGuidance(record)
    const [only] = open
    if (only === undefined || open.length !== 1) {
      return Effect.fail(refused(`no guidance request is open at seq ${atSeq}: fork at a GuidanceRequested event`))
    }
    bodies.push({
      _tag: "GuidanceProvided",
      requestId: only.requestId,
      text: changes.guidance,
      ...(by ? { by } : {})
    })
  }
  if (changes.planEdits !== undefined) {
    const edited = editedPlan(record, atSeq, changes.planEdits, tools)
    if (Either.isLeft(edited)) return Effect.fail(refused(edited.left))
    bodies.push(edited.right)
  }
  return Effect.succeed(bodies)
}

/** A model a fork may change to: one this server is configured with. */
const checkModel = (label: string) =>
  Effect.gen(function*() {
    const model = yield* Effect.serviceOption(LanguageModel.LanguageModel)
    if (Option.isNone(model)) return yield* refused("no model is configured here to change to")
    if (LanguageModel.configured(model.value, label, Offline.service)) return
    return yield* refused(
      `model ${JSON.stringify(label)} is not configured here: one of ${
        LanguageModel.configuredLabels(model.value, Offline.service).join(", ")
      }`
    )
  })

/** The plan at the fork point (a pass's end) with the edits applied, as the refinement that applies them. */
const editedPlan = (
  record: RunRecord,
  atSeq: number,
  edits: ReadonlyArray<unknown>,
  tools: ToolRegistry.Service
): Either.Either<RunEventBody, string> => {
  const a = record.attempt
  const at = a && progressOf(record, record.started?.mode ?? "FULL").attempt?.resume
  if (!a || at?.stage !== "boundary" || a.lastFinished === undefined) {
    return Either.left(
      `a plan edit applies between passes: fork at a PassFinished event, before the run converged (seq ${atSeq} is not)`
    )
  }
  return Either.map(editPlan(attemptPlan(a), edits, toolInfos(tools.tools)), ({ actions, plan }) => ({
    _tag: "RefinementApplied",
    passNumber: a.lastFinished!,
    actions,
    plan,
    advisories: [`the plan was edited at the fork (${actions.length} edit${actions.length === 1 ? "" : "s"})`]
  }))
}

/**
 * A new run whose log begins with `sourceId`'s events up to `atSeq`: `RunForked` first, then the copies (its id, its
 * sequence, their times moved so that the last one is now, the budget of its RunStarted the fork's), then the answers
 * the changes give. Stored with the fork's input (the source's, its budget changed) for `userId`, not started: it
 * resumes as a restarted run does (Run.prepareResume), its model calls answered from the source's recordings until
 * one differs. The source is not touched.
 */
export const create = (
  sourceId: string,
  atSeq: number,
  changes: ForkChanges = {},
  options: { readonly userId?: string | undefined } = {}
) =>
  Effect.gen(function*() {
    const store = yield* RunStore
    const tools = yield* ToolRegistry.ToolRegistry
    const row = yield* store.getRun(sourceId)
    if (Option.isNone(row)) return yield* new RunNotFoundError({ runId: sourceId })
    const events = yield* store.events(sourceId)
    const started = events.find(beginsRun)
    const last = events.at(-1)
    if (!started || !last) return yield* refused(`run ${sourceId} has not started: there is nothing to fork`)
    if (!Number.isInteger(atSeq) || atSeq < started.seq || atSeq > last.seq) {
      return yield* refused(
        `atSeq must be an event of run ${sourceId} from its RunStarted on: ${started.seq} to ${last.seq} (was ${atSeq})`
      )
    }
    const prefix = events.filter((e) => e.seq <= atSeq && e._tag !== "RunForked")
    const changed = Object.entries(changes).filter(([, v]) => v !== undefined).map(([k]) => k)
    if (reachesEnd(prefix) && changed.length > 0) {
      return yield* refused(`run ${sourceId} ended at seq ${atSeq}: fork before its RunFinished to change it`)
    }
    const source = yield* decodeRunInput(withoutTriggers(row.value.input), tools.names)
    const encoded = Schema.encodeSync(RunTaskInput)(source)
    const input = yield* decodeRunInput({
      ...encoded,
      ...(changes.budget ? { budget: { ...encoded.budget, ...changes.budget } } : {}),
      runId: undefined,
      userId: options.userId ?? source.userId
    }, tools.names)
    const runId = crypto.randomUUID()
    const now = Date.now()
    const shift = now - (prefix.at(-1)?.at ?? now)
    const answers = yield* answersAt(prefix, atSeq, changes, options.userId, tools)
    if (changes.model !== undefined) yield* checkModel(changes.model)
    const copies = prefix.map((e, i): RunEvent =>
      extend(e._tag === "RunStarted" ? { ...e, budget: input.budget } : e, {
        runId,
        seq: i + 2,
        at: e.at + shift
      }) as RunEvent
    )
    const forked = {
      _tag: "RunForked",
      runId,
      seq: 1,
      at: copies[0]?.at ?? now,
      from: sourceId,
      atSeq,
      copied: copies.length,
      changed,
      ...(changes.model !== undefined ? { model: changes.model } : {})
    } as RunEvent
    const answered = answers.map((b, i) => extend(b, { runId, seq: copies.length + 2 + i, at: now }) as RunEvent)
    const log = [forked, ...copies, ...answered]
    yield* store.createRun({
      id: runId,
      userId: input.userId,
      task: input.task,
      mode: input.mode,
      input: Schema.encodeSync(RunTaskInput)(input),
      status: "RUNNING",
      allowBusyUser: true
    })
    yield* store.append(log, reachesEnd(log) ? log : undefined)
    // the fork's log and its source's, for a caller that goes on to run it (no second read of either)
    return { runId, log, source: events }
  })

/** Forks `sourceId` at `atSeq` (see `create`) and sets the fork up to run: `execute` runs it to its end. */
export const fork = (
  sourceId: string,
  atSeq: number,
  changes: ForkChanges = {},
  options: { readonly userId?: string | undefined } = {}
) =>
  Effect.flatMap(
    create(sourceId, atSeq, changes, options),
    ({ log, runId, source }) => prepareResume(runId, { known: { past: log, source } })
  )
