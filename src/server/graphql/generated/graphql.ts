import type { GraphQLResolveInfo, GraphQLScalarType, GraphQLScalarTypeConfig } from 'graphql';
import type { RunModel } from '../../../runs/RunModel.js';
import type { EventView } from '../GraphQLViews.js';
import type { ThreadModel } from '../ThreadResolvers.js';
import type { ScheduleView } from '../ScheduleResolvers.js';
import type { GraphQLContext } from '../GraphQLContext.js';
export type Maybe<T> = T | null | undefined;
export type InputMaybe<T> = T | null | undefined;
export type Omit<T, K extends keyof T> = Pick<T, Exclude<keyof T, K>>;
export type RequireFields<T, K extends keyof T> = Omit<T, K> & { [P in K]-?: NonNullable<T[P]> };
/** All built-in and custom scalars, mapped to their actual values */
export type Scalars = {
  ID: { input: string; output: string; }
  String: { input: string; output: string; }
  Boolean: { input: boolean; output: boolean; }
  Int: { input: number; output: number; }
  Float: { input: number; output: number; }
  /** ISO 8601 date-time. */
  DateTime: { input: string; output: string; }
  /** Arbitrary JSON value. */
  JSON: { input: unknown; output: unknown; }
};

export type AdvisoryRaisedEvent = RunEvent & {
  __typename?: 'AdvisoryRaisedEvent';
  advisory: Scalars['String']['output'];
  at: Scalars['DateTime']['output'];
  passNumber: Scalars['Int']['output'];
  payload: Scalars['JSON']['output'];
  runId: Scalars['ID']['output'];
  seq: Scalars['Int']['output'];
  type: Scalars['String']['output'];
};

/** A named, versioned configuration of runs: its latest version's definition (or the version a run ran). */
export type Agent = {
  __typename?: 'Agent';
  approvalTools?: Maybe<Array<Scalars['String']['output']>>;
  budget?: Maybe<Scalars['JSON']['output']>;
  createdAt: Scalars['DateTime']['output'];
  description?: Maybe<Scalars['String']['output']>;
  guardrails?: Maybe<Scalars['JSON']['output']>;
  instructions?: Maybe<Scalars['String']['output']>;
  memory?: Maybe<Scalars['Boolean']['output']>;
  mode?: Maybe<RunMode>;
  model?: Maybe<AgentModel>;
  name: Scalars['String']['output'];
  outputSchema?: Maybe<Scalars['JSON']['output']>;
  /** Whose it is: null for the operator's (everyone's), else the user's. */
  owner?: Maybe<Scalars['ID']['output']>;
  tools?: Maybe<Array<Scalars['String']['output']>>;
  version: Scalars['Int']['output'];
  /** Every version, oldest first. */
  versions: Array<AgentVersion>;
};

/** An agent's whole definition (every field but the name optional). */
export type AgentInput = {
  approvalTools?: InputMaybe<Array<Scalars['String']['input']>>;
  /** Its caps: a request may lower them, never raise them. */
  budget?: InputMaybe<BudgetInput>;
  description?: InputMaybe<Scalars['String']['input']>;
  /** Guardrails per point (input, tool_call, tool_result, output), as RunTaskInput.guardrails. */
  guardrails?: InputMaybe<Scalars['JSON']['input']>;
  /** Operator text added to the system prompt of every plan and answer call of its runs (trusted). */
  instructions?: InputMaybe<Scalars['String']['input']>;
  /** false: its runs recall nothing and leave no memory. */
  memory?: InputMaybe<Scalars['Boolean']['input']>;
  mode?: InputMaybe<RunMode>;
  model?: InputMaybe<AgentModelInput>;
  /** [a-z0-9][a-z0-9_-]{0,62} */
  name: Scalars['String']['input'];
  /** What a message on a thread of its runs does while a turn runs, unless a request says (RunTaskInput.onBusy). */
  onBusy?: InputMaybe<OnBusy>;
  outputSchema?: InputMaybe<Scalars['JSON']['input']>;
  /** Tool names or globs (fs.*), and agent:<name> to call another agent as a tool; absent: every tool. */
  tools?: InputMaybe<Array<Scalars['String']['input']>>;
  /** Where its runs' events are told, unless a request names its own webhook. */
  webhook?: InputMaybe<WebhookInput>;
};

export type AgentModel = {
  __typename?: 'AgentModel';
  byPhase?: Maybe<Scalars['JSON']['output']>;
  model: Scalars['String']['output'];
  provider: Scalars['String']['output'];
};

/** A model as AEON_MODELS names one; byPhase as AEON_MODELS_BY_PHASE ({ plan: "openai:gpt-4.1", … }). */
export type AgentModelInput = {
  byPhase?: InputMaybe<Scalars['JSON']['input']>;
  model: Scalars['String']['input'];
  provider: Scalars['String']['input'];
};

export type AgentVersion = {
  __typename?: 'AgentVersion';
  createdAt: Scalars['DateTime']['output'];
  version: Scalars['Int']['output'];
};

export type ApprovalAnsweredEvent = RunEvent & {
  __typename?: 'ApprovalAnsweredEvent';
  at: Scalars['DateTime']['output'];
  decision: ApprovalDecision;
  input?: Maybe<Scalars['JSON']['output']>;
  payload: Scalars['JSON']['output'];
  reason?: Maybe<Scalars['String']['output']>;
  requestId: Scalars['ID']['output'];
  runId: Scalars['ID']['output'];
  seq: Scalars['Int']['output'];
  type: Scalars['String']['output'];
};

/** APPROVE runs the call as asked, EDIT with the input given, REJECT fails its step with the reason. */
export type ApprovalDecision =
  | 'APPROVE'
  | 'EDIT'
  | 'REJECT';

export type ApprovalRequest = {
  __typename?: 'ApprovalRequest';
  description: Scalars['String']['output'];
  /** When the request is rejected unless answered (the run's approvalTimeoutMs). */
  expiresAt?: Maybe<Scalars['DateTime']['output']>;
  input?: Maybe<Scalars['JSON']['output']>;
  /** Why it is asked, when it is not the tool's or the run's approval list: untrusted input steered the call (docs/untrusted-data.md). */
  reason?: Maybe<Scalars['String']['output']>;
  requestId: Scalars['ID']['output'];
  requestedAt: Scalars['DateTime']['output'];
  stepId: Scalars['String']['output'];
  tool: Scalars['String']['output'];
  /** The steps whose results, from outside the run, steered the call. */
  untrustedSources?: Maybe<Array<Scalars['String']['output']>>;
};

export type ApprovalRequestedEvent = RunEvent & {
  __typename?: 'ApprovalRequestedEvent';
  at: Scalars['DateTime']['output'];
  description: Scalars['String']['output'];
  input?: Maybe<Scalars['JSON']['output']>;
  passNumber: Scalars['Int']['output'];
  payload: Scalars['JSON']['output'];
  requestId: Scalars['ID']['output'];
  runId: Scalars['ID']['output'];
  seq: Scalars['Int']['output'];
  stepId: Scalars['String']['output'];
  tool: Scalars['String']['output'];
  type: Scalars['String']['output'];
};

export type AttachmentInput = {
  /** The bytes, base64. */
  data?: InputMaybe<Scalars['String']['input']>;
  /** image/png, image/jpeg, application/pdf, text/plain, … */
  mediaType: Scalars['String']['input'];
  name?: InputMaybe<Scalars['String']['input']>;
  /** Where the provider fetches it, instead of the bytes. */
  url?: InputMaybe<Scalars['String']['input']>;
};

/** An interactive run stopped by a cap asks for more: APPROVE gives proposed, or the caps given as input ({maxLlmCalls, maxTokens, maxCostUsd, maxSteps, ttl}; the refused one above limit). */
export type BudgetExtensionRequest = {
  __typename?: 'BudgetExtensionRequest';
  /** The cap that refused: llmCalls, tokens, cost or steps; ttl when the last pass its TTL allowed did not converge (limit and used: the passes made; give ttl, the passes in all). */
  dimension: Scalars['String']['output'];
  expiresAt?: Maybe<Scalars['DateTime']['output']>;
  /** What the rest of the run is expected to spend, from its plan now. */
  forecast?: Maybe<Forecast>;
  limit: Scalars['Float']['output'];
  /** What the refused call or step needed, as the budget guard said it. */
  needs: Scalars['String']['output'];
  /** The caps APPROVE without input gives (the refused cap doubled). */
  proposed: Scalars['JSON']['output'];
  requestId: Scalars['ID']['output'];
  requestedAt: Scalars['DateTime']['output'];
  used: Scalars['Float']['output'];
};

/** An interactive run the budget would stop waits for more (respondToApproval answers it). */
export type BudgetExtensionRequestedEvent = RunEvent & {
  __typename?: 'BudgetExtensionRequestedEvent';
  at: Scalars['DateTime']['output'];
  dimension: Scalars['String']['output'];
  limit: Scalars['Float']['output'];
  needs: Scalars['String']['output'];
  payload: Scalars['JSON']['output'];
  requestId: Scalars['ID']['output'];
  runId: Scalars['ID']['output'];
  seq: Scalars['Int']['output'];
  type: Scalars['String']['output'];
  used: Scalars['Float']['output'];
};

/** One budget: calls, tokens, cost, steps, deadline (ms of wall time) or ttl (execution passes); cap and left are null without a cap. */
export type BudgetGauge = {
  __typename?: 'BudgetGauge';
  cap?: Maybe<Scalars['Float']['output']>;
  left?: Maybe<Scalars['Float']['output']>;
  name: Scalars['String']['output'];
  used: Scalars['Float']['output'];
};

/** Limits of one run. Every field is optional; defaults apply. */
export type BudgetInput = {
  /** Wall-time deadline in milliseconds. */
  deadlineMs?: InputMaybe<Scalars['Int']['input']>;
  maxCostUsd?: InputMaybe<Scalars['Float']['input']>;
  maxLlmCalls?: InputMaybe<Scalars['Int']['input']>;
  maxSteps?: InputMaybe<Scalars['Int']['input']>;
  maxTokens?: InputMaybe<Scalars['Int']['input']>;
  /** Cycles (execution passes). */
  ttl?: InputMaybe<Scalars['Int']['input']>;
};

/** A run of an agent a step of this run called as a tool. */
export type ChildRunRef = {
  __typename?: 'ChildRunRef';
  agent?: Maybe<RunAgent>;
  id: Scalars['ID']['output'];
  status: RunStatus;
};

export type ConvergenceAssessedEvent = RunEvent & {
  __typename?: 'ConvergenceAssessedEvent';
  assessment: ConvergenceAssessment;
  at: Scalars['DateTime']['output'];
  passNumber: Scalars['Int']['output'];
  payload: Scalars['JSON']['output'];
  runId: Scalars['ID']['output'];
  seq: Scalars['Int']['output'];
  type: Scalars['String']['output'];
};

export type ConvergenceAssessment = {
  __typename?: 'ConvergenceAssessment';
  coherenceScore: Scalars['Float']['output'];
  completenessScore: Scalars['Float']['output'];
  consistencyStatus: Scalars['JSON']['output'];
  converged: Scalars['Boolean']['output'];
  /** checks: the engine's own criteria decided alone (no model assessment was asked); model: with the model's assessment. */
  decidedBy?: Maybe<Scalars['String']['output']>;
  detectedIssues: Array<Scalars['String']['output']>;
  explanation: Scalars['String']['output'];
  reasonCodes: Array<Scalars['String']['output']>;
};

/** When a run counts as converged. */
export type ConvergenceCriteriaInput = {
  /** A regular expression the answer must match. */
  answerMatches?: InputMaybe<Scalars['String']['input']>;
  /** Terms the answer must mention. */
  answerMentions?: InputMaybe<Array<Scalars['String']['input']>>;
  /** A JSON Schema the answer (as JSON) must satisfy. */
  answerSchema?: InputMaybe<Scalars['JSON']['input']>;
  coherenceThreshold?: InputMaybe<Scalars['Float']['input']>;
  completenessThreshold?: InputMaybe<Scalars['Float']['input']>;
  requireConsistency?: InputMaybe<Scalars['Boolean']['input']>;
  /** Reason codes the convergence verdict must carry (e.g. "complete") for the run to converge. */
  requiredReasonCodes?: InputMaybe<Array<Scalars['String']['input']>>;
};

export type ConversationMessageInput = {
  role: ConversationRole;
  text: Scalars['String']['input'];
};

/** Before planning, the conversation the run is a turn of, as its plan and answer prompts quote it. */
export type ConversationQuotedEvent = RunEvent & {
  __typename?: 'ConversationQuotedEvent';
  at: Scalars['DateTime']['output'];
  conversation: RunConversation;
  payload: Scalars['JSON']['output'];
  runId: Scalars['ID']['output'];
  seq: Scalars['Int']['output'];
  type: Scalars['String']['output'];
};

export type ConversationRole =
  | 'assistant'
  | 'user';

export type DepthConfiguration = {
  __typename?: 'DepthConfiguration';
  adjustmentReason: Scalars['String']['output'];
  allocatedTtl: Scalars['Int']['output'];
  ambiguityScore?: Maybe<Scalars['Float']['output']>;
  detectedComplexity: Scalars['String']['output'];
  heuristicsUsed: Array<Scalars['String']['output']>;
  reasoningMode: Scalars['String']['output'];
  uncertaintyScore?: Maybe<Scalars['Float']['output']>;
};

export type EscalatedEvent = RunEvent & {
  __typename?: 'EscalatedEvent';
  at: Scalars['DateTime']['output'];
  iterationsRun: Scalars['Int']['output'];
  payload: Scalars['JSON']['output'];
  reason: Scalars['String']['output'];
  runId: Scalars['ID']['output'];
  seq: Scalars['Int']['output'];
  type: Scalars['String']['output'];
};

export type Escalation = {
  __typename?: 'Escalation';
  escalated: Scalars['Boolean']['output'];
  failureSummary?: Maybe<FailureSummary>;
  iterations: Array<SimpleIteration>;
  reason?: Maybe<Scalars['String']['output']>;
  remainingBudget?: Maybe<Scalars['JSON']['output']>;
};

export type ExecutionHistory = {
  __typename?: 'ExecutionHistory';
  convergenceAchieved: Scalars['Boolean']['output'];
  passes: Array<ExecutionPass>;
  totalPasses: Scalars['Int']['output'];
  totalRefinements: Scalars['Int']['output'];
  totalTimeSeconds: Scalars['Float']['output'];
};

export type ExecutionMetadata = {
  __typename?: 'ExecutionMetadata';
  errorCount: Scalars['Int']['output'];
  stepsTaken: Scalars['Int']['output'];
  successRate: Scalars['Float']['output'];
  thinkingTimeMs: Scalars['Float']['output'];
  toolCallCounts: Scalars['JSON']['output'];
  toolExecutionTimeMs: Scalars['Float']['output'];
  totalTimeMs: Scalars['Float']['output'];
};

export type ExecutionPass = {
  __typename?: 'ExecutionPass';
  advisories: Array<Scalars['String']['output']>;
  convergence?: Maybe<ConvergenceAssessment>;
  depth?: Maybe<DepthConfiguration>;
  durationSeconds: Scalars['Float']['output'];
  endTime: Scalars['DateTime']['output'];
  executionResults: Scalars['JSON']['output'];
  passNumber: Scalars['Int']['output'];
  phases: Array<Phase>;
  plan: Plan;
  profile?: Maybe<TaskProfile>;
  refinements: Array<RefinementAction>;
  startTime: Scalars['DateTime']['output'];
  ttlRemaining: Scalars['Int']['output'];
  validationReport?: Maybe<ValidationReport>;
};

export type ExecutionWave = {
  __typename?: 'ExecutionWave';
  parallelExecution: Scalars['Boolean']['output'];
  stepIds: Array<Scalars['String']['output']>;
  waveNumber: Scalars['Int']['output'];
};

export type FailureSummary = {
  __typename?: 'FailureSummary';
  finalTestState: Array<Scalars['String']['output']>;
  summary: Scalars['String']['output'];
  totalCostUsd: Scalars['Float']['output'];
  totalDurationMs: Scalars['Float']['output'];
  totalIterations: Scalars['Int']['output'];
  uniqueErrors: Scalars['JSON']['output'];
};

export type FinalAnswer = {
  __typename?: 'FinalAnswer';
  answerText: Scalars['String']['output'];
  confidence?: Maybe<Scalars['Float']['output']>;
  converged?: Maybe<Scalars['Boolean']['output']>;
  /** The answer as a value of the run's outputSchema, validated against it; null for a run without one, or whose value never met it. */
  data?: Maybe<Scalars['JSON']['output']>;
  label?: Maybe<Scalars['String']['output']>;
  notes?: Maybe<Scalars['String']['output']>;
  ttlExhausted?: Maybe<Scalars['Boolean']['output']>;
  usedStepIds: Array<Scalars['String']['output']>;
};

/** A run's forecast from its validated plan: expected and worst-case figures, in total (the planning included) and per step. */
export type Forecast = {
  __typename?: 'Forecast';
  /** What the forecast rests on: the prompts' sizes and output caps, and stored runs like this one (similarRuns of them). */
  basis: Scalars['String']['output'];
  expected: ForecastFigures;
  expectedPasses: Scalars['Float']['output'];
  perStep: Array<StepForecast>;
  similarRuns: Scalars['Int']['output'];
  /** Spent by the planning before the forecast was made (in the totals). */
  spent: ForecastFigures;
  /** The most the run can spend: every pass its TTL allows, each call sent twice at its output cap's limit — never above its budget. */
  worstCase: ForecastFigures;
  worstCasePasses: Scalars['Int']['output'];
};

/** (actual − expected) / actual for each figure (null where the actual is 0); withinWorstCase: the actual stayed within the worst case. */
export type ForecastError = {
  __typename?: 'ForecastError';
  costUsd?: Maybe<Scalars['Float']['output']>;
  llmCalls?: Maybe<Scalars['Float']['output']>;
  tokens?: Maybe<Scalars['Float']['output']>;
  wallMs?: Maybe<Scalars['Float']['output']>;
  withinWorstCase: Scalars['Boolean']['output'];
};

export type ForecastFigures = {
  __typename?: 'ForecastFigures';
  costUsd: Scalars['Float']['output'];
  llmCalls: Scalars['Float']['output'];
  tokens: Scalars['Float']['output'];
  wallMs: Scalars['Float']['output'];
};

/** The run's forecast from its validated plan, before execution. */
export type ForecastMadeEvent = RunEvent & {
  __typename?: 'ForecastMadeEvent';
  at: Scalars['DateTime']['output'];
  forecast: Forecast;
  passNumber: Scalars['Int']['output'];
  payload: Scalars['JSON']['output'];
  runId: Scalars['ID']['output'];
  seq: Scalars['Int']['output'];
  type: Scalars['String']['output'];
};

export type ForkApproval = {
  decision: ApprovalDecision;
  reason?: InputMaybe<Scalars['String']['input']>;
};

/** What a fork changes at its fork point. */
export type ForkChanges = {
  /** The answer to the approval request open at the fork point (APPROVE or REJECT). */
  approval?: InputMaybe<ForkApproval>;
  /** Caps merged over the source's budget. */
  budget?: InputMaybe<BudgetInput>;
  /** The answer to the guidance request open at the fork point. */
  guidance?: InputMaybe<Scalars['String']['input']>;
  /** The model the fork's live calls go to: one this server is configured with, by its label (health.model names them, comma-separated) or offline. */
  model?: InputMaybe<Scalars['String']['input']>;
  /** Edits of the plan as it stands at the fork point (a PassFinished event), validated as the planner's refinements are: the next pass runs the edited plan. */
  planEdits?: InputMaybe<Array<PlanEditInput>>;
};

