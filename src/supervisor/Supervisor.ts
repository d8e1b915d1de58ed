import { Effect, JSONSchema, ParseResult, Ref, Schema } from "effect"
import { jsonrepair } from "jsonrepair"
import { isRunHalt, type RunHalt } from "../domain/Errors.js"
import { answerOf, decodeAnswer } from "../llm/LanguageModel.js"
import { isModelFailure, type Llm } from "../llm/Llm.js"
import { ModelDecodeError } from "../llm/ModelErrors.js"
import { Contracts, type PromptContract } from "../prompts/PromptRegistry.js"
import type { PlanOutput } from "../prompts/Schemas.js"
import { traced } from "../telemetry/Span.js"
import type { Tool } from "../tools/ToolRegistry.js"

export const MAX_REPAIR_ATTEMPTS = 2

/** Repair gave up; the caller decides what that means (fail the step, keep the plan, …). */
export class RepairFailedError extends Schema.TaggedError<RepairFailedError>()("RepairFailedError", {
  what: Schema.String,
  message: Schema.String
}) {}

export interface Repaired<A> {
  readonly value: A
  /** How it was repaired: "local" (JSON repair library) or "model" (repair prompt), with the attempt. */
  readonly via: string
}

export interface Service {
  /** Local repair first (jsonrepair), then the JSON repair prompt carrying the decode error, at most 2 attempts. */
  readonly repairAnswer: <O>(
    contract: PromptContract<any, O>,
    error: ModelDecodeError,
    llm: Llm
  ) => Effect.Effect<Repaired<O>, RepairFailedError | RunHalt>
  /** A tool input that failed to decode, repaired through the tool-call prompt and decoded again. */
  readonly repairToolInput: (
    tool: Tool,
    badInput: unknown,
    decodeError: string,
    llm: Llm
  ) => Effect.Effect<Repaired<unknown>, RepairFailedError | RunHalt>
  /** A plan that breaks a structural rule, regenerated through the plan repair prompt. */
  readonly repairPlan: (
    request: string,
    plan: unknown,
    violation: string,
    check: (p: PlanOutput) => string | undefined,
    llm: Llm
  ) => Effect.Effect<Repaired<PlanOutput>, RepairFailedError | RunHalt>
  /** A step naming a tool that does not exist: an existing replacement, or none (the caller marks the step invalid). */
  readonly replaceMissingTool: (
    stepDescription: string,
    missingTool: string,
    tools: ReadonlyArray<string>,
    llm: Llm
  ) => Effect.Effect<{ readonly replacement: string | undefined; readonly justification: string }, RunHalt>
}

const attempts = <A>(
  what: string,
  attempt: (
    n: number,
    lastError: string
  ) => Effect.Effect<
    A,
    ModelDecodeError | RepairFailedError | RunHalt | { readonly _tag: string; readonly message: string }
  >,
  firstError: string
): Effect.Effect<Repaired<A>, RepairFailedError | RunHalt> =>
  Effect.gen(function*() {
    // each attempt sees its number and the error the one before it got
    const last = yield* Ref.make({ n: 1, error: firstError })
    const once = Effect.flatMap(Ref.get(last), ({ error, n }) =>
      attempt(n, error).pipe(
        Effect.map((value) => ({ value, via: `model#${n}` })),
        Effect.tapError((e) => Ref.set(last, { n: n + 1, error: e.message }))
      ))
    return yield* once.pipe(
      // a refused call (the budget) or a failed provider ends the repair at once; anything else is tried again, up
      // to the limit
      Effect.retry({ times: MAX_REPAIR_ATTEMPTS - 1, while: (e) => !isRunHalt(e) }),
      Effect.mapError((e): RepairFailedError | RunHalt =>
        isRunHalt(e)
          ? e
          : new RepairFailedError({
            what,
            message: `${MAX_REPAIR_ATTEMPTS} repair attempts failed; last error: ${e.message}`
          })
      )
    )
  })

export const repairAnswer: Service["repairAnswer"] = (contract, error, llm) => {
  const local = Effect.try({ try: () => jsonrepair(answerOf(error.raw)), catch: () => error }).pipe(
    Effect.flatMap((fixed) => decodeAnswer(contract, fixed))
  )
  return local.pipe(
    Effect.map((value) => ({ value, via: "local" })),
    Effect.catchAll(() =>
      attempts(`answer to ${contract.id}`, (_n, lastError) =>
        llm.generate(Contracts.repairJson, {
          raw: error.raw,
          decodeError: lastError,
          expectedSchema: JSONSchema.make(Schema.typeSchema(contract.output))
        }).pipe(Effect.flatMap(({ output }) => decodeAnswer(contract, output.repairedJson))), error.message)
    ),
    traced("Supervisor.repairAnswer", {
      captureStackTrace: false,
      attributes: { "aeon.prompt_id": contract.id }
    })
  )
}

export const repairToolInput: Service["repairToolInput"] = (tool, badInput, decodeError, llm) =>
  attempts(`input of tool ${tool.name}`, (_n, lastError) =>
    llm.generate(Contracts.repairToolCall, {
      tool: tool.name,
      toolDescription: tool.description,
      inputSchema: JSONSchema.make(Schema.encodedSchema(tool.input)),
      badInput,
      decodeError: lastError
    }).pipe(
      Effect.flatMap(({ output }) =>
        Schema.decodeUnknown(tool.input)(output.toolInput).pipe(
          Effect.as(output.toolInput),
          Effect.mapError((e) =>
            new RepairFailedError({ what: tool.name, message: ParseResult.TreeFormatter.formatErrorSync(e) })
          )
        )
      )
    ), decodeError).pipe(traced("Supervisor.repairToolInput", { captureStackTrace: false }))

export const repairPlan: Service["repairPlan"] = (request, plan, violation, check, llm) =>
  attempts(
    "plan",
    (_n, lastError) =>
      llm.generate(Contracts.repairPlan, { request, plan, violation: lastError }).pipe(
        Effect.flatMap(({ output }) => {
          const broken = check(output)
          return broken
            ? Effect.fail(new RepairFailedError({ what: "plan", message: broken }))
            : Effect.succeed(output)
        })
      ),
    violation
  ).pipe(traced("Supervisor.repairPlan", { captureStackTrace: false }))

export const replaceMissingTool: Service["replaceMissingTool"] = (stepDescription, missingTool, tools, llm) =>
  llm.generate(Contracts.repairMissingTool, { stepDescription, missingTool, tools: [...tools] }).pipe(
    Effect.map(({ output }) =>
      output.replacementTool && tools.includes(output.replacementTool)
        ? { replacement: output.replacementTool, justification: output.justification }
        : {
          replacement: undefined,
          justification: output.replacementTool
            ? `proposed tool ${output.replacementTool} does not exist either`
            : output.justification
        }
    ),
    Effect.catchIf(
      isModelFailure,
      (e) => Effect.succeed({ replacement: undefined, justification: `missing-tool repair failed (${e._tag})` })
    ),
    traced("Supervisor.replaceMissingTool", { captureStackTrace: false })
  )
