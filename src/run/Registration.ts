/**
 * A new run registered: its input decoded and checked (bad input: a clear, coded error and nothing stored), its input
 * guardrails applied, its files stored by their hash, its user's quota counted, and the run stored.
 */
import { Effect, Option, Schedule, Schema } from "effect"
import { type AgentNotFoundError, type AgentOverrideError, type InvalidAgentError } from "../agents/Agent.js"
import { agentRequest, runToolNames } from "../agents/AgentRequest.js"
import { Agents } from "../agents/Agents.js"
import {
  type AttachmentRefusedError,
  type InvalidOutputSchemaError,
  InvalidRunInputError,
  type QuotaExceededError,
  type ThreadBusyError
} from "../domain/Errors.js"
import { noWebhooks, webhookOf, WebhookSettings, type WebhookUrlNotAllowedError } from "../domain/Webhook.js"
import { LanguageModel } from "../llm/LanguageModel.js"
import { unenforceableCostCap } from "../llm/Pricing.js"
import { Quotas } from "../store/QuotaLedger.js"
import { type RunIdTakenError, RunStore, type StoreError, type UserBusyError } from "../store/RunStore.js"
import { scheduleOfTags } from "../store/Schedules.js"
import { fieldOf } from "../support/Fields.js"
import * as ToolRegistry from "../tools/ToolRegistry.js"
import { refuseUnreadable, storedAttachments } from "./Attachments.js"
import { guardInput, INPUT_TRIGGERS_KEY } from "./InputGuard.js"
import { decodeRunInput, resolvedAgentOf, RunTaskInput } from "./RunInput.js"
import { interruptTurn } from "./ThreadTurns.js"

/**
 * A client-chosen run id within a user's own namespace: two users choosing the same id get two runs, and no
 * answer tells one of them that the other's run exists. (A chosen id cannot hold ":", so it never collides.)
 */
export const scopedRunId = (userId: string, runId: string) => `${userId}:${runId}`

export interface RegisterOptions {
  readonly status?: "QUEUED" | "RUNNING"
  readonly queueBehindUser?: boolean
  /** The user a client-chosen runId belongs to: the run's id is `scope:runId` (ids are per user). */
  readonly idScope?: string | undefined
  /** A run of an agent called as a tool: the run that called it (its parent), and the id it gave the run. */
  readonly parentRunId?: string | undefined
  readonly runId?: string | undefined
}

/**
 * A cost cap asked for (not the default) on a model without a price would count every call as $0: refused, coded,
 * naming how to price the model, before anything is stored.
 */
const refuseUnenforceableCostCap = (rawInput: unknown) =>
  Effect.flatMap(Effect.serviceOption(LanguageModel), (model) => {
    const costCap = fieldOf(fieldOf(rawInput, "budget"), "maxCostUsd")
    const unpriced = Option.isSome(model) ? model.value.unpriced ?? [] : []
    return costCap !== undefined && costCap !== null && unpriced.length > 0
      ? Effect.fail(new InvalidRunInputError({ message: unenforceableCostCap(unpriced) }))
      : Effect.void
  })

/** How long a turn sent while the thread's last turn is ending waits for its end to be stored, before it is refused. */
const THREAD_BUSY_WAIT = Schedule.spaced("50 millis").pipe(Schedule.upTo("1 second"))

/**
 * The checks a run's input passes before anything is stored (bad input: a clear, coded error): decoded — with its
 * agent's definition, which gives what the request leaves out and bounds what it gives —, a cost cap that can be kept,
 * its files readable, its webhook to an allowed host. Also what a schedule's runs are checked by when it is made.
 */