/** Where a fork began: its source run and the event it was forked at. */
export type ForkOrigin = {
  __typename?: 'ForkOrigin';
  atSeq: Scalars['Int']['output'];
  /** What the fork changed there (budget, approval, guidance, planEdits, model). */
  changed: Array<Scalars['String']['output']>;
  runId: Scalars['ID']['output'];
};

/** A guardrail's triggers at one point with one action (health). */
export type GuardrailCount = {
  __typename?: 'GuardrailCount';
  action: Scalars['String']['output'];
  count: Scalars['Int']['output'];
  guardrail: Scalars['String']['output'];
  point: Scalars['String']['output'];
};

/** A guardrail matched at a point of the run (input, tool_call, tool_result, output): what it did (redact, block), the kinds it found and the placeholders it put in — never the matched text. */
export type GuardrailTriggeredEvent = RunEvent & {
  __typename?: 'GuardrailTriggeredEvent';
  action: Scalars['String']['output'];
  at: Scalars['DateTime']['output'];
  guardrail: Scalars['String']['output'];
  kinds: Array<Scalars['String']['output']>;
  payload: Scalars['JSON']['output'];
  point: Scalars['String']['output'];
  runId: Scalars['ID']['output'];
  seq: Scalars['Int']['output'];
  stepId?: Maybe<Scalars['String']['output']>;
  type: Scalars['String']['output'];
};

export type GuidanceProvidedEvent = RunEvent & {
  __typename?: 'GuidanceProvidedEvent';
  at: Scalars['DateTime']['output'];
  payload: Scalars['JSON']['output'];
  requestId: Scalars['ID']['output'];
  runId: Scalars['ID']['output'];
  seq: Scalars['Int']['output'];
  text: Scalars['String']['output'];
  type: Scalars['String']['output'];
};

export type GuidanceRequest = {
  __typename?: 'GuidanceRequest';
  expiresAt?: Maybe<Scalars['DateTime']['output']>;
  reason: Scalars['String']['output'];
  requestId: Scalars['ID']['output'];
  requestedAt: Scalars['DateTime']['output'];
  stepId: Scalars['String']['output'];
};

export type GuidanceRequestedEvent = RunEvent & {
  __typename?: 'GuidanceRequestedEvent';
  at: Scalars['DateTime']['output'];
  passNumber: Scalars['Int']['output'];
  payload: Scalars['JSON']['output'];
  reason: Scalars['String']['output'];
  requestId: Scalars['ID']['output'];
  runId: Scalars['ID']['output'];
  seq: Scalars['Int']['output'];
  stepId: Scalars['String']['output'];
  type: Scalars['String']['output'];
};

/**
 * The server's state, read from memory (answered while the store is away). ok is false while any run's events wait for a
 * store that fails (storeFailure says why); those runs still count in activeRuns.
 */
export type Health = {
  __typename?: 'Health';
  activeRuns: Scalars['Int']['output'];
  database: Scalars['String']['output'];
  /** How often each guardrail triggered in this process since it started, by point and action (never what it matched). */
  guardrailTriggers: Array<GuardrailCount>;
  mcpServers: Array<McpServerHealth>;
  model: Scalars['String']['output'];
  /** Where a model is asked otherwise than first configured, in words: an output format stepped down (when, why, when the stronger one is tried again). */
  modelConditions: Array<Scalars['String']['output']>;
  ok: Scalars['Boolean']['output'];
  queuedRuns: Scalars['Int']['output'];
  /** Runs whose events wait for the store now: they go on when it answers, or resume once it is back (AEON_STORE_OUTAGE_MS). */
  runsWaitingForStore: Scalars['Int']['output'];
  /** Why the store fails, in words (the disk full, the database refusing connections), while runs' events wait for it. */
  storeFailure?: Maybe<Scalars['String']['output']>;
  subscriptions: Scalars['Int']['output'];
  version: Scalars['String']['output'];
};

/** One model call as recorded with its run (AEON_RECORD_PROMPTS, on by default): where the run made it, what it sent, what came back. */
export type LlmCall = {
  __typename?: 'LlmCall';
  at: Scalars['DateTime']['output'];
  /** 1, or 2 for the call made again with a larger output cap after a truncated answer. */
  attempt: Scalars['Int']['output'];
  /** Of inputTokens, those written to the provider's prompt cache (Anthropic: priced at its cache-write rate). */
  cacheWriteTokens: Scalars['Int']['output'];
  /** Of inputTokens, those read from the provider's prompt cache. */
  cachedTokens: Scalars['Int']['output'];
  costUsd: Scalars['Float']['output'];
  decodeError?: Maybe<Scalars['String']['output']>;
  error?: Maybe<Scalars['String']['output']>;
  /** The provider reported no usage: inputTokens and outputTokens are Aeon's count, on the high side. */
  estimated: Scalars['Boolean']['output'];
  /** Models of the fallback chain (AEON_MODELS) that failed before model answered, each with why. */
  failedModels: Array<Scalars['String']['output']>;
  finishReason?: Maybe<Scalars['String']['output']>;
  inputTokens: Scalars['Int']['output'];
  latencyMs: Scalars['Float']['output'];
  model: Scalars['String']['output'];
  /** The answer as decoded with the prompt's output schema. */
  output?: Maybe<Scalars['JSON']['output']>;
  outputTokens: Scalars['Int']['output'];
  passNumber?: Maybe<Scalars['Int']['output']>;
  phase?: Maybe<Scalars['String']['output']>;
  promptId: Scalars['String']['output'];
  /** Answered from a recording of the source run (a fork, a replay): nothing was sent, nothing paid. */
  replayed: Scalars['Boolean']['output'];
  /** The model's raw text (absent when the call failed before an answer). */
  response?: Maybe<Scalars['String']['output']>;
  /** The sequence number of its LlmCalled event. */
  seq: Scalars['Int']['output'];
  stepId?: Maybe<Scalars['String']['output']>;
  system: Scalars['String']['output'];
  /** What the model thought before it answered (Claude's and Gemini's thinking), never part of an answer. */
  thinking?: Maybe<Scalars['String']['output']>;
  user: Scalars['String']['output'];
};

export type LlmCallConnection = {
  __typename?: 'LlmCallConnection';
  edges: Array<LlmCallEdge>;
  pageInfo: PageInfo;
};

export type LlmCallEdge = {
  __typename?: 'LlmCallEdge';
  cursor: Scalars['String']['output'];
  node: LlmCall;
};

/** A model call. Its prompt and answer, when recorded, are read through Run.llmCalls (recorded says whether they were); the payload leaves them out. */
export type LlmCalledEvent = RunEvent & {
  __typename?: 'LlmCalledEvent';
  at: Scalars['DateTime']['output'];
  costUsd: Scalars['Float']['output'];
  inputTokens: Scalars['Int']['output'];
  latencyMs: Scalars['Float']['output'];
  outputTokens: Scalars['Int']['output'];
  payload: Scalars['JSON']['output'];
  promptId: Scalars['String']['output'];
  recorded: Scalars['Boolean']['output'];
  runId: Scalars['ID']['output'];
  seq: Scalars['Int']['output'];
  type: Scalars['String']['output'];
};

/** A piece of a model call's output, as it is written. */
export type LlmOutputDelta = {
  __typename?: 'LlmOutputDelta';
  /** The last event of the run's log when the piece was sent. */
  afterSeq: Scalars['Int']['output'];
  /** For a structured answer, its readable text so far: the final answer's answerText, a step's stepOutput. */
  answerText?: Maybe<Scalars['String']['output']>;
  /** The call's id in the run's live output (unique within the run). */
  callId: Scalars['ID']['output'];
  /** The call has ended: no more pieces for it. */
  done: Scalars['Boolean']['output'];
  passNumber?: Maybe<Scalars['Int']['output']>;
  promptId: Scalars['String']['output'];
  runId: Scalars['ID']['output'];
  stepId?: Maybe<Scalars['String']['output']>;
  /** What the call wrote since its previous piece (all of it so far, in a late joiner's first piece of the call). */
  text: Scalars['String']['output'];
};

export type ManualIntervention = {
  __typename?: 'ManualIntervention';
  reason: Scalars['String']['output'];
  stepId: Scalars['String']['output'];
};

export type ManualInterventionRequiredEvent = RunEvent & {
  __typename?: 'ManualInterventionRequiredEvent';
  at: Scalars['DateTime']['output'];
  passNumber: Scalars['Int']['output'];
  payload: Scalars['JSON']['output'];
  reason: Scalars['String']['output'];
  runId: Scalars['ID']['output'];
  seq: Scalars['Int']['output'];
  stepId: Scalars['String']['output'];
  type: Scalars['String']['output'];
};

/** An MCP server of AEON_MCP_CONFIG: how it is connected, how many tools it gives, what went wrong last. */
export type McpServerHealth = {
  __typename?: 'McpServerHealth';
  lastError?: Maybe<Scalars['String']['output']>;
  name: Scalars['String']['output'];
  status: McpServerStatus;
  toolCount: Scalars['Int']['output'];
  /** stdio, streamable-http or sse */
  transport: Scalars['String']['output'];
};

export type McpServerStatus =
  | 'CONNECTED'
  | 'CONNECTING'
  | 'FAILED'
  | 'RECONNECTING';

/**
 * A memory of a user's earlier run, with where it came from: a converged run's answer (ANSWER) or the output of one of
 * its complete steps (STEP), or a note the model kept with the memory.remember tool (NOTED).
 */
export type Memory = {
  __typename?: 'Memory';
  /** With a query: the share of the query's content words it holds (0-1). */
  coverage?: Maybe<Scalars['Float']['output']>;
  createdAt: Scalars['DateTime']['output'];
  id: Scalars['ID']['output'];
  kind: MemoryKind;
  passNumber?: Maybe<Scalars['Int']['output']>;
  runId?: Maybe<Scalars['ID']['output']>;
  stepId?: Maybe<Scalars['String']['output']>;
  tags: Array<Scalars['String']['output']>;
  /** The task of the run it came from. */
  task: Scalars['String']['output'];
  text: Scalars['String']['output'];
};

export type MemoryConnection = {
  __typename?: 'MemoryConnection';
  edges: Array<MemoryEdge>;
  pageInfo: PageInfo;
};

export type MemoryEdge = {
  __typename?: 'MemoryEdge';
  cursor: Scalars['String']['output'];
  node: Memory;
};

export type MemoryKind =
  | 'ANSWER'
  | 'NOTED'
  | 'STEP';

/** Before planning, the memories of the user's earlier runs the plan prompt quotes (as data), each with its source. */
export type MemoryRecalledEvent = RunEvent & {
  __typename?: 'MemoryRecalledEvent';
  at: Scalars['DateTime']['output'];
  memories: Array<RecalledMemory>;
  passNumber: Scalars['Int']['output'];
  payload: Scalars['JSON']['output'];
  runId: Scalars['ID']['output'];
  seq: Scalars['Int']['output'];
  type: Scalars['String']['output'];
};

export type Mutation = {
  __typename?: 'Mutation';
  /** Interrupts a run; a tool call in progress completes first. */
  cancelRun: Run;
  /**
   * A task started on a cron: 5 fields, or 6 with seconds first, in an IANA time zone (UTC unless given); a bad one is
   * INVALID_SCHEDULE. Each tick starts one run (tagged schedule:<id>) across every server sharing the store; ticks missed
   * while no server ran start one run at the next start.
   */
  createSchedule: Schedule;
  /** Deletes the caller's agent, every version (its runs keep the definition they ran). Whether there was one. */
  deleteAgent: Scalars['Boolean']['output'];
  /** Deletes it: no tick after; its runs are kept. Whether there was one. */
  deleteSchedule: Scalars['Boolean']['output'];
  /** Forgets every memory of the caller (or userId's, as memories reads them): erasure. How many there were. */
  forgetMemories: Scalars['Int']['output'];
  /** Forgets one memory (its row and full-text entry): whether there was one (memories' owner rule). */
  forgetMemory: Scalars['Boolean']['output'];
  /**
   * Erases one run: its events, recorded calls (prompts), memories, thread turn, the conversation summaries it made (a
   * /v1 or AG-UI history's, kept under its first message), and the files no other run carries. Refused
   * (RunUnfinishedError) until it has ended: cancel it first. Whether there was one (the run's owner rule).
   */
  forgetRun: Scalars['Boolean']['output'];
  /**
   * Erases a thread: its turns (their runs, events, recorded calls and memories), its forks, its summaries. Refused
   * (ThreadBusyError) while a turn is under way. Whether there was one (thread's owner rule).
   */
  forgetThread: Scalars['Boolean']['output'];
  /**
   * Starts a new run whose log begins with runId's events up to atSeq (RunForked first), then goes on from there as a
   * restarted run does: its model calls are answered from runId's recordings (free, usage.replayed) until one differs
   * (a change makes prompts differ), then by the model. The fork belongs to the caller; runId is not touched.
   */
  forkRun: Run;
  /** Stops its ticks (the schedule is kept); null when it is not the caller's. */
  pauseSchedule?: Maybe<Schedule>;
  /** Gives guidance to an interactive run that asked for it; the text enters the refinement prompts from then on. */
  provideGuidance: Run;
  /**
   * The run's calls with side effects checked again under another untrusted-data policy ({ "allow": { tool: { argument:
   * { any, values, domains } } } }; null: none): which it would have held, decided from the run's log — no model, no tool,
   * nothing stored. What `aeon replay RUN --policy FILE` asks.
   */
  recheckRun: Array<PolicyCheck>;
  /**
   * Runs runId again with today's code, its model calls answered from its recordings only (no model is asked, nothing
   * is stored), and compares the events: identical, or the first divergence. NotReplayableError when its calls were not
   * recorded. What `aeon replay` asks.
   */
  replayRun: ReplayReport;
  /**
   * Answers a run's approval request (only once). A tool call's: EDIT's input must fit the tool's input schema. A
   * plan's (Run.pendingPlanApproval): EDIT's input is a list of plan edits (PlanEditInput's shape), validated as the
   * planner's refinements are — a refused edit leaves the request open and says why; REJECT ends the run CANCELLED.
   * A budget extension's (Run.pendingBudgetExtensions): APPROVE with input the new caps ({maxLlmCalls: 50}; none: the
   * proposal), REJECT stops the run at its budget as without asking.
   */
  respondToApproval: Run;
  /** Its ticks again, the next counted from now (ticks passed while paused are not run); null when not the caller's. */
  resumeSchedule?: Maybe<Schedule>;
  /** Starts a run and returns at once (QUEUED or RUNNING). */
  runTask: Run;
  /**
   * Saves a whole agent definition as the agent's next version (1 for a new name); INVALID_AGENT names a bad field. With
   * API keys bound to users the agent is the caller's own.
   */
  saveAgent: Agent;
};


export type MutationCancelRunArgs = {
  id: Scalars['ID']['input'];
};


export type MutationCreateScheduleArgs = {
  input: ScheduleInput;
};


export type MutationDeleteAgentArgs = {
  name: Scalars['String']['input'];
};


export type MutationDeleteScheduleArgs = {
  id: Scalars['ID']['input'];
};


export type MutationForgetMemoriesArgs = {
  userId?: InputMaybe<Scalars['ID']['input']>;
};


export type MutationForgetMemoryArgs = {
  id: Scalars['ID']['input'];
  userId?: InputMaybe<Scalars['ID']['input']>;
};


export type MutationForgetRunArgs = {
  id: Scalars['ID']['input'];
  userId?: InputMaybe<Scalars['ID']['input']>;
};


export type MutationForgetThreadArgs = {
  id: Scalars['ID']['input'];
  userId?: InputMaybe<Scalars['ID']['input']>;
};


export type MutationForkRunArgs = {
  atSeq: Scalars['Int']['input'];
  changes?: InputMaybe<ForkChanges>;
  runId: Scalars['ID']['input'];
};


export type MutationPauseScheduleArgs = {
  id: Scalars['ID']['input'];
};


export type MutationProvideGuidanceArgs = {
  requestId: Scalars['ID']['input'];
  runId: Scalars['ID']['input'];
  text: Scalars['String']['input'];
};


export type MutationRecheckRunArgs = {
  policy?: InputMaybe<Scalars['JSON']['input']>;
  runId: Scalars['ID']['input'];
};


export type MutationReplayRunArgs = {
  runId: Scalars['ID']['input'];
};


export type MutationRespondToApprovalArgs = {
  decision: ApprovalDecision;
  input?: InputMaybe<Scalars['JSON']['input']>;
  reason?: InputMaybe<Scalars['String']['input']>;
  requestId: Scalars['ID']['input'];
  runId: Scalars['ID']['input'];
};


export type MutationResumeScheduleArgs = {
  id: Scalars['ID']['input'];
};


export type MutationRunTaskArgs = {
  input: RunTaskInput;
};


export type MutationSaveAgentArgs = {
  input: AgentInput;
};

/** What a message on a thread does while the thread's turn runs. */
export type OnBusy =
  | 'ENQUEUE'
  | 'INTERRUPT'
  | 'REJECT';

export type PageInfo = {
  __typename?: 'PageInfo';
  endCursor?: Maybe<Scalars['String']['output']>;
  hasNextPage: Scalars['Boolean']['output'];
};

export type PassFinishedEvent = RunEvent & {
  __typename?: 'PassFinishedEvent';
  at: Scalars['DateTime']['output'];
  passNumber: Scalars['Int']['output'];
  payload: Scalars['JSON']['output'];
  runId: Scalars['ID']['output'];
  seq: Scalars['Int']['output'];
  ttlRemaining: Scalars['Int']['output'];
  type: Scalars['String']['output'];
};

export type PassStartedEvent = RunEvent & {
  __typename?: 'PassStartedEvent';
  at: Scalars['DateTime']['output'];
  passNumber: Scalars['Int']['output'];
  payload: Scalars['JSON']['output'];
  runId: Scalars['ID']['output'];
  seq: Scalars['Int']['output'];
  ttlRemaining: Scalars['Int']['output'];
  type: Scalars['String']['output'];
};

export type Phase =
  | 'EVALUATE'
  | 'EXECUTE'
  | 'PLAN'
  | 'REFINE'
  | 'RE_EXECUTE';

export type PhaseEnteredEvent = RunEvent & {
  __typename?: 'PhaseEnteredEvent';
  at: Scalars['DateTime']['output'];
  passNumber: Scalars['Int']['output'];
  payload: Scalars['JSON']['output'];
  phase: Phase;
  runId: Scalars['ID']['output'];
  seq: Scalars['Int']['output'];
  type: Scalars['String']['output'];
};

export type Plan = {
  __typename?: 'Plan';
  /** The final answer as the planner wrote it, {{sN}} standing for a step's result: a converged simple iteration answers with it filled in, no synthesis call. */
  answer?: Maybe<Scalars['String']['output']>;
  goal: Scalars['String']['output'];
  steps: Array<PlanStep>;
};

export type PlanApprovalRequest = {
  __typename?: 'PlanApprovalRequest';
  /** When the request is rejected unless answered (the run's approvalTimeoutMs). */
  expiresAt?: Maybe<Scalars['DateTime']['output']>;
  forecast: Forecast;
  plan: Plan;
  requestId: Scalars['ID']['output'];
  requestedAt: Scalars['DateTime']['output'];
  validationReport?: Maybe<ValidationReport>;
};

