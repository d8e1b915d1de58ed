import { describe, expect, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import * as D from "../../src/domain/index.js"
import { plan, step } from "../support/fixtures.js"

/** Decodes a broken instance and returns the error message (fails the test if it decodes). */
const brokenMessage = (schema: Schema.Schema<any, any>, value: unknown): string => {
  const r = Schema.decodeUnknownEither(schema)(value)
  if (Either.isRight(r)) throw new Error(`expected a decode failure for ${JSON.stringify(value)}`)
  return r.left.message
}

const report = (issues: Array<any>, over: object = {}) => ({ ...D.makeReport("v1", "plan", issues), ...over })
const issue = (id: string, type: D.IssueType, severity: D.Severity) => ({
  issueId: id,
  type,
  severity,
  description: "x"
})
const pass = (n: number, over: object = {}) => ({
  passNumber: n,
  phase: "EXECUTE",
  phases: ["EXECUTE"],
  planState: plan(1),
  executionResults: {},
  evaluationResults: {},
  refinementChanges: [],
  ttlRemaining: 1,
  timingInformation: { startTime: "2026-01-01T00:00:00Z", endTime: "2026-01-01T00:00:01Z", durationSeconds: 1 },
  ...over
})
const history = (passes: Array<any>, over: object = {}) => ({
  executionId: "r1",
  taskInput: "t",
  configuration: {},
  passes,
  finalResult: { converged: false, resultType: "ttl_expired", output: null, metadata: {} },
  overallStatistics: {
    totalPasses: passes.length,
    totalRefinements: 0,
    convergenceAchieved: false,
    totalTimeSeconds: 1
  },
  ...over
})
const profile = {
  profileVersion: 1,
  reasoningDepth: 3,
  informationSufficiency: 0.5,
  expectedToolUsage: "none",
  outputBreadth: "narrow",
  confidenceRequirement: "low",
  rawInference: "because"
}

describe("domain rules name the broken rule", () => {
  const cases: Array<[string, Schema.Schema<any, any>, unknown, string]> = [
    ["stepIndex 1-based", D.PlanStep, step("a", 0, 1), "stepIndex must be >= 1"],
    ["stepIndex <= totalSteps", D.PlanStep, step("a", 3, 2), "stepIndex 3 must be <= totalSteps 2"],
    [
      "BLOCKED needs invalid",
      D.PlanStep,
      step("a", 1, 1, { clarityState: "BLOCKED", status: "complete" }),
      "BLOCKED requires status invalid"
    ],
    ["clarity enum", D.PlanStep, { ...step("a", 1, 1), clarityState: "FOGGY" }, "FOGGY"],
    ["status enum", D.PlanStep, { ...step("a", 1, 1), status: "done" }, "done"],
    [
      "unique stepIndex",
      D.Plan,
      { goal: "g", steps: [step("a", 1, 2), step("b", 1, 2)] },
      "stepIndex 1 must be unique"
    ],
    ["unique stepId", D.Plan, { goal: "g", steps: [step("a", 1, 2), step("a", 2, 2)] }, "stepId a must be unique"],
    [
      "totalSteps = steps",
      D.Plan,
      { goal: "g", steps: [step("a", 1, 3)] },
      "must equal the number of steps in the plan"
    ],
    [
      "dependencies in plan",
      D.Plan,
      { goal: "g", steps: [step("a", 1, 1, { dependencies: ["zz"] })] },
      "depends on zz, which is not a step of the plan"
    ],
    ["subplan non-empty", D.Subplan, {
      parentStepId: "a",
      subplanGoal: "g",
      substeps: [],
      depthLevel: 1,
      createdBy: "recursive_planner"
    }, "substeps must be a non-empty array"],
    ["subplan depth <= 5", D.Subplan, {
      parentStepId: "a",
      subplanGoal: "g",
      substeps: [step("a.1", 1, 1)],
      depthLevel: 6,
      createdBy: "x"
    }, "depthLevel must be between 1 and 5"],
    ["passNumber >= 0", D.ExecutionPass, pass(-1), "passNumber must be >= 0"],
    ["ttlRemaining >= 0", D.ExecutionPass, pass(0, { ttlRemaining: -1 }), "ttlRemaining must be >= 0"],
    ["phase enum", D.ExecutionPass, pass(0, { phase: "DREAM" }), "DREAM"],
    [
      "timing order",
      D.ExecutionPass,
      pass(0, {
        timingInformation: { startTime: "2026-01-01T00:00:02Z", endTime: "2026-01-01T00:00:01Z", durationSeconds: 1 }
      }),
      "startTime must be before endTime"
    ],
    ["history non-empty", D.ExecutionHistory, history([]), "passes must be a non-empty array"],
    ["history ordered", D.ExecutionHistory, history([pass(1), pass(0)]), "passes must be ordered by passNumber"],
    [
      "history statistics",
      D.ExecutionHistory,
      history([pass(0)], {
        overallStatistics: { totalPasses: 3, totalRefinements: 0, convergenceAchieved: false, totalTimeSeconds: 1 }
      }),
      "totalPasses (3) must equal the number of passes (1)"
    ],
    [
      "MODIFY needs target",
      D.RefinementAction,
      { actionType: "MODIFY", newStep: step("a", 1, 1), justification: "j" },
      "targetStepId is required for MODIFY"
    ],
    ["ADD needs newStep", D.RefinementAction, { actionType: "ADD", justification: "j" }, "newStep is required for ADD"],
    [
      "justification",
      D.RefinementAction,
      { actionType: "REMOVE", targetStepId: "a", justification: " " },
      "justification must be a non-empty string"
    ],
    ["SUBPLAN_CREATE substeps", D.RefinementAction, {
      actionType: "SUBPLAN_CREATE",
      targetStepId: "a",
      justification: "j"
    }, "substeps (non-empty) are required"],
    ["reasonCodes non-empty", D.ConvergenceAssessment, {
      converged: true,
      reasonCodes: [],
      scores: { completenessScore: 1, coherenceScore: 1, consistencyStatus: {} },
      explanation: ""
    }, "reasonCodes must be a non-empty array"],
    ["scores in [0,1]", D.ConvergenceAssessment, {
      converged: true,
      reasonCodes: ["complete"],
      scores: { completenessScore: 1.5, coherenceScore: 1, consistencyStatus: {} },
      explanation: ""
    }, "completenessScore must be between 0.0 and 1.0"],
    ["failed criteria named", D.ConvergenceAssessment, {
      converged: false,
      reasonCodes: ["complete"],
      scores: { completenessScore: 1, coherenceScore: 1, consistencyStatus: {} },
      explanation: ""
    }, "must name the failed criteria"],
    [
      "overallSeverity",
      D.SemanticValidationReport,
      report([issue("i1", "relevance", "HIGH")], { overallSeverity: "LOW" }),
      "overallSeverity must equal the highest issue severity (HIGH)"
    ],
    [
      "issueSummary counts",
      D.SemanticValidationReport,
      report([issue("i1", "relevance", "LOW")], {
        issueSummary: { specificity: 0, relevance: 0, consistency: 0, hallucination: 0, do_say_mismatch: 0 }
      }),
      "issueSummary.relevance must equal"
    ],
    ["issue type enum", D.ValidationIssue, issue("i", "vibes" as any, "LOW"), "vibes"],
    ["issue severity enum", D.ValidationIssue, issue("i", "relevance", "SEVERE" as any), "SEVERE"],
    ["reasoningDepth 1..5", D.TaskProfile, { ...profile, reasoningDepth: 6 }, "reasoningDepth must be between 1 and 5"],
    [
      "sufficiency 0..1",
      D.TaskProfile,
      { ...profile, informationSufficiency: -0.1 },
      "informationSufficiency must be between 0.0 and 1.0"
    ],
    ["rawInference", D.TaskProfile, { ...profile, rawInference: "" }, "rawInference must be a non-empty string"],
    ["tool usage enum", D.TaskProfile, { ...profile, expectedToolUsage: "lots" }, "lots"],
    ["allocatedTtl <= cap", D.AdaptiveDepthConfiguration, {
      detectedComplexity: "low",
      allocatedTtl: 9,
      globalTtlCap: 5,
      reasoningMode: "deep",
      adjustmentReason: "r"
    }, "allocatedTtl 9 must be <= the global TTL cap 5"],
    ["adjustmentReason", D.AdaptiveDepthConfiguration, {
      detectedComplexity: "low",
      allocatedTtl: 1,
      globalTtlCap: 5,
      reasoningMode: "deep",
      adjustmentReason: ""
    }, "adjustmentReason must be a non-empty string"],
    ["ambiguity 0..1", D.AdaptiveDepthConfiguration, {
      detectedComplexity: "low",
      ambiguityScore: 2,
      allocatedTtl: 1,
      globalTtlCap: 5,
      reasoningMode: "deep",
      adjustmentReason: "r"
    }, "ambiguityScore must be between"],
    ["ttl converged false", D.TTLExpirationResponse, {
      converged: true,
      resultType: "ttl_expired",
      expirationPoint: "mid_phase",
      partialResult: { passNumber: 1, stepOutputs: {} },
      ttlExpiredMetadata: {
        completenessScore: 0,
        coherenceScore: 0,
        consistencyStatus: {},
        detectedIssues: [],
        reasonCodes: [],
        passNumber: 1
      },
      terminationReason: "ttl_expired"
    }, "converged"],
    ["phase_boundary needs latest", D.TTLExpirationResponse, {
      converged: false,
      resultType: "ttl_expired",
      expirationPoint: "phase_boundary",
      ttlExpiredMetadata: {
        completenessScore: 0,
        coherenceScore: 0,
        consistencyStatus: {},
        detectedIssues: [],
        reasonCodes: [],
        passNumber: 1
      },
      terminationReason: "ttl_expired"
    }, "latestPassResult must be present when expirationPoint is phase_boundary"],
    ["mid_phase needs partial", D.TTLExpirationResponse, {
      converged: false,
      resultType: "ttl_expired",
      expirationPoint: "mid_phase",
      ttlExpiredMetadata: {
        completenessScore: 0,
        coherenceScore: 0,
        consistencyStatus: {},
        detectedIssues: [],
        reasonCodes: [],
        passNumber: 1
      },
      terminationReason: "ttl_expired"
    }, "partialResult must be present"],
    ["answerText", D.FinalAnswer, { answerText: "" }, "answerText must be a non-empty string"],
    ["confidence", D.FinalAnswer, { answerText: "a", confidence: 2 }, "confidence must be between 0.0 and 1.0"],
    [
      "usedStepIds exist",
      D.FinalAnswerFor(["s1"]),
      { answerText: "a", usedStepIds: ["s9"] },
      "usedStepIds must name steps of the plan; unknown: s9"
    ],
    ["PhaseEInput timestamp", D.PhaseEInput, {
      request: "r",
      executionResults: [],
      planState: {},
      convergenceAssessment: {},
      correlationId: "c",
      executionStartTimestamp: "yesterday",
      convergenceStatus: false,
      totalPasses: 0,
      totalRefinements: 0,
      ttlRemaining: 0
    }, "executionStartTimestamp must be a valid ISO time"],
    ["PhaseEInput ttl", D.PhaseEInput, {
      request: "r",
      executionResults: [],
      planState: {},
      convergenceAssessment: {},
      correlationId: "c",
      executionStartTimestamp: "2026-01-01T00:00:00Z",
      convergenceStatus: false,
      totalPasses: 0,
      totalRefinements: 0,
      ttlRemaining: -1
    }, "ttlRemaining must be >= 0"],
    ["error iteration keeps messages", D.SimpleIterationRecord, {
      iteration: 1,
      changeSummary: "",
      testStatus: "error",
      failedTests: [],
      errorMessages: [],
      durationMs: 1,
      costUsd: 0
    }, "testStatus error must keep its error messages"],
    ["failed iteration names tests", D.SimpleIterationRecord, {
      iteration: 1,
      changeSummary: "",
      testStatus: "failed",
      failedTests: [],
      errorMessages: [],
      durationMs: 1,
      costUsd: 0
    }, "must name its failed tests"],
    ["summary records", D.FailureSummary, {
      totalIterations: 2,
      totalDurationMs: 0,
      totalCostUsd: 0,
      records: [],
      uniqueErrors: [],
      finalTestState: [],
      summary: "s"
    }, "totalIterations must equal the number of records"],
    ["escalation reason", D.EscalationEvent, {
      reason: "",
      iterationsRun: 0,
      remainingBudget: {},
      failureSummary: {
        totalIterations: 0,
        totalDurationMs: 0,
        totalCostUsd: 0,
        records: [],
        uniqueErrors: [],
        finalTestState: [],
        summary: "s"
      }
    }, "escalation reason must be non-empty"],
    ["reasoning step tool io", D.ReasoningStep, {
      stepNumber: 1,
      timestamp: "2026-01-01T00:00:00Z",
      thought: null,
      toolName: "calculator",
      toolInput: null,
      toolOutput: null,
      durationMs: 1,
      status: "success"
    }, "a successful tool step must have toolInput and toolOutput"],
    ["trace totalSteps", D.ReasoningTrace, {
      id: "t",
      sessionId: "s",
      steps: [],
      totalSteps: 2,
      createdAt: "2026-01-01T00:00:00Z"
    }, "totalSteps must equal the number of trace steps"],
    ["self dependency", D.TaskDependency, {
      sourceTaskId: "a",
      targetTaskId: "a",
      relationshipType: "blocks",
      confidence: 1,
      detectionMethod: "plan"
    }, "a task cannot depend on itself"],
    ["waves cover tasks", D.PrioritizedTaskPlan, {
      orderedTaskIds: ["a", "b"],
      executionWaves: [{ waveNumber: 1, taskIds: ["a"], parallelExecution: false, estimatedDurationHours: null }],
      dependencies: [],
      confidenceScores: { a: 1, b: 1 },
      synthesisSummary: ""
    }, "executionWaves must cover all orderedTaskIds"],
    ["confidence keys", D.PrioritizedTaskPlan, {
      orderedTaskIds: ["a"],
      executionWaves: [{ waveNumber: 1, taskIds: ["a"], parallelExecution: false, estimatedDurationHours: null }],
      dependencies: [],
      confidenceScores: { b: 1 },
      synthesisSummary: ""
    }, "confidenceScores keys must match orderedTaskIds"],
    ["session plan when completed", D.AgentSession, {
      id: "s",
      userId: "u",
      runId: "r",
      status: "completed",
      prioritizedPlan: null,
      executionMetadata: {
        stepsTaken: 0,
        toolCallCounts: {},
        thinkingTimeMs: 0,
        toolExecutionTimeMs: 0,
        totalTimeMs: 0,
        errorCount: 0,
        successRate: 0
      },
      createdAt: "2026-01-01T00:00:00Z",
      updatedAt: "2026-01-01T00:00:00Z"
    }, "prioritizedPlan is required when status is completed"],
    ["budget positive", D.Budget, { maxCostUsd: -1 }, "maxCostUsd must be greater than 0"]
  ]
  for (const [name, schema, value, message] of cases) {
    it(name, () => {
      expect(brokenMessage(schema, value)).toContain(message)
    })
  }

  it("valid instances decode", () => {
    expect(Schema.decodeUnknownSync(D.Plan)(plan(3)).steps).toHaveLength(3)
    expect(Schema.decodeUnknownSync(D.ExecutionHistory)(history([pass(0), pass(1)])).passes).toHaveLength(2)
    expect(Schema.decodeUnknownSync(D.Budget)({})).toEqual(D.DEFAULT_BUDGET)
    expect(
      Schema.decodeUnknownSync(D.SemanticValidationReport)(report([issue("i1", "relevance", "HIGH")])).overallSeverity
    ).toBe("HIGH")
  })
})

describe("step transitions", () => {
  const s = step("a", 1, 1)
  const go = (from: D.PlanStep, to: D.StepStatus) => D.transitionStep(from, to)
  it("allows pending → running → complete", () => {
    const running = Either.getOrThrow(go(s, "running"))
    expect(Either.getOrThrow(go(running, "complete")).status).toBe("complete")
  })
  it("allows running → failed and running → invalid", () => {
    const running = Either.getOrThrow(go(s, "running"))
    expect(Either.isRight(go(running, "failed"))).toBe(true)
    expect(Either.isRight(go(running, "invalid"))).toBe(true)
  })
  it("refuses pending → complete and complete → pending", () => {
    expect(Either.getLeft(go(s, "complete"))).toEqual(
      expect.objectContaining({ value: "step a: transition pending → complete is not allowed" })
    )
    const done = { ...s, status: "complete" as const, executed: true }
    expect(Either.isLeft(go(done, "pending"))).toBe(true)
  })
  it("invalid → pending only for steps never executed", () => {
    expect(Either.isRight(go({ ...s, status: "invalid" }, "pending"))).toBe(true)
    const ran = Either.getOrThrow(go(Either.getOrThrow(go(s, "running")), "invalid"))
    expect(Either.getLeft(go(ran, "pending"))).toEqual(
      expect.objectContaining({ value: "step a: invalid → pending is allowed only for steps never executed" })
    )
  })
  it("a BLOCKED step cannot complete", () => {
    const running = { ...Either.getOrThrow(go(s, "running")), clarityState: "BLOCKED" as const }
    expect(Either.isLeft(go(running, "complete"))).toBe(true)
  })
})

describe("RunEvent", () => {
  it("decodes every event kind of the union", () => {
    expect(D.RUN_EVENT_TAGS.length).toBe(D.RunEvent.members.length)
    const e = Schema.decodeUnknownSync(D.RunEvent)({
      _tag: "PhaseEntered",
      runId: "r",
      seq: 1,
      at: 0,
      passNumber: 1,
      phase: "EXECUTE"
    })
    expect(e._tag).toBe("PhaseEntered")
    expect(() => Schema.decodeUnknownSync(D.RunEvent)({ _tag: "Nope", runId: "r", seq: 1, at: 0 })).toThrow()
  })
})