export const checkedInput = (rawInput: unknown, options: { readonly child?: boolean } = {}) =>
  Effect.gen(function*() {
    const tools = yield* ToolRegistry.ToolRegistry
    const agents = Option.getOrUndefined(yield* Effect.serviceOption(Agents))
    const request = yield* agentRequest(rawInput, agents, tools.names)
    const decoded = yield* decodeRunInput(request, runToolNames(tools.names, agents))
    yield* refuseUnenforceableCostCap(request)
    yield* refuseUnreadable(decoded)
    // a webhook only to a host the operator allows (refused, coded, nothing stored)
    const settings = Option.getOrElse(yield* Effect.serviceOption(WebhookSettings), () => noWebhooks)
    const webhook = yield* webhookOf(decoded.webhook, settings, options.child === true)
    return { decoded, webhook }
  })

/** Decodes the input (bad input: a clear error, nothing stored) and stores the run, when there is a store. */
export const register = (rawInput: unknown, options: RegisterOptions = {}) =>
  Effect.gen(function*() {
    const { decoded, webhook } = yield* checkedInput(rawInput, { child: options.parentRunId !== undefined })
    const runId = options.runId !== undefined
      ? options.runId
      : decoded.runId === undefined
      ? crypto.randomUUID()
      : options.idScope !== undefined
      ? scopedRunId(options.idScope, decoded.runId)
      : decoded.runId
    // the input guardrails before anything is stored or sent: the run keeps the checked input
    const guarded = yield* guardInput(decoded, runId)
    // a file sent with the task is stored once, by its hash: the run's input names it
    const input = yield* storedAttachments(guarded.input)
    // the user's quota counts the run (refused, coded, when it has no room: nothing is stored)
    const quotas = yield* Effect.serviceOption(Quotas)
    if (Option.isSome(quotas)) yield* quotas.value.admitRun(input.userId)
    const store = yield* Effect.serviceOption(RunStore)
    let after: string | undefined
    if (Option.isSome(store)) {
      const onBusy = input.onBusy ?? "ENQUEUE"
      const created = yield* store.value.createRun({
        id: runId,
        userId: input.userId,
        task: input.task,
        mode: input.mode,
        input: {
          ...Schema.encodeSync(RunTaskInput)(input),
          ...(guarded.triggers.length > 0 ? { [INPUT_TRIGGERS_KEY]: guarded.triggers } : {})
        },
        status: options.status ?? "RUNNING",
        agent: resolvedAgentOf(input)?.name,
        parentRunId: options.parentRunId,
        // a run a schedule's tick started (runs/Scheduler tags it so)
        scheduleId: scheduleOfTags(input.tags),
        webhook,
        allowBusyUser: options.queueBehindUser ?? false,
        thread: input.threadId === undefined ? undefined : {
          owner: input.userId ?? "",
          id: input.threadId,
          whileBusy: onBusy === "REJECT" ? "REJECT" : "QUEUE"
        }
      }).pipe(
        // a turn whose end its client has just seen may not be stored as ended yet (its last events are written
        // a moment after they are applied): the next turn waits that moment before it is refused
        Effect.retry({ while: (e) => e._tag === "ThreadBusyError", schedule: THREAD_BUSY_WAIT })
      )
      // the turn under way: this one starts once it has ended (INTERRUPT: cancelled first)
      after = created.after
      if (after !== undefined && onBusy === "INTERRUPT") yield* interruptTurn(after)
    } else if (input.threadId !== undefined) {
      return yield* new InvalidRunInputError({
        message: "threadId needs a store to keep the thread in (the library: give it a database layer)"
      })
    }
    return { runId, input, inputTriggers: guarded.triggers, after }
  })

/** Why a new run is refused: its input, its id taken, its user busy or out of quota, its thread's turn under way, the store. */
export type StartError =
  | AttachmentRefusedError
  | InvalidRunInputError
  | InvalidOutputSchemaError
  | StoreError
  | UserBusyError
  | RunIdTakenError
  | QuotaExceededError
  | ThreadBusyError
  | AgentNotFoundError
  | AgentOverrideError
  | InvalidAgentError
  | WebhookUrlNotAllowedError