/** The run waits for a person to approve its validated plan (respondToApproval answers it). */
export type PlanApprovalRequestedEvent = RunEvent & {
  __typename?: 'PlanApprovalRequestedEvent';
  at: Scalars['DateTime']['output'];
  forecast: Forecast;
  passNumber: Scalars['Int']['output'];
  payload: Scalars['JSON']['output'];
  plan: Plan;
  requestId: Scalars['ID']['output'];
  runId: Scalars['ID']['output'];
  seq: Scalars['Int']['output'];
  type: Scalars['String']['output'];
};

export type PlanCreatedEvent = RunEvent & {
  __typename?: 'PlanCreatedEvent';
  at: Scalars['DateTime']['output'];
  passNumber: Scalars['Int']['output'];
  payload: Scalars['JSON']['output'];
  plan: Plan;
  runId: Scalars['ID']['output'];
  seq: Scalars['Int']['output'];
  type: Scalars['String']['output'];
};

/** A person's edit of a plan: one of the planner's refinement actions (ADD, MODIFY, REPLACE, REMOVE, SUBPLAN_CREATE, STEP_MARK_INVALID). */
export type PlanEditInput = {
  actionType: Scalars['String']['input'];
  justification?: InputMaybe<Scalars['String']['input']>;
  newStep?: InputMaybe<PlanStepInput>;
  subplanGoal?: InputMaybe<Scalars['String']['input']>;
  substeps?: InputMaybe<Array<PlanStepInput>>;
  targetStepId?: InputMaybe<Scalars['String']['input']>;
};

/** The run starts from the final plan of fromRun, an earlier converged run of its user (match: equal or similar task): no profile or plan call. */
export type PlanReusedEvent = RunEvent & {
  __typename?: 'PlanReusedEvent';
  at: Scalars['DateTime']['output'];
  fromRun: Scalars['ID']['output'];
  match: Scalars['String']['output'];
  passNumber: Scalars['Int']['output'];
  payload: Scalars['JSON']['output'];
  runId: Scalars['ID']['output'];
  seq: Scalars['Int']['output'];
  task: Scalars['String']['output'];
  type: Scalars['String']['output'];
};

export type PlanStep = {
  __typename?: 'PlanStep';
  /** A step needing no tool, answered by the planner as it planned: a simple iteration's output for it, no reasoning call. */
  answer?: Maybe<Scalars['String']['output']>;
  clarityState?: Maybe<Scalars['String']['output']>;
  dependencies: Array<Scalars['String']['output']>;
  description: Scalars['String']['output'];
  error?: Maybe<Scalars['String']['output']>;
  manualIntervention?: Maybe<Scalars['String']['output']>;
  status: Scalars['String']['output'];
  stepId: Scalars['String']['output'];
  stepIndex: Scalars['Int']['output'];
  stepOutput: Scalars['String']['output'];
  subplan?: Maybe<Scalars['JSON']['output']>;
  supersededBy?: Maybe<Scalars['String']['output']>;
  tool?: Maybe<Scalars['String']['output']>;
  toolInput?: Maybe<Scalars['JSON']['output']>;
};

/** A step as an edit gives it (stepId optional: the target's, or a fresh one for an ADD). */
export type PlanStepInput = {
  dependencies?: InputMaybe<Array<Scalars['String']['input']>>;
  description: Scalars['String']['input'];
  stepId?: InputMaybe<Scalars['String']['input']>;
  tool?: InputMaybe<Scalars['String']['input']>;
  toolInput?: InputMaybe<Scalars['JSON']['input']>;
};

/** A call with side effects of a recorded run, checked under another policy: whether the run held it, whether that policy would. */
export type PolicyCheck = {
  __typename?: 'PolicyCheck';
  held: Scalars['Boolean']['output'];
  input?: Maybe<Scalars['JSON']['output']>;
  passNumber: Scalars['Int']['output'];
  reason?: Maybe<Scalars['String']['output']>;
  seq: Scalars['Int']['output'];
  stepId: Scalars['String']['output'];
  tool: Scalars['String']['output'];
  wouldHold: Scalars['Boolean']['output'];
};

export type PrioritizedPlan = {
  __typename?: 'PrioritizedPlan';
  dependencies: Array<StepDependency>;
  orderedStepIds: Array<Scalars['String']['output']>;
  waves: Array<ExecutionWave>;
};

export type ProfileInferredEvent = RunEvent & {
  __typename?: 'ProfileInferredEvent';
  at: Scalars['DateTime']['output'];
  depth: DepthConfiguration;
  passNumber: Scalars['Int']['output'];
  payload: Scalars['JSON']['output'];
  profile: TaskProfile;
  runId: Scalars['ID']['output'];
  seq: Scalars['Int']['output'];
  type: Scalars['String']['output'];
};

export type Prompt = {
  __typename?: 'Prompt';
  id: Scalars['String']['output'];
  inputSchema: Scalars['JSON']['output'];
  outputSchema?: Maybe<Scalars['JSON']['output']>;
  template: Scalars['String']['output'];
};

export type Query = {
  __typename?: 'Query';
  /** An agent by name, with its versions (null: the caller has none of that name). */
  agent?: Maybe<Agent>;
  /** The agents the caller may run: the operator's (AEON_AGENTS) and, with API keys bound to users, their own. */
  agents: Array<Agent>;
  health: Health;
  /**
   * Memories across runs: the caller's own with API keys bound to users; else userId's (absent: runs without a user).
   * Newest first; with a query, as the full-text search ranks them (each with its coverage of the query).
   */
  memories: MemoryConnection;
  prompts: Array<Prompt>;
  /**
   * Used and left of each quota (AEON_QUOTAS) a user is held to, now: the caller's own user with API keys bound to
   * users; else userId's (absent: runs without a user). Empty when no quota applies.
   */
  quota: Array<QuotaUsage>;
  run?: Maybe<Run>;
  runs: RunConnection;
  /** One of the caller's schedules, with the runs its ticks started. */
  schedule?: Maybe<Schedule>;
  /** The caller's schedules (with API keys bound to users, their own), oldest first. */
  schedules: Array<Schedule>;
  /** A thread of the caller (with API keys bound to users; else userId's, absent: runs without a user); null: none. */
  thread?: Maybe<Thread>;
  /** The caller's threads (as thread reads them), the latest used first. */
  threads: ThreadConnection;
  tools: Array<Tool>;
};


export type QueryAgentArgs = {
  name: Scalars['String']['input'];
};


export type QueryMemoriesArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
  query?: InputMaybe<Scalars['String']['input']>;
  userId?: InputMaybe<Scalars['ID']['input']>;
};


export type QueryQuotaArgs = {
  userId?: InputMaybe<Scalars['ID']['input']>;
};


export type QueryRunArgs = {
  id: Scalars['ID']['input'];
};


export type QueryRunsArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  filter?: InputMaybe<RunFilter>;
  first?: InputMaybe<Scalars['Int']['input']>;
  status?: InputMaybe<RunStatus>;
  userId?: InputMaybe<Scalars['ID']['input']>;
};


export type QueryScheduleArgs = {
  id: Scalars['ID']['input'];
};


export type QueryThreadArgs = {
  id: Scalars['ID']['input'];
  userId?: InputMaybe<Scalars['ID']['input']>;
};


export type QueryThreadsArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
  userId?: InputMaybe<Scalars['ID']['input']>;
};

/** One quota of a user in its current window (a UTC day or month): the limit, what is used of it, what is left. */
export type QuotaUsage = {
  __typename?: 'QuotaUsage';
  left: Scalars['Float']['output'];
  limit: Scalars['Float']['output'];
  /** cost (USD), tokens or runs */
  metric: Scalars['String']['output'];
  /** day or month (UTC) */
  period: Scalars['String']['output'];
  resetsAt: Scalars['DateTime']['output'];
  used: Scalars['Float']['output'];
  userId: Scalars['ID']['output'];
};

export type ReasoningStep = {
  __typename?: 'ReasoningStep';
  durationMs: Scalars['Int']['output'];
  planStepId?: Maybe<Scalars['String']['output']>;
  status: Scalars['String']['output'];
  stepNumber: Scalars['Int']['output'];
  thought?: Maybe<Scalars['String']['output']>;
  timestamp: Scalars['DateTime']['output'];
  toolInput?: Maybe<Scalars['JSON']['output']>;
  toolName?: Maybe<Scalars['String']['output']>;
  toolOutput?: Maybe<Scalars['JSON']['output']>;
};

export type ReasoningTrace = {
  __typename?: 'ReasoningTrace';
  id: Scalars['ID']['output'];
  steps: Array<ReasoningStep>;
  totalSteps: Scalars['Int']['output'];
};

/** A memory as a run was given it: where it came from and why (its coverage of the task, its search rank). */
export type RecalledMemory = {
  __typename?: 'RecalledMemory';
  coverage: Scalars['Float']['output'];
  id: Scalars['ID']['output'];
  kind: MemoryKind;
  passNumber?: Maybe<Scalars['Int']['output']>;
  rank: Scalars['Int']['output'];
  runId?: Maybe<Scalars['ID']['output']>;
  stepId?: Maybe<Scalars['String']['output']>;
  task: Scalars['String']['output'];
  text: Scalars['String']['output'];
};

export type RefinementAction = {
  __typename?: 'RefinementAction';
  actionType: Scalars['String']['output'];
  inconsistencyDetected: Scalars['Boolean']['output'];
  justification: Scalars['String']['output'];
  newStep?: Maybe<Scalars['JSON']['output']>;
  targetStepId?: Maybe<Scalars['String']['output']>;
};

export type RefinementAppliedEvent = RunEvent & {
  __typename?: 'RefinementAppliedEvent';
  actions: Array<RefinementAction>;
  advisories: Array<Scalars['String']['output']>;
  at: Scalars['DateTime']['output'];
  passNumber: Scalars['Int']['output'];
  payload: Scalars['JSON']['output'];
  runId: Scalars['ID']['output'];
  seq: Scalars['Int']['output'];
  type: Scalars['String']['output'];
};

/** The recorded event (its seq) and what the replay produced instead; each { type, event }, or null for nothing. */
export type ReplayDivergence = {
  __typename?: 'ReplayDivergence';
  expected?: Maybe<Scalars['JSON']['output']>;
  got?: Maybe<Scalars['JSON']['output']>;
  seq: Scalars['Int']['output'];
};

/** A replay's outcome: identical to its recording, or where it first departed from it. */
export type ReplayReport = {
  __typename?: 'ReplayReport';
  divergence?: Maybe<ReplayDivergence>;
  /** The recorded run's events compared. */
  events: Scalars['Int']['output'];
  identical: Scalars['Boolean']['output'];
  runId: Scalars['ID']['output'];
};

/** Of a run's usage, the calls answered from recordings (a fork): counted like the others, not sent, not paid (costUsd: what they would have cost). */
export type ReplayedUsage = {
  __typename?: 'ReplayedUsage';
  costUsd: Scalars['Float']['output'];
  llmCalls: Scalars['Int']['output'];
};

export type Run = {
  __typename?: 'Run';
  /** The agent it is a run of (null: none). */
  agent?: Maybe<RunAgent>;
  /** The runs of agents its steps called as tools, oldest first. */
  children: Array<ChildRunRef>;
  /** What the run quoted of its conversation (null: none). */
  conversation?: Maybe<RunConversation>;
  createdAt: Scalars['DateTime']['output'];
  escalation?: Maybe<Escalation>;
  /**
   * The run's events from fromSeq on, at most first of them (all when first is absent). One operation returns at most
   * AEON_MAX_EVENTS_PER_QUERY events over all its Run.events fields (QUERY_TOO_MANY_EVENTS beyond).
   */
  events: Array<RunEvent>;
  /** The files and images its task carried. */
  files: Array<RunFile>;
  finalAnswer?: Maybe<FinalAnswer>;
  /** What the run was expected to spend, from its validated plan before execution (null before that; a simple iteration forecasts its single pass, an escalated run its full plan: the last one made). */
  forecast?: Maybe<Forecast>;
  /** Once the run ended: how far its forecast was from what it used. */
  forecastError?: Maybe<ForecastError>;
  /** The run it was forked from (forkRun, aeon fork), at which event; null for a run that was not forked. */
  forkedFrom?: Maybe<ForkOrigin>;
  history?: Maybe<ExecutionHistory>;
  id: Scalars['ID']['output'];
  /** The run's recorded model calls in order, at most first (≤ 100) after the cursor. */
  llmCalls: LlmCallConnection;
  metadata?: Maybe<ExecutionMetadata>;
  mode: RunMode;
  /** The model the run's calls go to now. */
  model?: Maybe<Scalars['String']['output']>;
  /** Every model the run's calls went to, in order: more than one when it was resumed on another (RunResumed says when). */
  models: Array<Scalars['String']['output']>;
  /** The run whose step called this run's agent as a tool (null: none). */
  parentRunId?: Maybe<Scalars['ID']['output']>;
  /** Tool calls waiting for a person's decision (respondToApproval answers them). */
  pendingApprovals: Array<ApprovalRequest>;
  /** Where an interactive run the budget would stop asks for more instead (respondToApproval answers: APPROVE with caps as input, or REJECT). */
  pendingBudgetExtensions: Array<BudgetExtensionRequest>;
  /** Where an interactive run asks for guidance (provideGuidance answers). */
  pendingGuidance: Array<GuidanceRequest>;
  /** The run's validated plan waiting for a person's approval (input approvePlan), with its forecast; null when none waits. */
  pendingPlanApproval?: Maybe<PlanApprovalRequest>;
  /** The run's plan now: while it runs, each step as far as it has gone; once it finished, its final plan. */
  plan?: Maybe<Plan>;
  prioritizedPlan?: Maybe<PrioritizedPlan>;
  result?: Maybe<RunOutcome>;
  /** On a cluster (AEON_CLUSTER=1): the address of the runner that took the run up last; null on one server. */
  runner?: Maybe<Scalars['String']['output']>;
  /** The schedule whose tick started this run (null: none). */
  scheduleId?: Maybe<Scalars['ID']['output']>;
  status: RunStatus;
  /** The run's events wait for its store now (the server running it knows; null otherwise): see runStoreWaits. */
  storeWait?: Maybe<StoreWait>;
  /** The labels its input gave (runTask's tags; an eval's eval:/case:; a protocol's conversation: thread:, chat:, context:). */
  tags: Array<Scalars['String']['output']>;
  task: Scalars['String']['output'];
  /** The thread this run is a turn of. */
  threadId?: Maybe<Scalars['ID']['output']>;
  /** The run as a timeline (passes, phases, steps with their times) and its budget used and left: what the viewer draws. */
  timeline?: Maybe<Timeline>;
  trace?: Maybe<ReasoningTrace>;
  updatedAt: Scalars['DateTime']['output'];
  usage?: Maybe<Usage>;
  userId?: Maybe<Scalars['ID']['output']>;
  /** Each attempt at telling its webhook of an event, in order (none without a webhook). */
  webhookDeliveries: Array<WebhookAttempt>;
};


export type RunEventsArgs = {
  first?: InputMaybe<Scalars['Int']['input']>;
  fromSeq?: InputMaybe<Scalars['Int']['input']>;
};


export type RunLlmCallsArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
};

/** The agent a run is a run of, as it ran (version null: an agent given inline). */
export type RunAgent = {
  __typename?: 'RunAgent';
  name: Scalars['String']['output'];
  version?: Maybe<Scalars['Int']['output']>;
};

export type RunConnection = {
  __typename?: 'RunConnection';
  edges: Array<RunEdge>;
  pageInfo: PageInfo;
};

/** What a run quoted of its conversation (its ConversationQuoted event). */
export type RunConversation = {
  __typename?: 'RunConversation';
  /** Whether this run made the summary (a compaction call, in its llmCalls). */
  compacted: Scalars['Boolean']['output'];
  /** Messages before the task in all. */
  messages: Scalars['Int']['output'];
  /** Of them, those in the summary it quoted (made by this run or an earlier turn). */
  summarised: Scalars['Int']['output'];
  /** The summary quoted, if any. */
  summary?: Maybe<Scalars['String']['output']>;
  /** The section as the prompts quoted it. */
  text: Scalars['String']['output'];
  threadId?: Maybe<Scalars['ID']['output']>;
  /** The tokens of the section its plan and answer prompts quoted. */
  tokens: Scalars['Int']['output'];
  /** Its turn in the thread (1: the first). */
  turn?: Maybe<Scalars['Int']['output']>;
};

export type RunEdge = {
  __typename?: 'RunEdge';
  cursor: Scalars['String']['output'];
  node: Run;
};

/** One state change of a run. `payload` holds the event's whole content. */
export type RunEvent = {
  at: Scalars['DateTime']['output'];
  payload: Scalars['JSON']['output'];
  runId: Scalars['ID']['output'];
  seq: Scalars['Int']['output'];
  type: Scalars['String']['output'];
};

/** A file or an image a run's task carried (its bytes stay in the store, by their hash). */
export type RunFile = {
  __typename?: 'RunFile';
  mediaType: Scalars['String']['output'];
  name?: Maybe<Scalars['String']['output']>;
  sha256?: Maybe<Scalars['String']['output']>;
  url?: Maybe<Scalars['String']['output']>;
};

/** Which runs a list holds. */
export type RunFilter = {
  /** Runs of this agent (its name). */
  agent?: InputMaybe<Scalars['String']['input']>;
};

export type RunFinishedEvent = RunEvent & {
  __typename?: 'RunFinishedEvent';
  at: Scalars['DateTime']['output'];
  finalAnswer?: Maybe<FinalAnswer>;
  payload: Scalars['JSON']['output'];
  runId: Scalars['ID']['output'];
  seq: Scalars['Int']['output'];
  status: RunStatus;
  terminationReason: Scalars['String']['output'];
  type: Scalars['String']['output'];
  usage: Usage;
};

/** The run is a fork of another run (from), from its event atSeq: copied events follow. */
export type RunForkedEvent = RunEvent & {
  __typename?: 'RunForkedEvent';
  at: Scalars['DateTime']['output'];
  atSeq: Scalars['Int']['output'];
  changed: Array<Scalars['String']['output']>;
  copied: Scalars['Int']['output'];
  from: Scalars['ID']['output'];
  payload: Scalars['JSON']['output'];
  runId: Scalars['ID']['output'];
  seq: Scalars['Int']['output'];
  type: Scalars['String']['output'];
};

export type RunMode =
  | 'AUTO'
  | 'FULL'
  | 'SIMPLE';

export type RunOutcome = {
  __typename?: 'RunOutcome';
  advisories: Array<Scalars['String']['output']>;
  converged: Scalars['Boolean']['output'];
  error?: Maybe<Scalars['String']['output']>;
  /** The error's code where a caller may act on it: OUTPUT_SCHEMA (the answer has no value of the run's outputSchema; error names the paths that failed). */
  errorCode?: Maybe<Scalars['String']['output']>;
  followUpQuestions: Array<Scalars['String']['output']>;
  manualInterventions: Array<ManualIntervention>;
  terminationReason?: Maybe<Scalars['String']['output']>;
  ttlExpiration?: Maybe<TtlExpiration>;
};

/** The run went on after its server stopped: the steps it had started and not finished run again. */
export type RunResumedEvent = RunEvent & {
  __typename?: 'RunResumedEvent';
  at: Scalars['DateTime']['output'];
  payload: Scalars['JSON']['output'];
  reopenedStepIds: Array<Scalars['String']['output']>;
  runId: Scalars['ID']['output'];
  seq: Scalars['Int']['output'];
  type: Scalars['String']['output'];
};

export type RunStartedEvent = RunEvent & {
  __typename?: 'RunStartedEvent';
  at: Scalars['DateTime']['output'];
  mode: RunMode;
  model: Scalars['String']['output'];
  payload: Scalars['JSON']['output'];
  runId: Scalars['ID']['output'];
  seq: Scalars['Int']['output'];
  task: Scalars['String']['output'];
  type: Scalars['String']['output'];
};

/** AWAITING_INPUT: running, and a tool call waits for a person's approval (see Run.pendingApprovals). */
export type RunStatus =
  | 'AWAITING_INPUT'
  | 'CANCELLED'
  | 'CONVERGED'
  | 'FAILED'
  | 'NOT_CONVERGED'
  | 'QUEUED'
  | 'RUNNING';

export type RunTaskInput = {
  /**
   * The agent to run: its name (the latest version) or name@version (Query.agents). Its definition gives what the
   * input leaves out and bounds what it gives: AGENT_NOT_FOUND, AGENT_OVERRIDE (a tool outside its tools, a larger cap).
   */
  agent?: InputMaybe<Scalars['String']['input']>;
  /** An approval request not answered within this many milliseconds is rejected. */
  approvalTimeoutMs?: InputMaybe<Scalars['Int']['input']>;
  /** More tools whose calls wait for approval in this run (besides AEON_APPROVAL_TOOLS; * for every tool with side effects). */
  approvalTools?: InputMaybe<Array<Scalars['String']['input']>>;
  /** The validated plan waits, with its forecast, for a person's approval before it executes (Run.pendingPlanApproval; respondToApproval answers). Also AEON_APPROVE_PLAN for every run. Not with mode SIMPLE (AUTO runs FULL). */
  approvePlan?: InputMaybe<Scalars['Boolean']['input']>;
  /**
   * Files and images for the task (at most 10, 5 MB each): the plan and the answer calls carry them, each provider in
   * its own form. A model that cannot read one (its media type, or by URL) refuses the run before it starts
   * (AttachmentRefusedError); the offline stand-in reads none. Stored once by their hash, for replay and fork.
   */
  attachments?: InputMaybe<Array<AttachmentInput>>;
  budget?: InputMaybe<BudgetInput>;
  criteria?: InputMaybe<ConvergenceCriteriaInput>;
  /** Plan and forecast only: the run stops before executing anything (CANCELLED, terminationReason dry_run); only the planning calls are paid. Not with mode SIMPLE (AUTO runs FULL). */
  dryRun?: InputMaybe<Scalars['Boolean']['input']>;
  escalate?: InputMaybe<Scalars['Boolean']['input']>;
  /**
   * More guardrails for this run, per point — { "input": [...], "tool_call": [...], "tool_result": [...], "output": [...] },
   * each { "type": "pii" | "secrets" | "denylist" | "maxLength", "action": "redact" | "block", … } (docs/guardrails.md).
   * They add to the server's (AEON_GUARDRAILS): a run never removes one.
   */
  guardrails?: InputMaybe<Scalars['JSON']['input']>;
  /**
   * The conversation before the task as your client holds it, oldest first (a chat UI's messages): quoted as data,
   * compacted by the same rule. When given, it is the context (it wins over the thread's stored turns).
   */
  history?: InputMaybe<Array<ConversationMessageInput>>;
  /** The operator's instructions for this run (trusted, at most 8000 characters): added to the system prompt of its plan and answer calls. */
  instructions?: InputMaybe<Scalars['String']['input']>;
  /** Where the run would need manual intervention, it asks for guidance (Run.pendingGuidance) and waits for it. */
  interactive?: InputMaybe<Scalars['Boolean']['input']>;
  /** Memory across runs (default true): recall what your earlier runs established before planning, and remember this run's answer if it converges. Off for every run with AEON_MEMORY=off. */
  memory?: InputMaybe<Scalars['Boolean']['input']>;
  mode?: InputMaybe<RunMode>;
  /**
   * A message while its thread's turn runs: ENQUEUE (the default) starts after it, seeing its answer; INTERRUPT cancels
   * it (CANCELLED) and starts once it has ended; REJECT refuses it (ThreadBusyError).
   */
  onBusy?: InputMaybe<OnBusy>;
  /** A JSON Schema the answer must meet: Run.finalAnswer.data is a value of it, validated (answerText its readable rendering). Asked for under the provider's structured output; a value that breaks it is repaired once with the exact paths that failed; one that still breaks it ends the run FAILED, result.errorCode OUTPUT_SCHEMA. A schema no provider can take is refused (InvalidOutputSchemaError) with nothing started. */
  outputSchema?: InputMaybe<Scalars['JSON']['input']>;
  /** Strict structured output for outputSchema: true asks it (a schema that cannot have it, e.g. with optional fields, is refused), false never; default: whenever the schema can have it. */
  outputStrict?: InputMaybe<Scalars['Boolean']['input']>;
  /** Independent ready steps run this many at a time (default 4; 1: one after the other, in plan order). */
  parallelism?: InputMaybe<Scalars['Int']['input']>;
  /** The deadline stands still while the run waits for approval or guidance (default false: it keeps running). */
  pauseDeadlineWhileWaiting?: InputMaybe<Scalars['Boolean']['input']>;
  /** A task an earlier converged run of yours answered (the same once normalized, or similar) starts from that run's final plan: no profile or plan call (default true; PlanReused says so). */
  reusePlans?: InputMaybe<Scalars['Boolean']['input']>;
  /** Choose the run's id yourself (letters, digits, - and _), e.g. to subscribe before starting it. */
  runId?: InputMaybe<Scalars['ID']['input']>;
  simpleIterations?: InputMaybe<Scalars['Int']['input']>;
  /** Labels kept with the run (at most 10 of 1-100 characters; an eval's runs carry eval:ID and case:ID). */
  tags?: InputMaybe<Array<Scalars['String']['input']>>;
  task: Scalars['String']['input'];
  /**
   * A thinking budget for each model call (1024–64000; Claude's extended thinking, Gemini's thinkingBudget): reserved
   * in each call's output cap, so the budget admits it; the thinking is recorded with the call (LlmCall.thinking), never
   * in the answer. Default: AEON_THINKING_TOKENS.
   */
  thinkingTokens?: InputMaybe<Scalars['Int']['input']>;
  /**
   * The thread (conversation) this run is the next turn of: its plan and answer see the thread's earlier turns, quoted as
   * data and compacted past AEON_THREAD_CONTEXT_TOKENS. A new id starts a thread (ids are yours: another user's thread
   * is never found). Refused (ThreadBusyError) while a turn of the thread is under way.
   */
  threadId?: InputMaybe<Scalars['ID']['input']>;
  /**
   * UNTRUSTED (the default, or AEON_TOOL_OUTPUTS): a call with side effects that a tool's output steered waits for your
   * approval. TRUSTED: the run takes its tools' outputs as trusted — the opt-out (docs/untrusted-data.md says what it costs).
   */
  toolOutputs?: InputMaybe<ToolOutputs>;
  /** Restrict the run to these tools (names from Query.tools). */
  tools?: InputMaybe<Array<Scalars['String']['input']>>;
  userId?: InputMaybe<Scalars['ID']['input']>;
  /**
   * Where the run's events are POSTed, signed as Standard Webhooks (AEON_WEBHOOK_SECRET): its host must be one of the
   * server's AEON_WEBHOOK_HOSTS (else WEBHOOK_URL_NOT_ALLOWED, nothing stored).
   */
  webhook?: InputMaybe<WebhookInput>;
};

/** A task started on a cron. */
export type Schedule = {
  __typename?: 'Schedule';
  agent?: Maybe<Scalars['String']['output']>;
  createdAt: Scalars['DateTime']['output'];
  cron: Scalars['String']['output'];
  enabled: Scalars['Boolean']['output'];
  id: Scalars['ID']['output'];
  input?: Maybe<Scalars['JSON']['output']>;
  /** When its last tick started a run (null: none yet). */
  lastRunAt?: Maybe<Scalars['DateTime']['output']>;
  /** Its next tick (while enabled). */
  nextRunAt?: Maybe<Scalars['DateTime']['output']>;
  /** The runs its ticks started, newest first (at most 100). */
  runs: Array<ScheduleRun>;
  task: Scalars['String']['output'];
  timezone?: Maybe<Scalars['String']['output']>;
};

export type ScheduleInput = {
  /** The agent each run is a run of (name or name@version). */
  agent?: InputMaybe<Scalars['String']['input']>;
  /** minute hour day month weekday, or seconds first: "0 9 * * 1-5", "*\/30 * * * * *". */
  cron: Scalars['String']['input'];
  /** false: made paused. */
  enabled?: InputMaybe<Scalars['Boolean']['input']>;
  /** More of each run's input: RunTaskInput's other fields (mode, budget, webhook, …). */
  input?: InputMaybe<Scalars['JSON']['input']>;
  task: Scalars['String']['input'];
  /** An IANA time zone (Europe/Paris); UTC unless given. */
  timezone?: InputMaybe<Scalars['String']['input']>;
};

/** A run a schedule's tick started. */
export type ScheduleRun = {
  __typename?: 'ScheduleRun';
  createdAt: Scalars['DateTime']['output'];
  id: Scalars['ID']['output'];
  status: RunStatus;
};

export type SimpleIteration = {
  __typename?: 'SimpleIteration';
  changeSummary: Scalars['String']['output'];
  costUsd: Scalars['Float']['output'];
  durationMs: Scalars['Float']['output'];
  errorMessages: Array<Scalars['String']['output']>;
  failedTests: Array<Scalars['String']['output']>;
  iteration: Scalars['Int']['output'];
  testStatus: Scalars['String']['output'];
};

export type SimpleIterationFinishedEvent = RunEvent & {
  __typename?: 'SimpleIterationFinishedEvent';
  at: Scalars['DateTime']['output'];
  payload: Scalars['JSON']['output'];
  record: SimpleIteration;
  runId: Scalars['ID']['output'];
  seq: Scalars['Int']['output'];
  type: Scalars['String']['output'];
};

export type StepAbandonedEvent = RunEvent & {
  __typename?: 'StepAbandonedEvent';
  at: Scalars['DateTime']['output'];
  passNumber: Scalars['Int']['output'];
  payload: Scalars['JSON']['output'];
  reason: Scalars['String']['output'];
  runId: Scalars['ID']['output'];
  seq: Scalars['Int']['output'];
  stepId: Scalars['String']['output'];
  type: Scalars['String']['output'];
};

export type StepDependency = {
  __typename?: 'StepDependency';
  relationshipType: Scalars['String']['output'];
  source: Scalars['String']['output'];
  target: Scalars['String']['output'];
};

export type StepFinishedEvent = RunEvent & {
  __typename?: 'StepFinishedEvent';
  at: Scalars['DateTime']['output'];
  error?: Maybe<Scalars['String']['output']>;
  passNumber: Scalars['Int']['output'];
  payload: Scalars['JSON']['output'];
  runId: Scalars['ID']['output'];
  seq: Scalars['Int']['output'];
  stepId: Scalars['String']['output'];
  stepOutput: Scalars['String']['output'];
  stepStatus: Scalars['String']['output'];
  type: Scalars['String']['output'];
};

export type StepForecast = {
  __typename?: 'StepForecast';
  expected: ForecastFigures;
  stepId: Scalars['String']['output'];
  worstCase: ForecastFigures;
};

export type StepStartedEvent = RunEvent & {
  __typename?: 'StepStartedEvent';
  at: Scalars['DateTime']['output'];
  passNumber: Scalars['Int']['output'];
  payload: Scalars['JSON']['output'];
  runId: Scalars['ID']['output'];
  seq: Scalars['Int']['output'];
  stepId: Scalars['String']['output'];
  type: Scalars['String']['output'];
};

/** A run's events waiting for its store, or not (any more). */
export type StoreWait = {
  __typename?: 'StoreWait';
  /** Why the store fails, in words, while the run waits. */
  cause?: Maybe<Scalars['String']['output']>;
  runId: Scalars['ID']['output'];
  /** Since when the run waits. */
  since?: Maybe<Scalars['DateTime']['output']>;
  waiting: Scalars['Boolean']['output'];
};

export type Subscription = {
  __typename?: 'Subscription';
  /**
   * The same events as lists, one message per burst (what the run published together: a pass boundary's events
   * arrive as one list), for clients that follow many runs; a replay comes in lists of at most 1,000.
   */
  runEventBatches: Array<RunEvent>;
  /** Replays the run's events from fromSeq, then follows live until the run finishes. */
  runEvents: RunEvent;
  /**
   * The live output of the run's model calls as they write it: pieces coalesced per call (at most one every
   * AEON_STREAM_INTERVAL_MS), never stored (each call's LlmCalled event is its record). A late joiner first gets the
   * text so far of each call in progress, then the live pieces; ends when the run finishes. A subscriber too slow to
   * keep up loses pieces (llmCalls has every call's whole answer); the run never waits for it. Live output is served by
   * the server running the run; on another server of a cluster, this ends when the run does, with no pieces.
   */
  runOutput: LlmOutputDelta;
  /**
   * Whether the run's events wait for its store (the disk full, the database away): the state now, then each change,
   * until the run ends. Never stored (the run's log says it afterwards, as an advisory). Known to the server running the
   * run; on another server of a cluster this ends when the run does.
   */
  runStoreWaits: StoreWait;
};


export type SubscriptionRunEventBatchesArgs = {
  fromSeq?: InputMaybe<Scalars['Int']['input']>;
  runId: Scalars['ID']['input'];
};


export type SubscriptionRunEventsArgs = {
  fromSeq?: InputMaybe<Scalars['Int']['input']>;
  runId: Scalars['ID']['input'];
};


export type SubscriptionRunOutputArgs = {
  runId: Scalars['ID']['input'];
};


export type SubscriptionRunStoreWaitsArgs = {
  runId: Scalars['ID']['input'];
};

export type TtlExpiration = {
  __typename?: 'TTLExpiration';
  coherenceScore: Scalars['Float']['output'];
  completenessScore: Scalars['Float']['output'];
  /** Which budget ran out: ttl, deadline, cost, tokens, llmCalls, steps. */
  exhausted?: Maybe<Scalars['String']['output']>;
  expirationPoint: Scalars['String']['output'];
  latestPassResult?: Maybe<Scalars['JSON']['output']>;
  partialResult?: Maybe<Scalars['JSON']['output']>;
  passNumber: Scalars['Int']['output'];
  reasonCodes: Array<Scalars['String']['output']>;
};

export type TaskProfile = {
  __typename?: 'TaskProfile';
  confidenceRequirement: Scalars['String']['output'];
  expectedToolUsage: Scalars['String']['output'];
  informationSufficiency: Scalars['Float']['output'];
  outputBreadth: Scalars['String']['output'];
  profileVersion: Scalars['Int']['output'];
  rawInference: Scalars['String']['output'];
  reasoningDepth: Scalars['Int']['output'];
};

/** A conversation: a user's runs (turns) in order, each seeing the ones before it. */
export type Thread = {
  __typename?: 'Thread';
  createdAt: Scalars['DateTime']['output'];
  id: Scalars['ID']['output'];
  lastTask?: Maybe<Scalars['String']['output']>;
  turnCount: Scalars['Int']['output'];
  /** Its turns, oldest first. */
  turns: ThreadTurnConnection;
  /** When its last turn started. */
  updatedAt: Scalars['DateTime']['output'];
  userId?: Maybe<Scalars['ID']['output']>;
};


/** A conversation: a user's runs (turns) in order, each seeing the ones before it. */
export type ThreadTurnsArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
};

export type ThreadConnection = {
  __typename?: 'ThreadConnection';
  edges: Array<ThreadEdge>;
  pageInfo: PageInfo;
};

export type ThreadEdge = {
  __typename?: 'ThreadEdge';
  cursor: Scalars['String']['output'];
  node: Thread;
};

/** One turn: what the user asked and what the run answered. */
export type ThreadTurn = {
  __typename?: 'ThreadTurn';
  answer?: Maybe<Scalars['String']['output']>;
  createdAt: Scalars['DateTime']['output'];
  data?: Maybe<Scalars['JSON']['output']>;
  runId: Scalars['ID']['output'];
  status: RunStatus;
  task: Scalars['String']['output'];
  turn: Scalars['Int']['output'];
};

export type ThreadTurnConnection = {
  __typename?: 'ThreadTurnConnection';
  edges: Array<ThreadTurnEdge>;
  pageInfo: PageInfo;
};

export type ThreadTurnEdge = {
  __typename?: 'ThreadTurnEdge';
  cursor: Scalars['String']['output'];
  node: ThreadTurn;
};

/** A run's passes, phases and steps with their times; open ones last until now. A projection of the run's record. */
export type Timeline = {
  __typename?: 'Timeline';
  budget: Array<BudgetGauge>;
  elapsedMs: Scalars['Float']['output'];
  finishedAt?: Maybe<Scalars['DateTime']['output']>;
  passes: Array<TimelinePass>;
  startedAt?: Maybe<Scalars['DateTime']['output']>;
};

export type TimelinePass = {
  __typename?: 'TimelinePass';
  durationMs: Scalars['Float']['output'];
  end?: Maybe<Scalars['DateTime']['output']>;
  passNumber: Scalars['Int']['output'];
  phases: Array<TimelinePhase>;
  start: Scalars['DateTime']['output'];
  steps: Array<TimelineStep>;
};

/** seq: the event that began it (forkRun(atSeq: seq) forks the run there). */
export type TimelinePhase = {
  __typename?: 'TimelinePhase';
  durationMs: Scalars['Float']['output'];
  end?: Maybe<Scalars['DateTime']['output']>;
  phase: Phase;
  seq: Scalars['Int']['output'];
  start: Scalars['DateTime']['output'];
};

/** seq: the event that began it (forkRun(atSeq: seq) forks the run there). Its duration leaves out waitedMs, the time its calls waited for a person (status "waiting for approval" meanwhile). */
export type TimelineStep = {
  __typename?: 'TimelineStep';
  durationMs: Scalars['Float']['output'];
  end?: Maybe<Scalars['DateTime']['output']>;
  seq: Scalars['Int']['output'];
  start: Scalars['DateTime']['output'];
  status: Scalars['String']['output'];
  stepId: Scalars['String']['output'];
  waitedMs: Scalars['Float']['output'];
};

/** A tool a run may call: built in, the library user's, or an MCP server's (named server.tool; server says which). */
export type Tool = {
  __typename?: 'Tool';
  description: Scalars['String']['output'];
  /** May destroy or overwrite (an MCP tool's destructiveHint): it waits for approval when AEON_APPROVAL_TOOLS holds *. */
  destructive: Scalars['Boolean']['output'];
  idempotent: Scalars['Boolean']['output'];
  inputSchema: Scalars['JSON']['output'];
  name: Scalars['String']['output'];
  /** Only reads (an MCP tool's readOnlyHint): an interruption of the run cuts the call off. */
  readOnly: Scalars['Boolean']['output'];
  /** The MCP server the tool comes from; null for Aeon's own tools. */
  server?: Maybe<Scalars['String']['output']>;
  timeoutMs: Scalars['Int']['output'];
};

export type ToolInvokedEvent = RunEvent & {
  __typename?: 'ToolInvokedEvent';
  at: Scalars['DateTime']['output'];
  error?: Maybe<Scalars['String']['output']>;
  output?: Maybe<Scalars['JSON']['output']>;
  passNumber: Scalars['Int']['output'];
  payload: Scalars['JSON']['output'];
  runId: Scalars['ID']['output'];
  seq: Scalars['Int']['output'];
  stepId: Scalars['String']['output'];
  tool: Scalars['String']['output'];
  type: Scalars['String']['output'];
};

/** Whether a run takes its tools' outputs as trusted (docs/untrusted-data.md). */
export type ToolOutputs =
  | 'TRUSTED'
  | 'UNTRUSTED';

/** What a plan call was offered of the run's tools: their names (empty: a task needing no tool, planned without the catalog), how many the run has, and whether they were chosen by the task (a catalog past the bound). */
export type ToolsOfferedEvent = RunEvent & {
  __typename?: 'ToolsOfferedEvent';
  at: Scalars['DateTime']['output'];
  passNumber: Scalars['Int']['output'];
  payload: Scalars['JSON']['output'];
  runId: Scalars['ID']['output'];
  selected: Scalars['Boolean']['output'];
  seq: Scalars['Int']['output'];
  tools: Array<Scalars['String']['output']>;
  total: Scalars['Int']['output'];
  type: Scalars['String']['output'];
};

/** What a run used. cachedTokens: of inputTokens, those the provider read from its prompt cache (priced at its cached rate). */
export type Usage = {
  __typename?: 'Usage';
  cachedTokens: Scalars['Int']['output'];
  costUsd: Scalars['Float']['output'];
  /** Of llmCalls, those whose tokens the provider did not report (missing, 0, not a number): Aeon's count of the whole request and the answer, on the high side. */
  estimatedCalls: Scalars['Int']['output'];
  inputTokens: Scalars['Int']['output'];
  llmCalls: Scalars['Int']['output'];
  outputTokens: Scalars['Int']['output'];
  replayed?: Maybe<ReplayedUsage>;
  steps: Scalars['Int']['output'];
};

export type ValidationIssue = {
  __typename?: 'ValidationIssue';
  description: Scalars['String']['output'];
  issueId: Scalars['String']['output'];
  proposedRepair?: Maybe<Scalars['JSON']['output']>;
  severity: Scalars['String']['output'];
  source?: Maybe<Scalars['String']['output']>;
  stepId?: Maybe<Scalars['String']['output']>;
  type: Scalars['String']['output'];
};

export type ValidationReport = {
  __typename?: 'ValidationReport';
  advisories: Array<Scalars['String']['output']>;
  artifactType: Scalars['String']['output'];
  /** checks: the deterministic checks decided alone (no model review was asked; a simple iteration's economy); model: with the model's review. */
  decidedBy?: Maybe<Scalars['String']['output']>;
  issueSummary: Scalars['JSON']['output'];
  issues: Array<ValidationIssue>;
  overallSeverity: Scalars['String']['output'];
  validationId: Scalars['String']['output'];
};

export type ValidationReportedEvent = RunEvent & {
  __typename?: 'ValidationReportedEvent';
  at: Scalars['DateTime']['output'];
  passNumber: Scalars['Int']['output'];
  payload: Scalars['JSON']['output'];
  report: ValidationReport;
  runId: Scalars['ID']['output'];
  seq: Scalars['Int']['output'];
  type: Scalars['String']['output'];
};

/** One attempt at telling a run's webhook of an event. */
export type WebhookAttempt = {
  __typename?: 'WebhookAttempt';
  at: Scalars['DateTime']['output'];
  /** 1 for the first attempt; a retry carries the same webhook-id. */
  attempt: Scalars['Int']['output'];
  /** This attempt delivered the event (a 2xx). */
  delivered: Scalars['Boolean']['output'];
  error?: Maybe<Scalars['String']['output']>;
  /** run.started, run.awaiting_input or run.finished. */
  event: Scalars['String']['output'];
  /** The receiver's status (null: no answer — a timeout, a refused connection). */
  httpStatus?: Maybe<Scalars['Int']['output']>;
};

/** Where a run's events are POSTed, and which. */
export type WebhookInput = {
  /** run.started, run.awaiting_input, run.finished (the default: run.finished alone). */
  events?: InputMaybe<Array<Scalars['String']['input']>>;
  url: Scalars['String']['input'];
};



export type ResolverTypeWrapper<T> = Promise<T> | T;


export type ResolverWithResolve<TResult, TParent, TContext, TArgs> = {
  resolve: ResolverFn<TResult, TParent, TContext, TArgs>;
};
export type Resolver<TResult, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>, TArgs = Record<PropertyKey, never>> = ResolverFn<TResult, TParent, TContext, TArgs> | ResolverWithResolve<TResult, TParent, TContext, TArgs>;

export type ResolverFn<TResult, TParent, TContext, TArgs> = (
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => Promise<TResult> | TResult;

export type SubscriptionSubscribeFn<TResult, TParent, TContext, TArgs> = (
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => AsyncIterable<TResult> | Promise<AsyncIterable<TResult>>;

export type SubscriptionResolveFn<TResult, TParent, TContext, TArgs> = (
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => TResult | Promise<TResult>;

export interface SubscriptionSubscriberObject<TResult, TKey extends string, TParent, TContext, TArgs> {
  subscribe: SubscriptionSubscribeFn<{ [key in TKey]: TResult }, TParent, TContext, TArgs>;
  resolve?: SubscriptionResolveFn<TResult, { [key in TKey]: TResult }, TContext, TArgs>;
}

export interface SubscriptionResolverObject<TResult, TParent, TContext, TArgs> {
  subscribe: SubscriptionSubscribeFn<any, TParent, TContext, TArgs>;
  resolve: SubscriptionResolveFn<TResult, any, TContext, TArgs>;
}

export type SubscriptionObject<TResult, TKey extends string, TParent, TContext, TArgs> =
  | SubscriptionSubscriberObject<TResult, TKey, TParent, TContext, TArgs>
  | SubscriptionResolverObject<TResult, TParent, TContext, TArgs>;

export type SubscriptionResolver<TResult, TKey extends string, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>, TArgs = Record<PropertyKey, never>> =
  | ((...args: any[]) => SubscriptionObject<TResult, TKey, TParent, TContext, TArgs>)
  | SubscriptionObject<TResult, TKey, TParent, TContext, TArgs>;

export type TypeResolveFn<TTypes, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>> = (
  parent: TParent,
  context: TContext,
  info: GraphQLResolveInfo
) => Maybe<TTypes> | Promise<Maybe<TTypes>>;

export type IsTypeOfResolverFn<T = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>> = (obj: T, context: TContext, info: GraphQLResolveInfo) => boolean | Promise<boolean>;

export type NextResolverFn<T> = () => Promise<T>;

export type DirectiveResolverFn<TResult = Record<PropertyKey, never>, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>, TArgs = Record<PropertyKey, never>> = (
  next: NextResolverFn<TResult>,
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => TResult | Promise<TResult>;





/** Mapping between all available schema types and the resolvers types */
export type ResolversTypes = {
  AdvisoryRaisedEvent: ResolverTypeWrapper<AdvisoryRaisedEvent>;
  Agent: ResolverTypeWrapper<Agent>;
  AgentInput: AgentInput;
  AgentModel: ResolverTypeWrapper<AgentModel>;
  AgentModelInput: AgentModelInput;
  AgentVersion: ResolverTypeWrapper<AgentVersion>;
  ApprovalAnsweredEvent: ResolverTypeWrapper<ApprovalAnsweredEvent>;
  ApprovalDecision: ApprovalDecision;
  ApprovalRequest: ResolverTypeWrapper<ApprovalRequest>;
  ApprovalRequestedEvent: ResolverTypeWrapper<ApprovalRequestedEvent>;
  AttachmentInput: AttachmentInput;
  Boolean: ResolverTypeWrapper<Scalars['Boolean']['output']>;
  BudgetExtensionRequest: ResolverTypeWrapper<BudgetExtensionRequest>;
  BudgetExtensionRequestedEvent: ResolverTypeWrapper<BudgetExtensionRequestedEvent>;
  BudgetGauge: ResolverTypeWrapper<BudgetGauge>;
  BudgetInput: BudgetInput;
  ChildRunRef: ResolverTypeWrapper<ChildRunRef>;
  ConvergenceAssessedEvent: ResolverTypeWrapper<ConvergenceAssessedEvent>;
  ConvergenceAssessment: ResolverTypeWrapper<ConvergenceAssessment>;
  ConvergenceCriteriaInput: ConvergenceCriteriaInput;
  ConversationMessageInput: ConversationMessageInput;
  ConversationQuotedEvent: ResolverTypeWrapper<ConversationQuotedEvent>;
  ConversationRole: ConversationRole;
  DateTime: ResolverTypeWrapper<Scalars['DateTime']['output']>;
  DepthConfiguration: ResolverTypeWrapper<DepthConfiguration>;
  EscalatedEvent: ResolverTypeWrapper<EscalatedEvent>;
  Escalation: ResolverTypeWrapper<Escalation>;
  ExecutionHistory: ResolverTypeWrapper<ExecutionHistory>;
  ExecutionMetadata: ResolverTypeWrapper<ExecutionMetadata>;
  ExecutionPass: ResolverTypeWrapper<ExecutionPass>;
  ExecutionWave: ResolverTypeWrapper<ExecutionWave>;
  FailureSummary: ResolverTypeWrapper<FailureSummary>;
  FinalAnswer: ResolverTypeWrapper<FinalAnswer>;
  Float: ResolverTypeWrapper<Scalars['Float']['output']>;
  Forecast: ResolverTypeWrapper<Forecast>;
  ForecastError: ResolverTypeWrapper<ForecastError>;
  ForecastFigures: ResolverTypeWrapper<ForecastFigures>;
  ForecastMadeEvent: ResolverTypeWrapper<ForecastMadeEvent>;
  ForkApproval: ForkApproval;
  ForkChanges: ForkChanges;
  ForkOrigin: ResolverTypeWrapper<ForkOrigin>;
  GuardrailCount: ResolverTypeWrapper<GuardrailCount>;
  GuardrailTriggeredEvent: ResolverTypeWrapper<GuardrailTriggeredEvent>;
  GuidanceProvidedEvent: ResolverTypeWrapper<GuidanceProvidedEvent>;
  GuidanceRequest: ResolverTypeWrapper<GuidanceRequest>;
  GuidanceRequestedEvent: ResolverTypeWrapper<GuidanceRequestedEvent>;
  Health: ResolverTypeWrapper<Health>;
  ID: ResolverTypeWrapper<Scalars['ID']['output']>;
  Int: ResolverTypeWrapper<Scalars['Int']['output']>;
  JSON: ResolverTypeWrapper<Scalars['JSON']['output']>;
  LlmCall: ResolverTypeWrapper<LlmCall>;
  LlmCallConnection: ResolverTypeWrapper<LlmCallConnection>;
  LlmCallEdge: ResolverTypeWrapper<LlmCallEdge>;
  LlmCalledEvent: ResolverTypeWrapper<LlmCalledEvent>;
  LlmOutputDelta: ResolverTypeWrapper<LlmOutputDelta>;
  ManualIntervention: ResolverTypeWrapper<ManualIntervention>;
  ManualInterventionRequiredEvent: ResolverTypeWrapper<ManualInterventionRequiredEvent>;
  McpServerHealth: ResolverTypeWrapper<McpServerHealth>;
  McpServerStatus: McpServerStatus;
  Memory: ResolverTypeWrapper<Memory>;
  MemoryConnection: ResolverTypeWrapper<MemoryConnection>;
  MemoryEdge: ResolverTypeWrapper<MemoryEdge>;
  MemoryKind: MemoryKind;
  MemoryRecalledEvent: ResolverTypeWrapper<MemoryRecalledEvent>;
  Mutation: ResolverTypeWrapper<Record<PropertyKey, never>>;
  OnBusy: OnBusy;
  PageInfo: ResolverTypeWrapper<PageInfo>;
  PassFinishedEvent: ResolverTypeWrapper<PassFinishedEvent>;
  PassStartedEvent: ResolverTypeWrapper<PassStartedEvent>;
  Phase: Phase;
  PhaseEnteredEvent: ResolverTypeWrapper<PhaseEnteredEvent>;
  Plan: ResolverTypeWrapper<Plan>;
  PlanApprovalRequest: ResolverTypeWrapper<PlanApprovalRequest>;
  PlanApprovalRequestedEvent: ResolverTypeWrapper<PlanApprovalRequestedEvent>;
  PlanCreatedEvent: ResolverTypeWrapper<PlanCreatedEvent>;
  PlanEditInput: PlanEditInput;
  PlanReusedEvent: ResolverTypeWrapper<PlanReusedEvent>;
  PlanStep: ResolverTypeWrapper<PlanStep>;
  PlanStepInput: PlanStepInput;
  PolicyCheck: ResolverTypeWrapper<PolicyCheck>;
  PrioritizedPlan: ResolverTypeWrapper<PrioritizedPlan>;
  ProfileInferredEvent: ResolverTypeWrapper<ProfileInferredEvent>;
  Prompt: ResolverTypeWrapper<Prompt>;
  Query: ResolverTypeWrapper<Record<PropertyKey, never>>;
  QuotaUsage: ResolverTypeWrapper<QuotaUsage>;
  ReasoningStep: ResolverTypeWrapper<ReasoningStep>;
  ReasoningTrace: ResolverTypeWrapper<ReasoningTrace>;
  RecalledMemory: ResolverTypeWrapper<RecalledMemory>;
  RefinementAction: ResolverTypeWrapper<RefinementAction>;
  RefinementAppliedEvent: ResolverTypeWrapper<RefinementAppliedEvent>;
  ReplayDivergence: ResolverTypeWrapper<ReplayDivergence>;
  ReplayReport: ResolverTypeWrapper<ReplayReport>;
  ReplayedUsage: ResolverTypeWrapper<ReplayedUsage>;
  Run: ResolverTypeWrapper<RunModel>;
  RunAgent: ResolverTypeWrapper<RunAgent>;
  RunConnection: ResolverTypeWrapper<Omit<RunConnection, 'edges'> & { edges: Array<ResolversTypes['RunEdge']> }>;
  RunConversation: ResolverTypeWrapper<RunConversation>;
  RunEdge: ResolverTypeWrapper<Omit<RunEdge, 'node'> & { node: ResolversTypes['Run'] }>;
  RunEvent: ResolverTypeWrapper<EventView>;
  RunFile: ResolverTypeWrapper<RunFile>;
  RunFilter: RunFilter;
  RunFinishedEvent: ResolverTypeWrapper<RunFinishedEvent>;
  RunForkedEvent: ResolverTypeWrapper<RunForkedEvent>;
  RunMode: RunMode;
  RunOutcome: ResolverTypeWrapper<RunOutcome>;
  RunResumedEvent: ResolverTypeWrapper<RunResumedEvent>;
  RunStartedEvent: ResolverTypeWrapper<RunStartedEvent>;
  RunStatus: RunStatus;
  RunTaskInput: RunTaskInput;
  Schedule: ResolverTypeWrapper<ScheduleView>;
  ScheduleInput: ScheduleInput;
  ScheduleRun: ResolverTypeWrapper<ScheduleRun>;
  SimpleIteration: ResolverTypeWrapper<SimpleIteration>;
  SimpleIterationFinishedEvent: ResolverTypeWrapper<SimpleIterationFinishedEvent>;
  StepAbandonedEvent: ResolverTypeWrapper<StepAbandonedEvent>;
  StepDependency: ResolverTypeWrapper<StepDependency>;
  StepFinishedEvent: ResolverTypeWrapper<StepFinishedEvent>;
  StepForecast: ResolverTypeWrapper<StepForecast>;
  StepStartedEvent: ResolverTypeWrapper<StepStartedEvent>;
  StoreWait: ResolverTypeWrapper<StoreWait>;
  String: ResolverTypeWrapper<Scalars['String']['output']>;
  Subscription: ResolverTypeWrapper<Record<PropertyKey, never>>;
  TTLExpiration: ResolverTypeWrapper<TtlExpiration>;
  TaskProfile: ResolverTypeWrapper<TaskProfile>;
  Thread: ResolverTypeWrapper<ThreadModel>;
  ThreadConnection: ResolverTypeWrapper<Omit<ThreadConnection, 'edges'> & { edges: Array<ResolversTypes['ThreadEdge']> }>;
  ThreadEdge: ResolverTypeWrapper<Omit<ThreadEdge, 'node'> & { node: ResolversTypes['Thread'] }>;
  ThreadTurn: ResolverTypeWrapper<ThreadTurn>;
  ThreadTurnConnection: ResolverTypeWrapper<ThreadTurnConnection>;
  ThreadTurnEdge: ResolverTypeWrapper<ThreadTurnEdge>;
  Timeline: ResolverTypeWrapper<Timeline>;
  TimelinePass: ResolverTypeWrapper<TimelinePass>;
  TimelinePhase: ResolverTypeWrapper<TimelinePhase>;
  TimelineStep: ResolverTypeWrapper<TimelineStep>;
  Tool: ResolverTypeWrapper<Tool>;
  ToolInvokedEvent: ResolverTypeWrapper<ToolInvokedEvent>;
  ToolOutputs: ToolOutputs;
  ToolsOfferedEvent: ResolverTypeWrapper<ToolsOfferedEvent>;
  Usage: ResolverTypeWrapper<Usage>;
  ValidationIssue: ResolverTypeWrapper<ValidationIssue>;
  ValidationReport: ResolverTypeWrapper<ValidationReport>;
  ValidationReportedEvent: ResolverTypeWrapper<ValidationReportedEvent>;
  WebhookAttempt: ResolverTypeWrapper<WebhookAttempt>;
  WebhookInput: WebhookInput;
};

/** Mapping between all available schema types and the resolvers parents */
export type ResolversParentTypes = {
  AdvisoryRaisedEvent: AdvisoryRaisedEvent;
  Agent: Agent;
  AgentInput: AgentInput;
  AgentModel: AgentModel;
  AgentModelInput: AgentModelInput;
  AgentVersion: AgentVersion;
  ApprovalAnsweredEvent: ApprovalAnsweredEvent;
  ApprovalRequest: ApprovalRequest;
  ApprovalRequestedEvent: ApprovalRequestedEvent;
  AttachmentInput: AttachmentInput;
  Boolean: Scalars['Boolean']['output'];
  BudgetExtensionRequest: BudgetExtensionRequest;
  BudgetExtensionRequestedEvent: BudgetExtensionRequestedEvent;
  BudgetGauge: BudgetGauge;
  BudgetInput: BudgetInput;
  ChildRunRef: ChildRunRef;
  ConvergenceAssessedEvent: ConvergenceAssessedEvent;
  ConvergenceAssessment: ConvergenceAssessment;
  ConvergenceCriteriaInput: ConvergenceCriteriaInput;
  ConversationMessageInput: ConversationMessageInput;
  ConversationQuotedEvent: ConversationQuotedEvent;
  DateTime: Scalars['DateTime']['output'];
  DepthConfiguration: DepthConfiguration;
  EscalatedEvent: EscalatedEvent;
  Escalation: Escalation;
  ExecutionHistory: ExecutionHistory;
  ExecutionMetadata: ExecutionMetadata;
  ExecutionPass: ExecutionPass;
  ExecutionWave: ExecutionWave;
  FailureSummary: FailureSummary;
  FinalAnswer: FinalAnswer;
  Float: Scalars['Float']['output'];
  Forecast: Forecast;
  ForecastError: ForecastError;
  ForecastFigures: ForecastFigures;
  ForecastMadeEvent: ForecastMadeEvent;
  ForkApproval: ForkApproval;
  ForkChanges: ForkChanges;
  ForkOrigin: ForkOrigin;
  GuardrailCount: GuardrailCount;
  GuardrailTriggeredEvent: GuardrailTriggeredEvent;
  GuidanceProvidedEvent: GuidanceProvidedEvent;
  GuidanceRequest: GuidanceRequest;
  GuidanceRequestedEvent: GuidanceRequestedEvent;
  Health: Health;
  ID: Scalars['ID']['output'];
  Int: Scalars['Int']['output'];
  JSON: Scalars['JSON']['output'];
  LlmCall: LlmCall;
  LlmCallConnection: LlmCallConnection;
  LlmCallEdge: LlmCallEdge;
  LlmCalledEvent: LlmCalledEvent;
  LlmOutputDelta: LlmOutputDelta;
  ManualIntervention: ManualIntervention;
  ManualInterventionRequiredEvent: ManualInterventionRequiredEvent;
  McpServerHealth: McpServerHealth;
  Memory: Memory;
  MemoryConnection: MemoryConnection;
  MemoryEdge: MemoryEdge;
  MemoryRecalledEvent: MemoryRecalledEvent;
  Mutation: Record<PropertyKey, never>;
  PageInfo: PageInfo;
  PassFinishedEvent: PassFinishedEvent;
  PassStartedEvent: PassStartedEvent;
  PhaseEnteredEvent: PhaseEnteredEvent;
  Plan: Plan;
  PlanApprovalRequest: PlanApprovalRequest;
  PlanApprovalRequestedEvent: PlanApprovalRequestedEvent;
  PlanCreatedEvent: PlanCreatedEvent;
  PlanEditInput: PlanEditInput;
  PlanReusedEvent: PlanReusedEvent;
  PlanStep: PlanStep;
  PlanStepInput: PlanStepInput;
  PolicyCheck: PolicyCheck;
  PrioritizedPlan: PrioritizedPlan;
  ProfileInferredEvent: ProfileInferredEvent;
  Prompt: Prompt;
  Query: Record<PropertyKey, never>;
  QuotaUsage: QuotaUsage;
  ReasoningStep: ReasoningStep;
  ReasoningTrace: ReasoningTrace;
  RecalledMemory: RecalledMemory;
  RefinementAction: RefinementAction;
  RefinementAppliedEvent: RefinementAppliedEvent;
  ReplayDivergence: ReplayDivergence;
  ReplayReport: ReplayReport;
  ReplayedUsage: ReplayedUsage;
  Run: RunModel;
  RunAgent: RunAgent;
  RunConnection: Omit<RunConnection, 'edges'> & { edges: Array<ResolversParentTypes['RunEdge']> };
  RunConversation: RunConversation;
  RunEdge: Omit<RunEdge, 'node'> & { node: ResolversParentTypes['Run'] };
  RunEvent: EventView;
  RunFile: RunFile;
  RunFilter: RunFilter;
  RunFinishedEvent: RunFinishedEvent;
  RunForkedEvent: RunForkedEvent;
  RunOutcome: RunOutcome;
  RunResumedEvent: RunResumedEvent;
  RunStartedEvent: RunStartedEvent;
  RunTaskInput: RunTaskInput;
  Schedule: ScheduleView;
  ScheduleInput: ScheduleInput;
  ScheduleRun: ScheduleRun;
  SimpleIteration: SimpleIteration;
  SimpleIterationFinishedEvent: SimpleIterationFinishedEvent;
  StepAbandonedEvent: StepAbandonedEvent;
  StepDependency: StepDependency;
  StepFinishedEvent: StepFinishedEvent;
  StepForecast: StepForecast;
  StepStartedEvent: StepStartedEvent;
  StoreWait: StoreWait;
  String: Scalars['String']['output'];
  Subscription: Record<PropertyKey, never>;
  TTLExpiration: TtlExpiration;
  TaskProfile: TaskProfile;
  Thread: ThreadModel;
  ThreadConnection: Omit<ThreadConnection, 'edges'> & { edges: Array<ResolversParentTypes['ThreadEdge']> };
  ThreadEdge: Omit<ThreadEdge, 'node'> & { node: ResolversParentTypes['Thread'] };
  ThreadTurn: ThreadTurn;
  ThreadTurnConnection: ThreadTurnConnection;
  ThreadTurnEdge: ThreadTurnEdge;
  Timeline: Timeline;
  TimelinePass: TimelinePass;
  TimelinePhase: TimelinePhase;
  TimelineStep: TimelineStep;
  Tool: Tool;
  ToolInvokedEvent: ToolInvokedEvent;
  ToolsOfferedEvent: ToolsOfferedEvent;
  Usage: Usage;
  ValidationIssue: ValidationIssue;
  ValidationReport: ValidationReport;
  ValidationReportedEvent: ValidationReportedEvent;
  WebhookAttempt: WebhookAttempt;
  WebhookInput: WebhookInput;
};

export type AdvisoryRaisedEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['AdvisoryRaisedEvent'] = ResolversParentTypes['AdvisoryRaisedEvent']> = {
  advisory?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  at?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  passNumber?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  payload?: Resolver<ResolversTypes['JSON'], ParentType, ContextType>;
  runId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  seq?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type AgentResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Agent'] = ResolversParentTypes['Agent']> = {
  approvalTools?: Resolver<Maybe<Array<ResolversTypes['String']>>, ParentType, ContextType>;
  budget?: Resolver<Maybe<ResolversTypes['JSON']>, ParentType, ContextType>;
  createdAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  description?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  guardrails?: Resolver<Maybe<ResolversTypes['JSON']>, ParentType, ContextType>;
  instructions?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  memory?: Resolver<Maybe<ResolversTypes['Boolean']>, ParentType, ContextType>;
  mode?: Resolver<Maybe<ResolversTypes['RunMode']>, ParentType, ContextType>;
  model?: Resolver<Maybe<ResolversTypes['AgentModel']>, ParentType, ContextType>;
  name?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  outputSchema?: Resolver<Maybe<ResolversTypes['JSON']>, ParentType, ContextType>;
  owner?: Resolver<Maybe<ResolversTypes['ID']>, ParentType, ContextType>;
  tools?: Resolver<Maybe<Array<ResolversTypes['String']>>, ParentType, ContextType>;
  version?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  versions?: Resolver<Array<ResolversTypes['AgentVersion']>, ParentType, ContextType>;
};

export type AgentModelResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['AgentModel'] = ResolversParentTypes['AgentModel']> = {
  byPhase?: Resolver<Maybe<ResolversTypes['JSON']>, ParentType, ContextType>;
  model?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  provider?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type AgentVersionResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['AgentVersion'] = ResolversParentTypes['AgentVersion']> = {
  createdAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  version?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
};

export type ApprovalAnsweredEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ApprovalAnsweredEvent'] = ResolversParentTypes['ApprovalAnsweredEvent']> = {
  at?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  decision?: Resolver<ResolversTypes['ApprovalDecision'], ParentType, ContextType>;
  input?: Resolver<Maybe<ResolversTypes['JSON']>, ParentType, ContextType>;
  payload?: Resolver<ResolversTypes['JSON'], ParentType, ContextType>;
  reason?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  requestId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  runId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  seq?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type ApprovalRequestResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ApprovalRequest'] = ResolversParentTypes['ApprovalRequest']> = {
  description?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  expiresAt?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  input?: Resolver<Maybe<ResolversTypes['JSON']>, ParentType, ContextType>;
  reason?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  requestId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  requestedAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  stepId?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  tool?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  untrustedSources?: Resolver<Maybe<Array<ResolversTypes['String']>>, ParentType, ContextType>;
};

export type ApprovalRequestedEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ApprovalRequestedEvent'] = ResolversParentTypes['ApprovalRequestedEvent']> = {
  at?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  description?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  input?: Resolver<Maybe<ResolversTypes['JSON']>, ParentType, ContextType>;
  passNumber?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  payload?: Resolver<ResolversTypes['JSON'], ParentType, ContextType>;
  requestId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  runId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  seq?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  stepId?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  tool?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type BudgetExtensionRequestResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['BudgetExtensionRequest'] = ResolversParentTypes['BudgetExtensionRequest']> = {
  dimension?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  expiresAt?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  forecast?: Resolver<Maybe<ResolversTypes['Forecast']>, ParentType, ContextType>;
  limit?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  needs?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  proposed?: Resolver<ResolversTypes['JSON'], ParentType, ContextType>;
  requestId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  requestedAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  used?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
};

export type BudgetExtensionRequestedEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['BudgetExtensionRequestedEvent'] = ResolversParentTypes['BudgetExtensionRequestedEvent']> = {
  at?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  dimension?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  limit?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  needs?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  payload?: Resolver<ResolversTypes['JSON'], ParentType, ContextType>;
  requestId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  runId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  seq?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  used?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type BudgetGaugeResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['BudgetGauge'] = ResolversParentTypes['BudgetGauge']> = {
  cap?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
  left?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
  name?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  used?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
};

export type ChildRunRefResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ChildRunRef'] = ResolversParentTypes['ChildRunRef']> = {
  agent?: Resolver<Maybe<ResolversTypes['RunAgent']>, ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  status?: Resolver<ResolversTypes['RunStatus'], ParentType, ContextType>;
};

export type ConvergenceAssessedEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ConvergenceAssessedEvent'] = ResolversParentTypes['ConvergenceAssessedEvent']> = {
  assessment?: Resolver<ResolversTypes['ConvergenceAssessment'], ParentType, ContextType>;
  at?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  passNumber?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  payload?: Resolver<ResolversTypes['JSON'], ParentType, ContextType>;
  runId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  seq?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type ConvergenceAssessmentResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ConvergenceAssessment'] = ResolversParentTypes['ConvergenceAssessment']> = {
  coherenceScore?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  completenessScore?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  consistencyStatus?: Resolver<ResolversTypes['JSON'], ParentType, ContextType>;
  converged?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  decidedBy?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  detectedIssues?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  explanation?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  reasonCodes?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
};

export type ConversationQuotedEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ConversationQuotedEvent'] = ResolversParentTypes['ConversationQuotedEvent']> = {
  at?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  conversation?: Resolver<ResolversTypes['RunConversation'], ParentType, ContextType>;
  payload?: Resolver<ResolversTypes['JSON'], ParentType, ContextType>;
  runId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  seq?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export interface DateTimeScalarConfig extends GraphQLScalarTypeConfig<ResolversTypes['DateTime'], any> {
  name: 'DateTime';
}

export type DepthConfigurationResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['DepthConfiguration'] = ResolversParentTypes['DepthConfiguration']> = {
  adjustmentReason?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  allocatedTtl?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  ambiguityScore?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
  detectedComplexity?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  heuristicsUsed?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  reasoningMode?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  uncertaintyScore?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
};

export type EscalatedEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['EscalatedEvent'] = ResolversParentTypes['EscalatedEvent']> = {
  at?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  iterationsRun?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  payload?: Resolver<ResolversTypes['JSON'], ParentType, ContextType>;
  reason?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  runId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  seq?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type EscalationResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Escalation'] = ResolversParentTypes['Escalation']> = {
  escalated?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  failureSummary?: Resolver<Maybe<ResolversTypes['FailureSummary']>, ParentType, ContextType>;
  iterations?: Resolver<Array<ResolversTypes['SimpleIteration']>, ParentType, ContextType>;
  reason?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  remainingBudget?: Resolver<Maybe<ResolversTypes['JSON']>, ParentType, ContextType>;
};

export type ExecutionHistoryResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ExecutionHistory'] = ResolversParentTypes['ExecutionHistory']> = {
  convergenceAchieved?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  passes?: Resolver<Array<ResolversTypes['ExecutionPass']>, ParentType, ContextType>;
  totalPasses?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  totalRefinements?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  totalTimeSeconds?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
};

export type ExecutionMetadataResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ExecutionMetadata'] = ResolversParentTypes['ExecutionMetadata']> = {
  errorCount?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  stepsTaken?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  successRate?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  thinkingTimeMs?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  toolCallCounts?: Resolver<ResolversTypes['JSON'], ParentType, ContextType>;
  toolExecutionTimeMs?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  totalTimeMs?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
};

export type ExecutionPassResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ExecutionPass'] = ResolversParentTypes['ExecutionPass']> = {
  advisories?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  convergence?: Resolver<Maybe<ResolversTypes['ConvergenceAssessment']>, ParentType, ContextType>;
  depth?: Resolver<Maybe<ResolversTypes['DepthConfiguration']>, ParentType, ContextType>;
  durationSeconds?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  endTime?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  executionResults?: Resolver<ResolversTypes['JSON'], ParentType, ContextType>;
  passNumber?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  phases?: Resolver<Array<ResolversTypes['Phase']>, ParentType, ContextType>;
  plan?: Resolver<ResolversTypes['Plan'], ParentType, ContextType>;
  profile?: Resolver<Maybe<ResolversTypes['TaskProfile']>, ParentType, ContextType>;
  refinements?: Resolver<Array<ResolversTypes['RefinementAction']>, ParentType, ContextType>;
  startTime?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  ttlRemaining?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  validationReport?: Resolver<Maybe<ResolversTypes['ValidationReport']>, ParentType, ContextType>;
};

export type ExecutionWaveResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ExecutionWave'] = ResolversParentTypes['ExecutionWave']> = {
  parallelExecution?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  stepIds?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  waveNumber?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
};

export type FailureSummaryResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['FailureSummary'] = ResolversParentTypes['FailureSummary']> = {
  finalTestState?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  summary?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  totalCostUsd?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  totalDurationMs?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  totalIterations?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  uniqueErrors?: Resolver<ResolversTypes['JSON'], ParentType, ContextType>;
};

export type FinalAnswerResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['FinalAnswer'] = ResolversParentTypes['FinalAnswer']> = {
  answerText?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  confidence?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
  converged?: Resolver<Maybe<ResolversTypes['Boolean']>, ParentType, ContextType>;
  data?: Resolver<Maybe<ResolversTypes['JSON']>, ParentType, ContextType>;
  label?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  notes?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  ttlExhausted?: Resolver<Maybe<ResolversTypes['Boolean']>, ParentType, ContextType>;
  usedStepIds?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
};

export type ForecastResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Forecast'] = ResolversParentTypes['Forecast']> = {
  basis?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  expected?: Resolver<ResolversTypes['ForecastFigures'], ParentType, ContextType>;
  expectedPasses?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  perStep?: Resolver<Array<ResolversTypes['StepForecast']>, ParentType, ContextType>;
  similarRuns?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  spent?: Resolver<ResolversTypes['ForecastFigures'], ParentType, ContextType>;
  worstCase?: Resolver<ResolversTypes['ForecastFigures'], ParentType, ContextType>;
  worstCasePasses?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
};

export type ForecastErrorResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ForecastError'] = ResolversParentTypes['ForecastError']> = {
  costUsd?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
  llmCalls?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
  tokens?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
  wallMs?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
  withinWorstCase?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
};

export type ForecastFiguresResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ForecastFigures'] = ResolversParentTypes['ForecastFigures']> = {
  costUsd?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  llmCalls?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  tokens?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  wallMs?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
};

export type ForecastMadeEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ForecastMadeEvent'] = ResolversParentTypes['ForecastMadeEvent']> = {
  at?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  forecast?: Resolver<ResolversTypes['Forecast'], ParentType, ContextType>;
  passNumber?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  payload?: Resolver<ResolversTypes['JSON'], ParentType, ContextType>;
  runId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  seq?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type ForkOriginResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ForkOrigin'] = ResolversParentTypes['ForkOrigin']> = {
  atSeq?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  changed?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  runId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
};

export type GuardrailCountResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['GuardrailCount'] = ResolversParentTypes['GuardrailCount']> = {
  action?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  count?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  guardrail?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  point?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type GuardrailTriggeredEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['GuardrailTriggeredEvent'] = ResolversParentTypes['GuardrailTriggeredEvent']> = {
  action?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  at?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  guardrail?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  kinds?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  payload?: Resolver<ResolversTypes['JSON'], ParentType, ContextType>;
  point?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  runId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  seq?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  stepId?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type GuidanceProvidedEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['GuidanceProvidedEvent'] = ResolversParentTypes['GuidanceProvidedEvent']> = {
  at?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  payload?: Resolver<ResolversTypes['JSON'], ParentType, ContextType>;
  requestId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  runId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  seq?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  text?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type GuidanceRequestResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['GuidanceRequest'] = ResolversParentTypes['GuidanceRequest']> = {
  expiresAt?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  reason?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  requestId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  requestedAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  stepId?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type GuidanceRequestedEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['GuidanceRequestedEvent'] = ResolversParentTypes['GuidanceRequestedEvent']> = {
  at?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  passNumber?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  payload?: Resolver<ResolversTypes['JSON'], ParentType, ContextType>;
  reason?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  requestId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  runId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  seq?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  stepId?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type HealthResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Health'] = ResolversParentTypes['Health']> = {
  activeRuns?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  database?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  guardrailTriggers?: Resolver<Array<ResolversTypes['GuardrailCount']>, ParentType, ContextType>;
  mcpServers?: Resolver<Array<ResolversTypes['McpServerHealth']>, ParentType, ContextType>;
  model?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  modelConditions?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  ok?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  queuedRuns?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  runsWaitingForStore?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  storeFailure?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  subscriptions?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  version?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export interface JsonScalarConfig extends GraphQLScalarTypeConfig<ResolversTypes['JSON'], any> {
  name: 'JSON';
}

export type LlmCallResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['LlmCall'] = ResolversParentTypes['LlmCall']> = {
  at?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  attempt?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  cacheWriteTokens?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  cachedTokens?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  costUsd?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  decodeError?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  error?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  estimated?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  failedModels?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  finishReason?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  inputTokens?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  latencyMs?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  model?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  output?: Resolver<Maybe<ResolversTypes['JSON']>, ParentType, ContextType>;
  outputTokens?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  passNumber?: Resolver<Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
  phase?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  promptId?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  replayed?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  response?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  seq?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  stepId?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  system?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  thinking?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  user?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type LlmCallConnectionResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['LlmCallConnection'] = ResolversParentTypes['LlmCallConnection']> = {
  edges?: Resolver<Array<ResolversTypes['LlmCallEdge']>, ParentType, ContextType>;
  pageInfo?: Resolver<ResolversTypes['PageInfo'], ParentType, ContextType>;
};

export type LlmCallEdgeResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['LlmCallEdge'] = ResolversParentTypes['LlmCallEdge']> = {
  cursor?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  node?: Resolver<ResolversTypes['LlmCall'], ParentType, ContextType>;
};

export type LlmCalledEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['LlmCalledEvent'] = ResolversParentTypes['LlmCalledEvent']> = {
  at?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  costUsd?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  inputTokens?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  latencyMs?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  outputTokens?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  payload?: Resolver<ResolversTypes['JSON'], ParentType, ContextType>;
  promptId?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  recorded?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  runId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  seq?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type LlmOutputDeltaResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['LlmOutputDelta'] = ResolversParentTypes['LlmOutputDelta']> = {
  afterSeq?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  answerText?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  callId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  done?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  passNumber?: Resolver<Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
  promptId?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  runId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  stepId?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  text?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type ManualInterventionResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ManualIntervention'] = ResolversParentTypes['ManualIntervention']> = {
  reason?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  stepId?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type ManualInterventionRequiredEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ManualInterventionRequiredEvent'] = ResolversParentTypes['ManualInterventionRequiredEvent']> = {
  at?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  passNumber?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  payload?: Resolver<ResolversTypes['JSON'], ParentType, ContextType>;
  reason?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  runId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  seq?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  stepId?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type McpServerHealthResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['McpServerHealth'] = ResolversParentTypes['McpServerHealth']> = {
  lastError?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  name?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  status?: Resolver<ResolversTypes['McpServerStatus'], ParentType, ContextType>;
  toolCount?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  transport?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type MemoryResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Memory'] = ResolversParentTypes['Memory']> = {
  coverage?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
  createdAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  kind?: Resolver<ResolversTypes['MemoryKind'], ParentType, ContextType>;
  passNumber?: Resolver<Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
  runId?: Resolver<Maybe<ResolversTypes['ID']>, ParentType, ContextType>;
  stepId?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  tags?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  task?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  text?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type MemoryConnectionResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['MemoryConnection'] = ResolversParentTypes['MemoryConnection']> = {
  edges?: Resolver<Array<ResolversTypes['MemoryEdge']>, ParentType, ContextType>;
  pageInfo?: Resolver<ResolversTypes['PageInfo'], ParentType, ContextType>;
};

export type MemoryEdgeResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['MemoryEdge'] = ResolversParentTypes['MemoryEdge']> = {
  cursor?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  node?: Resolver<ResolversTypes['Memory'], ParentType, ContextType>;
};

export type MemoryRecalledEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['MemoryRecalledEvent'] = ResolversParentTypes['MemoryRecalledEvent']> = {
  at?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  memories?: Resolver<Array<ResolversTypes['RecalledMemory']>, ParentType, ContextType>;
  passNumber?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  payload?: Resolver<ResolversTypes['JSON'], ParentType, ContextType>;
  runId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  seq?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type MutationResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Mutation'] = ResolversParentTypes['Mutation']> = {
  cancelRun?: Resolver<ResolversTypes['Run'], ParentType, ContextType, RequireFields<MutationCancelRunArgs, 'id'>>;
  createSchedule?: Resolver<ResolversTypes['Schedule'], ParentType, ContextType, RequireFields<MutationCreateScheduleArgs, 'input'>>;
  deleteAgent?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType, RequireFields<MutationDeleteAgentArgs, 'name'>>;
  deleteSchedule?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType, RequireFields<MutationDeleteScheduleArgs, 'id'>>;
  forgetMemories?: Resolver<ResolversTypes['Int'], ParentType, ContextType, Partial<MutationForgetMemoriesArgs>>;
  forgetMemory?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType, RequireFields<MutationForgetMemoryArgs, 'id'>>;
  forgetRun?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType, RequireFields<MutationForgetRunArgs, 'id'>>;
  forgetThread?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType, RequireFields<MutationForgetThreadArgs, 'id'>>;
  forkRun?: Resolver<ResolversTypes['Run'], ParentType, ContextType, RequireFields<MutationForkRunArgs, 'atSeq' | 'runId'>>;
  pauseSchedule?: Resolver<Maybe<ResolversTypes['Schedule']>, ParentType, ContextType, RequireFields<MutationPauseScheduleArgs, 'id'>>;
  provideGuidance?: Resolver<ResolversTypes['Run'], ParentType, ContextType, RequireFields<MutationProvideGuidanceArgs, 'requestId' | 'runId' | 'text'>>;
  recheckRun?: Resolver<Array<ResolversTypes['PolicyCheck']>, ParentType, ContextType, RequireFields<MutationRecheckRunArgs, 'runId'>>;
  replayRun?: Resolver<ResolversTypes['ReplayReport'], ParentType, ContextType, RequireFields<MutationReplayRunArgs, 'runId'>>;
  respondToApproval?: Resolver<ResolversTypes['Run'], ParentType, ContextType, RequireFields<MutationRespondToApprovalArgs, 'decision' | 'requestId' | 'runId'>>;
  resumeSchedule?: Resolver<Maybe<ResolversTypes['Schedule']>, ParentType, ContextType, RequireFields<MutationResumeScheduleArgs, 'id'>>;
  runTask?: Resolver<ResolversTypes['Run'], ParentType, ContextType, RequireFields<MutationRunTaskArgs, 'input'>>;
  saveAgent?: Resolver<ResolversTypes['Agent'], ParentType, ContextType, RequireFields<MutationSaveAgentArgs, 'input'>>;
};

export type PageInfoResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['PageInfo'] = ResolversParentTypes['PageInfo']> = {
  endCursor?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  hasNextPage?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
};

export type PassFinishedEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['PassFinishedEvent'] = ResolversParentTypes['PassFinishedEvent']> = {
  at?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  passNumber?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  payload?: Resolver<ResolversTypes['JSON'], ParentType, ContextType>;
  runId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  seq?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  ttlRemaining?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type PassStartedEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['PassStartedEvent'] = ResolversParentTypes['PassStartedEvent']> = {
  at?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  passNumber?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  payload?: Resolver<ResolversTypes['JSON'], ParentType, ContextType>;
  runId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  seq?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  ttlRemaining?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type PhaseEnteredEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['PhaseEnteredEvent'] = ResolversParentTypes['PhaseEnteredEvent']> = {
  at?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  passNumber?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  payload?: Resolver<ResolversTypes['JSON'], ParentType, ContextType>;
  phase?: Resolver<ResolversTypes['Phase'], ParentType, ContextType>;
  runId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  seq?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type PlanResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Plan'] = ResolversParentTypes['Plan']> = {
  answer?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  goal?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  steps?: Resolver<Array<ResolversTypes['PlanStep']>, ParentType, ContextType>;
};

export type PlanApprovalRequestResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['PlanApprovalRequest'] = ResolversParentTypes['PlanApprovalRequest']> = {
  expiresAt?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  forecast?: Resolver<ResolversTypes['Forecast'], ParentType, ContextType>;
  plan?: Resolver<ResolversTypes['Plan'], ParentType, ContextType>;
  requestId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  requestedAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  validationReport?: Resolver<Maybe<ResolversTypes['ValidationReport']>, ParentType, ContextType>;
};

export type PlanApprovalRequestedEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['PlanApprovalRequestedEvent'] = ResolversParentTypes['PlanApprovalRequestedEvent']> = {
  at?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  forecast?: Resolver<ResolversTypes['Forecast'], ParentType, ContextType>;
  passNumber?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  payload?: Resolver<ResolversTypes['JSON'], ParentType, ContextType>;
  plan?: Resolver<ResolversTypes['Plan'], ParentType, ContextType>;
  requestId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  runId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  seq?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type PlanCreatedEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['PlanCreatedEvent'] = ResolversParentTypes['PlanCreatedEvent']> = {
  at?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  passNumber?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  payload?: Resolver<ResolversTypes['JSON'], ParentType, ContextType>;
  plan?: Resolver<ResolversTypes['Plan'], ParentType, ContextType>;
  runId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  seq?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type PlanReusedEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['PlanReusedEvent'] = ResolversParentTypes['PlanReusedEvent']> = {
  at?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  fromRun?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  match?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  passNumber?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  payload?: Resolver<ResolversTypes['JSON'], ParentType, ContextType>;
  runId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  seq?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  task?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type PlanStepResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['PlanStep'] = ResolversParentTypes['PlanStep']> = {
  answer?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  clarityState?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  dependencies?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  description?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  error?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  manualIntervention?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  status?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  stepId?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  stepIndex?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  stepOutput?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  subplan?: Resolver<Maybe<ResolversTypes['JSON']>, ParentType, ContextType>;
  supersededBy?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  tool?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  toolInput?: Resolver<Maybe<ResolversTypes['JSON']>, ParentType, ContextType>;
};

export type PolicyCheckResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['PolicyCheck'] = ResolversParentTypes['PolicyCheck']> = {
  held?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  input?: Resolver<Maybe<ResolversTypes['JSON']>, ParentType, ContextType>;
  passNumber?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  reason?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  seq?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  stepId?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  tool?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  wouldHold?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
};

export type PrioritizedPlanResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['PrioritizedPlan'] = ResolversParentTypes['PrioritizedPlan']> = {
  dependencies?: Resolver<Array<ResolversTypes['StepDependency']>, ParentType, ContextType>;
  orderedStepIds?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  waves?: Resolver<Array<ResolversTypes['ExecutionWave']>, ParentType, ContextType>;
};

export type ProfileInferredEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ProfileInferredEvent'] = ResolversParentTypes['ProfileInferredEvent']> = {
  at?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  depth?: Resolver<ResolversTypes['DepthConfiguration'], ParentType, ContextType>;
  passNumber?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  payload?: Resolver<ResolversTypes['JSON'], ParentType, ContextType>;
  profile?: Resolver<ResolversTypes['TaskProfile'], ParentType, ContextType>;
  runId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  seq?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type PromptResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Prompt'] = ResolversParentTypes['Prompt']> = {
  id?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  inputSchema?: Resolver<ResolversTypes['JSON'], ParentType, ContextType>;
  outputSchema?: Resolver<Maybe<ResolversTypes['JSON']>, ParentType, ContextType>;
  template?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type QueryResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Query'] = ResolversParentTypes['Query']> = {
  agent?: Resolver<Maybe<ResolversTypes['Agent']>, ParentType, ContextType, RequireFields<QueryAgentArgs, 'name'>>;
  agents?: Resolver<Array<ResolversTypes['Agent']>, ParentType, ContextType>;
  health?: Resolver<ResolversTypes['Health'], ParentType, ContextType>;
  memories?: Resolver<ResolversTypes['MemoryConnection'], ParentType, ContextType, RequireFields<QueryMemoriesArgs, 'first'>>;
  prompts?: Resolver<Array<ResolversTypes['Prompt']>, ParentType, ContextType>;
  quota?: Resolver<Array<ResolversTypes['QuotaUsage']>, ParentType, ContextType, Partial<QueryQuotaArgs>>;
  run?: Resolver<Maybe<ResolversTypes['Run']>, ParentType, ContextType, RequireFields<QueryRunArgs, 'id'>>;
  runs?: Resolver<ResolversTypes['RunConnection'], ParentType, ContextType, RequireFields<QueryRunsArgs, 'first'>>;
  schedule?: Resolver<Maybe<ResolversTypes['Schedule']>, ParentType, ContextType, RequireFields<QueryScheduleArgs, 'id'>>;
  schedules?: Resolver<Array<ResolversTypes['Schedule']>, ParentType, ContextType>;
  thread?: Resolver<Maybe<ResolversTypes['Thread']>, ParentType, ContextType, RequireFields<QueryThreadArgs, 'id'>>;
  threads?: Resolver<ResolversTypes['ThreadConnection'], ParentType, ContextType, RequireFields<QueryThreadsArgs, 'first'>>;
  tools?: Resolver<Array<ResolversTypes['Tool']>, ParentType, ContextType>;
};

export type QuotaUsageResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['QuotaUsage'] = ResolversParentTypes['QuotaUsage']> = {
  left?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  limit?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  metric?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  period?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  resetsAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  used?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  userId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
};

export type ReasoningStepResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ReasoningStep'] = ResolversParentTypes['ReasoningStep']> = {
  durationMs?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  planStepId?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  status?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  stepNumber?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  thought?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  timestamp?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  toolInput?: Resolver<Maybe<ResolversTypes['JSON']>, ParentType, ContextType>;
  toolName?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  toolOutput?: Resolver<Maybe<ResolversTypes['JSON']>, ParentType, ContextType>;
};

export type ReasoningTraceResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ReasoningTrace'] = ResolversParentTypes['ReasoningTrace']> = {
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  steps?: Resolver<Array<ResolversTypes['ReasoningStep']>, ParentType, ContextType>;
  totalSteps?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
};

export type RecalledMemoryResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['RecalledMemory'] = ResolversParentTypes['RecalledMemory']> = {
  coverage?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  kind?: Resolver<ResolversTypes['MemoryKind'], ParentType, ContextType>;
  passNumber?: Resolver<Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
  rank?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  runId?: Resolver<Maybe<ResolversTypes['ID']>, ParentType, ContextType>;
  stepId?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  task?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  text?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type RefinementActionResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['RefinementAction'] = ResolversParentTypes['RefinementAction']> = {
  actionType?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  inconsistencyDetected?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  justification?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  newStep?: Resolver<Maybe<ResolversTypes['JSON']>, ParentType, ContextType>;
  targetStepId?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export type RefinementAppliedEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['RefinementAppliedEvent'] = ResolversParentTypes['RefinementAppliedEvent']> = {
  actions?: Resolver<Array<ResolversTypes['RefinementAction']>, ParentType, ContextType>;
  advisories?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  at?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  passNumber?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  payload?: Resolver<ResolversTypes['JSON'], ParentType, ContextType>;
  runId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  seq?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type ReplayDivergenceResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ReplayDivergence'] = ResolversParentTypes['ReplayDivergence']> = {
  expected?: Resolver<Maybe<ResolversTypes['JSON']>, ParentType, ContextType>;
  got?: Resolver<Maybe<ResolversTypes['JSON']>, ParentType, ContextType>;
  seq?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
};

export type ReplayReportResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ReplayReport'] = ResolversParentTypes['ReplayReport']> = {
  divergence?: Resolver<Maybe<ResolversTypes['ReplayDivergence']>, ParentType, ContextType>;
  events?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  identical?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  runId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
};

export type ReplayedUsageResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ReplayedUsage'] = ResolversParentTypes['ReplayedUsage']> = {
  costUsd?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  llmCalls?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
};

export type RunResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Run'] = ResolversParentTypes['Run']> = {
  agent?: Resolver<Maybe<ResolversTypes['RunAgent']>, ParentType, ContextType>;
  children?: Resolver<Array<ResolversTypes['ChildRunRef']>, ParentType, ContextType>;
  conversation?: Resolver<Maybe<ResolversTypes['RunConversation']>, ParentType, ContextType>;
  createdAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  escalation?: Resolver<Maybe<ResolversTypes['Escalation']>, ParentType, ContextType>;
  events?: Resolver<Array<ResolversTypes['RunEvent']>, ParentType, ContextType, RequireFields<RunEventsArgs, 'fromSeq'>>;
  files?: Resolver<Array<ResolversTypes['RunFile']>, ParentType, ContextType>;
  finalAnswer?: Resolver<Maybe<ResolversTypes['FinalAnswer']>, ParentType, ContextType>;
  forecast?: Resolver<Maybe<ResolversTypes['Forecast']>, ParentType, ContextType>;
  forecastError?: Resolver<Maybe<ResolversTypes['ForecastError']>, ParentType, ContextType>;
  forkedFrom?: Resolver<Maybe<ResolversTypes['ForkOrigin']>, ParentType, ContextType>;
  history?: Resolver<Maybe<ResolversTypes['ExecutionHistory']>, ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  llmCalls?: Resolver<ResolversTypes['LlmCallConnection'], ParentType, ContextType, RequireFields<RunLlmCallsArgs, 'first'>>;
  metadata?: Resolver<Maybe<ResolversTypes['ExecutionMetadata']>, ParentType, ContextType>;
  mode?: Resolver<ResolversTypes['RunMode'], ParentType, ContextType>;
  model?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  models?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  parentRunId?: Resolver<Maybe<ResolversTypes['ID']>, ParentType, ContextType>;
  pendingApprovals?: Resolver<Array<ResolversTypes['ApprovalRequest']>, ParentType, ContextType>;
  pendingBudgetExtensions?: Resolver<Array<ResolversTypes['BudgetExtensionRequest']>, ParentType, ContextType>;
  pendingGuidance?: Resolver<Array<ResolversTypes['GuidanceRequest']>, ParentType, ContextType>;
  pendingPlanApproval?: Resolver<Maybe<ResolversTypes['PlanApprovalRequest']>, ParentType, ContextType>;
  plan?: Resolver<Maybe<ResolversTypes['Plan']>, ParentType, ContextType>;
  prioritizedPlan?: Resolver<Maybe<ResolversTypes['PrioritizedPlan']>, ParentType, ContextType>;
  result?: Resolver<Maybe<ResolversTypes['RunOutcome']>, ParentType, ContextType>;
  runner?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  scheduleId?: Resolver<Maybe<ResolversTypes['ID']>, ParentType, ContextType>;
  status?: Resolver<ResolversTypes['RunStatus'], ParentType, ContextType>;
  storeWait?: Resolver<Maybe<ResolversTypes['StoreWait']>, ParentType, ContextType>;
  tags?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  task?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  threadId?: Resolver<Maybe<ResolversTypes['ID']>, ParentType, ContextType>;
  timeline?: Resolver<Maybe<ResolversTypes['Timeline']>, ParentType, ContextType>;
  trace?: Resolver<Maybe<ResolversTypes['ReasoningTrace']>, ParentType, ContextType>;
  updatedAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  usage?: Resolver<Maybe<ResolversTypes['Usage']>, ParentType, ContextType>;
  userId?: Resolver<Maybe<ResolversTypes['ID']>, ParentType, ContextType>;
  webhookDeliveries?: Resolver<Array<ResolversTypes['WebhookAttempt']>, ParentType, ContextType>;
};

export type RunAgentResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['RunAgent'] = ResolversParentTypes['RunAgent']> = {
  name?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  version?: Resolver<Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
};

export type RunConnectionResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['RunConnection'] = ResolversParentTypes['RunConnection']> = {
  edges?: Resolver<Array<ResolversTypes['RunEdge']>, ParentType, ContextType>;
  pageInfo?: Resolver<ResolversTypes['PageInfo'], ParentType, ContextType>;
};

export type RunConversationResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['RunConversation'] = ResolversParentTypes['RunConversation']> = {
  compacted?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  messages?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  summarised?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  summary?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  text?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  threadId?: Resolver<Maybe<ResolversTypes['ID']>, ParentType, ContextType>;
  tokens?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  turn?: Resolver<Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
};

export type RunEdgeResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['RunEdge'] = ResolversParentTypes['RunEdge']> = {
  cursor?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  node?: Resolver<ResolversTypes['Run'], ParentType, ContextType>;
};

export type RunEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['RunEvent'] = ResolversParentTypes['RunEvent']> = {
  __resolveType: TypeResolveFn<'AdvisoryRaisedEvent' | 'ApprovalAnsweredEvent' | 'ApprovalRequestedEvent' | 'BudgetExtensionRequestedEvent' | 'ConvergenceAssessedEvent' | 'ConversationQuotedEvent' | 'EscalatedEvent' | 'ForecastMadeEvent' | 'GuardrailTriggeredEvent' | 'GuidanceProvidedEvent' | 'GuidanceRequestedEvent' | 'LlmCalledEvent' | 'ManualInterventionRequiredEvent' | 'MemoryRecalledEvent' | 'PassFinishedEvent' | 'PassStartedEvent' | 'PhaseEnteredEvent' | 'PlanApprovalRequestedEvent' | 'PlanCreatedEvent' | 'PlanReusedEvent' | 'ProfileInferredEvent' | 'RefinementAppliedEvent' | 'RunFinishedEvent' | 'RunForkedEvent' | 'RunResumedEvent' | 'RunStartedEvent' | 'SimpleIterationFinishedEvent' | 'StepAbandonedEvent' | 'StepFinishedEvent' | 'StepStartedEvent' | 'ToolInvokedEvent' | 'ToolsOfferedEvent' | 'ValidationReportedEvent', ParentType, ContextType>;
};

export type RunFileResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['RunFile'] = ResolversParentTypes['RunFile']> = {
  mediaType?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  name?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  sha256?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  url?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export type RunFinishedEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['RunFinishedEvent'] = ResolversParentTypes['RunFinishedEvent']> = {
  at?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  finalAnswer?: Resolver<Maybe<ResolversTypes['FinalAnswer']>, ParentType, ContextType>;
  payload?: Resolver<ResolversTypes['JSON'], ParentType, ContextType>;
  runId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  seq?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  status?: Resolver<ResolversTypes['RunStatus'], ParentType, ContextType>;
  terminationReason?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  usage?: Resolver<ResolversTypes['Usage'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type RunForkedEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['RunForkedEvent'] = ResolversParentTypes['RunForkedEvent']> = {
  at?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  atSeq?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  changed?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  copied?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  from?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  payload?: Resolver<ResolversTypes['JSON'], ParentType, ContextType>;
  runId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  seq?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type RunOutcomeResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['RunOutcome'] = ResolversParentTypes['RunOutcome']> = {
  advisories?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  converged?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  error?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  errorCode?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  followUpQuestions?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  manualInterventions?: Resolver<Array<ResolversTypes['ManualIntervention']>, ParentType, ContextType>;
  terminationReason?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  ttlExpiration?: Resolver<Maybe<ResolversTypes['TTLExpiration']>, ParentType, ContextType>;
};

export type RunResumedEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['RunResumedEvent'] = ResolversParentTypes['RunResumedEvent']> = {
  at?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  payload?: Resolver<ResolversTypes['JSON'], ParentType, ContextType>;
  reopenedStepIds?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  runId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  seq?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type RunStartedEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['RunStartedEvent'] = ResolversParentTypes['RunStartedEvent']> = {
  at?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  mode?: Resolver<ResolversTypes['RunMode'], ParentType, ContextType>;
  model?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  payload?: Resolver<ResolversTypes['JSON'], ParentType, ContextType>;
  runId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  seq?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  task?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type ScheduleResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Schedule'] = ResolversParentTypes['Schedule']> = {
  agent?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  createdAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  cron?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  enabled?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  input?: Resolver<Maybe<ResolversTypes['JSON']>, ParentType, ContextType>;
  lastRunAt?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  nextRunAt?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  runs?: Resolver<Array<ResolversTypes['ScheduleRun']>, ParentType, ContextType>;
  task?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  timezone?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export type ScheduleRunResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ScheduleRun'] = ResolversParentTypes['ScheduleRun']> = {
  createdAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  status?: Resolver<ResolversTypes['RunStatus'], ParentType, ContextType>;
};

export type SimpleIterationResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['SimpleIteration'] = ResolversParentTypes['SimpleIteration']> = {
  changeSummary?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  costUsd?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  durationMs?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  errorMessages?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  failedTests?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  iteration?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  testStatus?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type SimpleIterationFinishedEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['SimpleIterationFinishedEvent'] = ResolversParentTypes['SimpleIterationFinishedEvent']> = {
  at?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  payload?: Resolver<ResolversTypes['JSON'], ParentType, ContextType>;
  record?: Resolver<ResolversTypes['SimpleIteration'], ParentType, ContextType>;
  runId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  seq?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type StepAbandonedEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['StepAbandonedEvent'] = ResolversParentTypes['StepAbandonedEvent']> = {
  at?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  passNumber?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  payload?: Resolver<ResolversTypes['JSON'], ParentType, ContextType>;
  reason?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  runId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  seq?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  stepId?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type StepDependencyResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['StepDependency'] = ResolversParentTypes['StepDependency']> = {
  relationshipType?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  source?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  target?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type StepFinishedEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['StepFinishedEvent'] = ResolversParentTypes['StepFinishedEvent']> = {
  at?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  error?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  passNumber?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  payload?: Resolver<ResolversTypes['JSON'], ParentType, ContextType>;
  runId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  seq?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  stepId?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  stepOutput?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  stepStatus?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type StepForecastResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['StepForecast'] = ResolversParentTypes['StepForecast']> = {
  expected?: Resolver<ResolversTypes['ForecastFigures'], ParentType, ContextType>;
  stepId?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  worstCase?: Resolver<ResolversTypes['ForecastFigures'], ParentType, ContextType>;
};

export type StepStartedEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['StepStartedEvent'] = ResolversParentTypes['StepStartedEvent']> = {
  at?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  passNumber?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  payload?: Resolver<ResolversTypes['JSON'], ParentType, ContextType>;
  runId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  seq?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  stepId?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type StoreWaitResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['StoreWait'] = ResolversParentTypes['StoreWait']> = {
  cause?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  runId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  since?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  waiting?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
};

export type SubscriptionResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Subscription'] = ResolversParentTypes['Subscription']> = {
  runEventBatches?: SubscriptionResolver<Array<ResolversTypes['RunEvent']>, "runEventBatches", ParentType, ContextType, RequireFields<SubscriptionRunEventBatchesArgs, 'fromSeq' | 'runId'>>;
  runEvents?: SubscriptionResolver<ResolversTypes['RunEvent'], "runEvents", ParentType, ContextType, RequireFields<SubscriptionRunEventsArgs, 'fromSeq' | 'runId'>>;
  runOutput?: SubscriptionResolver<ResolversTypes['LlmOutputDelta'], "runOutput", ParentType, ContextType, RequireFields<SubscriptionRunOutputArgs, 'runId'>>;
  runStoreWaits?: SubscriptionResolver<ResolversTypes['StoreWait'], "runStoreWaits", ParentType, ContextType, RequireFields<SubscriptionRunStoreWaitsArgs, 'runId'>>;
};

export type TtlExpirationResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['TTLExpiration'] = ResolversParentTypes['TTLExpiration']> = {
  coherenceScore?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  completenessScore?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  exhausted?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  expirationPoint?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  latestPassResult?: Resolver<Maybe<ResolversTypes['JSON']>, ParentType, ContextType>;
  partialResult?: Resolver<Maybe<ResolversTypes['JSON']>, ParentType, ContextType>;
  passNumber?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  reasonCodes?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
};

export type TaskProfileResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['TaskProfile'] = ResolversParentTypes['TaskProfile']> = {
  confidenceRequirement?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  expectedToolUsage?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  informationSufficiency?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  outputBreadth?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  profileVersion?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  rawInference?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  reasoningDepth?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
};

export type ThreadResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Thread'] = ResolversParentTypes['Thread']> = {
  createdAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  lastTask?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  turnCount?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  turns?: Resolver<ResolversTypes['ThreadTurnConnection'], ParentType, ContextType, RequireFields<ThreadTurnsArgs, 'first'>>;
  updatedAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  userId?: Resolver<Maybe<ResolversTypes['ID']>, ParentType, ContextType>;
};

export type ThreadConnectionResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ThreadConnection'] = ResolversParentTypes['ThreadConnection']> = {
  edges?: Resolver<Array<ResolversTypes['ThreadEdge']>, ParentType, ContextType>;
  pageInfo?: Resolver<ResolversTypes['PageInfo'], ParentType, ContextType>;
};

export type ThreadEdgeResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ThreadEdge'] = ResolversParentTypes['ThreadEdge']> = {
  cursor?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  node?: Resolver<ResolversTypes['Thread'], ParentType, ContextType>;
};

export type ThreadTurnResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ThreadTurn'] = ResolversParentTypes['ThreadTurn']> = {
  answer?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  createdAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  data?: Resolver<Maybe<ResolversTypes['JSON']>, ParentType, ContextType>;
  runId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  status?: Resolver<ResolversTypes['RunStatus'], ParentType, ContextType>;
  task?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  turn?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
};

export type ThreadTurnConnectionResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ThreadTurnConnection'] = ResolversParentTypes['ThreadTurnConnection']> = {
  edges?: Resolver<Array<ResolversTypes['ThreadTurnEdge']>, ParentType, ContextType>;
  pageInfo?: Resolver<ResolversTypes['PageInfo'], ParentType, ContextType>;
};

export type ThreadTurnEdgeResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ThreadTurnEdge'] = ResolversParentTypes['ThreadTurnEdge']> = {
  cursor?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  node?: Resolver<ResolversTypes['ThreadTurn'], ParentType, ContextType>;
};

export type TimelineResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Timeline'] = ResolversParentTypes['Timeline']> = {
  budget?: Resolver<Array<ResolversTypes['BudgetGauge']>, ParentType, ContextType>;
  elapsedMs?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  finishedAt?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  passes?: Resolver<Array<ResolversTypes['TimelinePass']>, ParentType, ContextType>;
  startedAt?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
};

export type TimelinePassResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['TimelinePass'] = ResolversParentTypes['TimelinePass']> = {
  durationMs?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  end?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  passNumber?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  phases?: Resolver<Array<ResolversTypes['TimelinePhase']>, ParentType, ContextType>;
  start?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  steps?: Resolver<Array<ResolversTypes['TimelineStep']>, ParentType, ContextType>;
};

export type TimelinePhaseResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['TimelinePhase'] = ResolversParentTypes['TimelinePhase']> = {
  durationMs?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  end?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  phase?: Resolver<ResolversTypes['Phase'], ParentType, ContextType>;
  seq?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  start?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
};

export type TimelineStepResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['TimelineStep'] = ResolversParentTypes['TimelineStep']> = {
  durationMs?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  end?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  seq?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  start?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  status?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  stepId?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  waitedMs?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
};

export type ToolResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Tool'] = ResolversParentTypes['Tool']> = {
  description?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  destructive?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  idempotent?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  inputSchema?: Resolver<ResolversTypes['JSON'], ParentType, ContextType>;
  name?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  readOnly?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  server?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  timeoutMs?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
};

export type ToolInvokedEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ToolInvokedEvent'] = ResolversParentTypes['ToolInvokedEvent']> = {
  at?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  error?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  output?: Resolver<Maybe<ResolversTypes['JSON']>, ParentType, ContextType>;
  passNumber?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  payload?: Resolver<ResolversTypes['JSON'], ParentType, ContextType>;
  runId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  seq?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  stepId?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  tool?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type ToolsOfferedEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ToolsOfferedEvent'] = ResolversParentTypes['ToolsOfferedEvent']> = {
  at?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  passNumber?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  payload?: Resolver<ResolversTypes['JSON'], ParentType, ContextType>;
  runId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  selected?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  seq?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  tools?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  total?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type UsageResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Usage'] = ResolversParentTypes['Usage']> = {
  cachedTokens?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  costUsd?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  estimatedCalls?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  inputTokens?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  llmCalls?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  outputTokens?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  replayed?: Resolver<Maybe<ResolversTypes['ReplayedUsage']>, ParentType, ContextType>;
  steps?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
};

export type ValidationIssueResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ValidationIssue'] = ResolversParentTypes['ValidationIssue']> = {
  description?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  issueId?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  proposedRepair?: Resolver<Maybe<ResolversTypes['JSON']>, ParentType, ContextType>;
  severity?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  source?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  stepId?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type ValidationReportResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ValidationReport'] = ResolversParentTypes['ValidationReport']> = {
  advisories?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  artifactType?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  decidedBy?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  issueSummary?: Resolver<ResolversTypes['JSON'], ParentType, ContextType>;
  issues?: Resolver<Array<ResolversTypes['ValidationIssue']>, ParentType, ContextType>;
  overallSeverity?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  validationId?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type ValidationReportedEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ValidationReportedEvent'] = ResolversParentTypes['ValidationReportedEvent']> = {
  at?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  passNumber?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  payload?: Resolver<ResolversTypes['JSON'], ParentType, ContextType>;
  report?: Resolver<ResolversTypes['ValidationReport'], ParentType, ContextType>;
  runId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  seq?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type WebhookAttemptResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['WebhookAttempt'] = ResolversParentTypes['WebhookAttempt']> = {
  at?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  attempt?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  delivered?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  error?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  event?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  httpStatus?: Resolver<Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
};

export type Resolvers<ContextType = GraphQLContext> = {
  AdvisoryRaisedEvent?: AdvisoryRaisedEventResolvers<ContextType>;
  Agent?: AgentResolvers<ContextType>;
  AgentModel?: AgentModelResolvers<ContextType>;
  AgentVersion?: AgentVersionResolvers<ContextType>;
  ApprovalAnsweredEvent?: ApprovalAnsweredEventResolvers<ContextType>;
  ApprovalRequest?: ApprovalRequestResolvers<ContextType>;
  ApprovalRequestedEvent?: ApprovalRequestedEventResolvers<ContextType>;
  BudgetExtensionRequest?: BudgetExtensionRequestResolvers<ContextType>;
  BudgetExtensionRequestedEvent?: BudgetExtensionRequestedEventResolvers<ContextType>;
  BudgetGauge?: BudgetGaugeResolvers<ContextType>;
  ChildRunRef?: ChildRunRefResolvers<ContextType>;
  ConvergenceAssessedEvent?: ConvergenceAssessedEventResolvers<ContextType>;
  ConvergenceAssessment?: ConvergenceAssessmentResolvers<ContextType>;
  ConversationQuotedEvent?: ConversationQuotedEventResolvers<ContextType>;
  DateTime?: GraphQLScalarType;
  DepthConfiguration?: DepthConfigurationResolvers<ContextType>;
  EscalatedEvent?: EscalatedEventResolvers<ContextType>;
  Escalation?: EscalationResolvers<ContextType>;
  ExecutionHistory?: ExecutionHistoryResolvers<ContextType>;
  ExecutionMetadata?: ExecutionMetadataResolvers<ContextType>;
  ExecutionPass?: ExecutionPassResolvers<ContextType>;
  ExecutionWave?: ExecutionWaveResolvers<ContextType>;
  FailureSummary?: FailureSummaryResolvers<ContextType>;
  FinalAnswer?: FinalAnswerResolvers<ContextType>;
  Forecast?: ForecastResolvers<ContextType>;
  ForecastError?: ForecastErrorResolvers<ContextType>;
  ForecastFigures?: ForecastFiguresResolvers<ContextType>;
  ForecastMadeEvent?: ForecastMadeEventResolvers<ContextType>;
  ForkOrigin?: ForkOriginResolvers<ContextType>;
  GuardrailCount?: GuardrailCountResolvers<ContextType>;
  GuardrailTriggeredEvent?: GuardrailTriggeredEventResolvers<ContextType>;
  GuidanceProvidedEvent?: GuidanceProvidedEventResolvers<ContextType>;
  GuidanceRequest?: GuidanceRequestResolvers<ContextType>;
  GuidanceRequestedEvent?: GuidanceRequestedEventResolvers<ContextType>;
  Health?: HealthResolvers<ContextType>;
  JSON?: GraphQLScalarType;
  LlmCall?: LlmCallResolvers<ContextType>;
  LlmCallConnection?: LlmCallConnectionResolvers<ContextType>;
  LlmCallEdge?: LlmCallEdgeResolvers<ContextType>;
  LlmCalledEvent?: LlmCalledEventResolvers<ContextType>;
  LlmOutputDelta?: LlmOutputDeltaResolvers<ContextType>;
  ManualIntervention?: ManualInterventionResolvers<ContextType>;
  ManualInterventionRequiredEvent?: ManualInterventionRequiredEventResolvers<ContextType>;
  McpServerHealth?: McpServerHealthResolvers<ContextType>;
  Memory?: MemoryResolvers<ContextType>;
  MemoryConnection?: MemoryConnectionResolvers<ContextType>;
  MemoryEdge?: MemoryEdgeResolvers<ContextType>;
  MemoryRecalledEvent?: MemoryRecalledEventResolvers<ContextType>;
  Mutation?: MutationResolvers<ContextType>;
  PageInfo?: PageInfoResolvers<ContextType>;
  PassFinishedEvent?: PassFinishedEventResolvers<ContextType>;
  PassStartedEvent?: PassStartedEventResolvers<ContextType>;
  PhaseEnteredEvent?: PhaseEnteredEventResolvers<ContextType>;
  Plan?: PlanResolvers<ContextType>;
  PlanApprovalRequest?: PlanApprovalRequestResolvers<ContextType>;
  PlanApprovalRequestedEvent?: PlanApprovalRequestedEventResolvers<ContextType>;
  PlanCreatedEvent?: PlanCreatedEventResolvers<ContextType>;
  PlanReusedEvent?: PlanReusedEventResolvers<ContextType>;
  PlanStep?: PlanStepResolvers<ContextType>;
  PolicyCheck?: PolicyCheckResolvers<ContextType>;
  PrioritizedPlan?: PrioritizedPlanResolvers<ContextType>;
  ProfileInferredEvent?: ProfileInferredEventResolvers<ContextType>;
  Prompt?: PromptResolvers<ContextType>;
  Query?: QueryResolvers<ContextType>;
  QuotaUsage?: QuotaUsageResolvers<ContextType>;
  ReasoningStep?: ReasoningStepResolvers<ContextType>;
  ReasoningTrace?: ReasoningTraceResolvers<ContextType>;
  RecalledMemory?: RecalledMemoryResolvers<ContextType>;
  RefinementAction?: RefinementActionResolvers<ContextType>;
  RefinementAppliedEvent?: RefinementAppliedEventResolvers<ContextType>;
  ReplayDivergence?: ReplayDivergenceResolvers<ContextType>;
  ReplayReport?: ReplayReportResolvers<ContextType>;
  ReplayedUsage?: ReplayedUsageResolvers<ContextType>;
  Run?: RunResolvers<ContextType>;
  RunAgent?: RunAgentResolvers<ContextType>;
  RunConnection?: RunConnectionResolvers<ContextType>;
  RunConversation?: RunConversationResolvers<ContextType>;
  RunEdge?: RunEdgeResolvers<ContextType>;
  RunEvent?: RunEventResolvers<ContextType>;
  RunFile?: RunFileResolvers<ContextType>;
  RunFinishedEvent?: RunFinishedEventResolvers<ContextType>;
  RunForkedEvent?: RunForkedEventResolvers<ContextType>;
  RunOutcome?: RunOutcomeResolvers<ContextType>;
  RunResumedEvent?: RunResumedEventResolvers<ContextType>;
  RunStartedEvent?: RunStartedEventResolvers<ContextType>;
  Schedule?: ScheduleResolvers<ContextType>;
  ScheduleRun?: ScheduleRunResolvers<ContextType>;
  SimpleIteration?: SimpleIterationResolvers<ContextType>;
  SimpleIterationFinishedEvent?: SimpleIterationFinishedEventResolvers<ContextType>;
  StepAbandonedEvent?: StepAbandonedEventResolvers<ContextType>;
  StepDependency?: StepDependencyResolvers<ContextType>;
  StepFinishedEvent?: StepFinishedEventResolvers<ContextType>;
  StepForecast?: StepForecastResolvers<ContextType>;
  StepStartedEvent?: StepStartedEventResolvers<ContextType>;
  StoreWait?: StoreWaitResolvers<ContextType>;
  Subscription?: SubscriptionResolvers<ContextType>;
  TTLExpiration?: TtlExpirationResolvers<ContextType>;
  TaskProfile?: TaskProfileResolvers<ContextType>;
  Thread?: ThreadResolvers<ContextType>;
  ThreadConnection?: ThreadConnectionResolvers<ContextType>;
  ThreadEdge?: ThreadEdgeResolvers<ContextType>;
  ThreadTurn?: ThreadTurnResolvers<ContextType>;
  ThreadTurnConnection?: ThreadTurnConnectionResolvers<ContextType>;
  ThreadTurnEdge?: ThreadTurnEdgeResolvers<ContextType>;
  Timeline?: TimelineResolvers<ContextType>;
  TimelinePass?: TimelinePassResolvers<ContextType>;
  TimelinePhase?: TimelinePhaseResolvers<ContextType>;
  TimelineStep?: TimelineStepResolvers<ContextType>;
  Tool?: ToolResolvers<ContextType>;
  ToolInvokedEvent?: ToolInvokedEventResolvers<ContextType>;
  ToolsOfferedEvent?: ToolsOfferedEventResolvers<ContextType>;
  Usage?: UsageResolvers<ContextType>;
  ValidationIssue?: ValidationIssueResolvers<ContextType>;
  ValidationReport?: ValidationReportResolvers<ContextType>;
  ValidationReportedEvent?: ValidationReportedEventResolvers<ContextType>;
  WebhookAttempt?: WebhookAttemptResolvers<ContextType>;
};

