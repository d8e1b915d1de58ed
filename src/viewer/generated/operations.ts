/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
/** APPROVE runs the call as asked, EDIT with the input given, REJECT fails its step with the reason. */
export type ApprovalDecision =
  | 'APPROVE'
  | 'EDIT'
  | 'REJECT';

export type AttachmentInput = {
  /** The bytes, base64. */
  data: string | null | undefined;
  /** image/png, image/jpeg, application/pdf, text/plain, … */
  mediaType: string;
  name: string | null | undefined;
  /** Where the provider fetches it, instead of the bytes. */
  url: string | null | undefined;
};

/** Limits of one run. Every field is optional; defaults apply. */
export type BudgetInput = {
  /** Wall-time deadline in milliseconds. */
  deadlineMs: number | null | undefined;
  maxCostUsd: number | null | undefined;
  maxLlmCalls: number | null | undefined;
  maxSteps: number | null | undefined;
  maxTokens: number | null | undefined;
  /** Cycles (execution passes). */
  ttl: number | null | undefined;
};

/** When a run counts as converged. */
export type ConvergenceCriteriaInput = {
  /** A regular expression the answer must match. */
  answerMatches: string | null | undefined;
  /** Terms the answer must mention. */
  answerMentions: Array<string> | null | undefined;
  /** A JSON Schema the answer (as JSON) must satisfy. */
  answerSchema: unknown;
  coherenceThreshold: number | null | undefined;
  completenessThreshold: number | null | undefined;
  requireConsistency: boolean | null | undefined;
  /** Reason codes the convergence verdict must carry (e.g. "complete") for the run to converge. */
  requiredReasonCodes: Array<string> | null | undefined;
};

export type ConversationMessageInput = {
  role: ConversationRole;
  text: string;
};

export type ConversationRole =
  | 'assistant'
  | 'user';

export type McpServerStatus =
  | 'CONNECTED'
  | 'CONNECTING'
  | 'FAILED'
  | 'RECONNECTING';

export type MemoryKind =
  | 'ANSWER'
  | 'NOTED'
  | 'STEP';

/** What a message on a thread does while the thread's turn runs. */
export type OnBusy =
  | 'ENQUEUE'
  | 'INTERRUPT'
  | 'REJECT';

export type Phase =
  | 'EVALUATE'
  | 'EXECUTE'
  | 'PLAN'
  | 'REFINE'
  | 'RE_EXECUTE';

/** Which runs a list holds. */
export type RunFilter = {
  /** Runs of this agent (its name). */
  agent: string | null | undefined;
};

export type RunMode =
  | 'AUTO'
  | 'FULL'
  | 'SIMPLE';

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
  agent: string | null | undefined;
  /** An approval request not answered within this many milliseconds is rejected. */
  approvalTimeoutMs: number | null | undefined;
  /** More tools whose calls wait for approval in this run (besides AEON_APPROVAL_TOOLS; * for every tool with side effects). */
  approvalTools: Array<string> | null | undefined;
  /** The validated plan waits, with its forecast, for a person's approval before it executes (Run.pendingPlanApproval; respondToApproval answers). Also AEON_APPROVE_PLAN for every run. Not with mode SIMPLE (AUTO runs FULL). */
  approvePlan: boolean | null | undefined;
  /**
   * Files and images for the task (at most 10, 5 MB each): the plan and the answer calls carry them, each provider in
   * its own form. A model that cannot read one (its media type, or by URL) refuses the run before it starts
   * (AttachmentRefusedError); the offline stand-in reads none. Stored once by their hash, for replay and fork.
   */
  attachments: Array<AttachmentInput> | null | undefined;
  budget: BudgetInput | null | undefined;
  criteria: ConvergenceCriteriaInput | null | undefined;
  /** Plan and forecast only: the run stops before executing anything (CANCELLED, terminationReason dry_run); only the planning calls are paid. Not with mode SIMPLE (AUTO runs FULL). */
  dryRun: boolean | null | undefined;
  escalate: boolean | null | undefined;
  /**
   * More guardrails for this run, per point — { "input": [...], "tool_call": [...], "tool_result": [...], "output": [...] },
   * each { "type": "pii" | "secrets" | "denylist" | "maxLength", "action": "redact" | "block", … } (docs/guardrails.md).
   * They add to the server's (AEON_GUARDRAILS): a run never removes one.
   */
  guardrails: unknown;
  /**
   * The conversation before the task as your client holds it, oldest first (a chat UI's messages): quoted as data,
   * compacted by the same rule. When given, it is the context (it wins over the thread's stored turns).
   */
  history: Array<ConversationMessageInput> | null | undefined;
  /** The operator's instructions for this run (trusted, at most 8000 characters): added to the system prompt of its plan and answer calls. */
  instructions: string | null | undefined;
  /** Where the run would need manual intervention, it asks for guidance (Run.pendingGuidance) and waits for it. */
  interactive: boolean | null | undefined;
  /** Memory across runs (default true): recall what your earlier runs established before planning, and remember this run's answer if it converges. Off for every run with AEON_MEMORY=off. */
  memory: boolean | null | undefined;
  mode: RunMode | null | undefined;
  /**
   * A message while its thread's turn runs: ENQUEUE (the default) starts after it, seeing its answer; INTERRUPT cancels
   * it (CANCELLED) and starts once it has ended; REJECT refuses it (ThreadBusyError).
   */
  onBusy: OnBusy | null | undefined;
  /** A JSON Schema the answer must meet: Run.finalAnswer.data is a value of it, validated (answerText its readable rendering). Asked for under the provider's structured output; a value that breaks it is repaired once with the exact paths that failed; one that still breaks it ends the run FAILED, result.errorCode OUTPUT_SCHEMA. A schema no provider can take is refused (InvalidOutputSchemaError) with nothing started. */
  outputSchema: unknown;
  /** Strict structured output for outputSchema: true asks it (a schema that cannot have it, e.g. with optional fields, is refused), false never; default: whenever the schema can have it. */
  outputStrict: boolean | null | undefined;
  /** Independent ready steps run this many at a time (default 4; 1: one after the other, in plan order). */
  parallelism: number | null | undefined;
  /** The deadline stands still while the run waits for approval or guidance (default false: it keeps running). */
  pauseDeadlineWhileWaiting: boolean | null | undefined;
  /** A task an earlier converged run of yours answered (the same once normalized, or similar) starts from that run's final plan: no profile or plan call (default true; PlanReused says so). */
  reusePlans: boolean | null | undefined;
  /** Choose the run's id yourself (letters, digits, - and _), e.g. to subscribe before starting it. */
  runId: string | number | null | undefined;
  simpleIterations: number | null | undefined;
  /** Labels kept with the run (at most 10 of 1-100 characters; an eval's runs carry eval:ID and case:ID). */
  tags: Array<string> | null | undefined;
  task: string;
  /**
   * A thinking budget for each model call (1024–64000; Claude's extended thinking, Gemini's thinkingBudget): reserved
   * in each call's output cap, so the budget admits it; the thinking is recorded with the call (LlmCall.thinking), never
   * in the answer. Default: AEON_THINKING_TOKENS.
   */
  thinkingTokens: number | null | undefined;
  /**
   * The thread (conversation) this run is the next turn of: its plan and answer see the thread's earlier turns, quoted as
   * data and compacted past AEON_THREAD_CONTEXT_TOKENS. A new id starts a thread (ids are yours: another user's thread
   * is never found). Refused (ThreadBusyError) while a turn of the thread is under way.
   */
  threadId: string | number | null | undefined;
  /**
   * UNTRUSTED (the default, or AEON_TOOL_OUTPUTS): a call with side effects that a tool's output steered waits for your
   * approval. TRUSTED: the run takes its tools' outputs as trusted — the opt-out (docs/untrusted-data.md says what it costs).
   */
  toolOutputs: ToolOutputs | null | undefined;
  /** Restrict the run to these tools (names from Query.tools). */
  tools: Array<string> | null | undefined;
  userId: string | number | null | undefined;
  /**
   * Where the run's events are POSTed, signed as Standard Webhooks (AEON_WEBHOOK_SECRET): its host must be one of the
   * server's AEON_WEBHOOK_HOSTS (else WEBHOOK_URL_NOT_ALLOWED, nothing stored).
   */
  webhook: WebhookInput | null | undefined;
};

/** Whether a run takes its tools' outputs as trusted (docs/untrusted-data.md). */
export type ToolOutputs =
  | 'TRUSTED'
  | 'UNTRUSTED';

/** Where a run's events are POSTed, and which. */
export type WebhookInput = {
  /** run.started, run.awaiting_input, run.finished (the default: run.finished alone). */
  events: Array<string> | null | undefined;
  url: string;
};

export type RunViewQueryVariables = Exact<{
  id: string | number;
}>;


export type RunViewQuery = { run: { id: string, task: string, status: RunStatus, model: string | null, models: Array<string>, userId: string | null, createdAt: string, threadId: string | null, parentRunId: string | null, files: Array<{ name: string | null, mediaType: string, sha256: string | null, url: string | null }>, agent: { name: string, version: number | null } | null, children: Array<{ id: string, status: RunStatus, agent: { name: string, version: number | null } | null }>, webhookDeliveries: Array<{ event: string, attempt: number, httpStatus: number | null, error: string | null, at: string, delivered: boolean }>, conversation: { turn: number | null, messages: number, summarised: number, compacted: boolean, tokens: number } | null, forkedFrom: { runId: string, atSeq: number, changed: Array<string> } | null, finalAnswer: { answerText: string, label: string | null, data: unknown } | null, result: { advisories: Array<string>, terminationReason: string | null, error: string | null, errorCode: string | null, ttlExpiration: { exhausted: string | null } | null } | null, usage: { llmCalls: number, inputTokens: number, outputTokens: number, cachedTokens: number, costUsd: number, steps: number, replayed: { llmCalls: number } | null } | null, pendingApprovals: Array<{ requestId: string, stepId: string, tool: string, input: unknown, description: string }>, pendingPlanApproval: { requestId: string, plan: { goal: string, steps: Array<{ stepId: string, description: string, tool: string | null, status: string, dependencies: Array<string> }> }, forecast: { expected: { llmCalls: number, tokens: number, costUsd: number, wallMs: number }, worstCase: { llmCalls: number, tokens: number, costUsd: number, wallMs: number }, perStep: Array<{ stepId: string, expected: { llmCalls: number, tokens: number, costUsd: number, wallMs: number }, worstCase: { llmCalls: number, tokens: number, costUsd: number, wallMs: number } }> } } | null, pendingBudgetExtensions: Array<{ requestId: string, dimension: string, limit: number, used: number, needs: string, proposed: unknown, forecast: { expected: { llmCalls: number, tokens: number, costUsd: number, wallMs: number } } | null }>, forecast: { expected: { llmCalls: number, tokens: number, costUsd: number, wallMs: number }, worstCase: { llmCalls: number, tokens: number, costUsd: number, wallMs: number } } | null, forecastError: { costUsd: number | null } | null, plan: { goal: string, steps: Array<{ stepId: string, description: string, tool: string | null, status: string, dependencies: Array<string>, supersededBy: string | null, manualIntervention: string | null, subplan: unknown, error: string | null, stepOutput: string }> } | null, history: { passes: Array<{ passNumber: number, phases: Array<Phase>, ttlRemaining: number, durationSeconds: number, validationReport: { decidedBy: string | null, issues: Array<{ type: string, severity: string, description: string, stepId: string | null, source: string | null }> } | null, convergence: { converged: boolean, completenessScore: number, coherenceScore: number, consistencyStatus: unknown, reasonCodes: Array<string>, decidedBy: string | null } | null }> } | null, timeline: { elapsedMs: number, budget: Array<{ name: string, used: number, cap: number | null, left: number | null }>, passes: Array<{ passNumber: number, start: string, end: string | null, durationMs: number, phases: Array<{ phase: Phase, seq: number, start: string, end: string | null, durationMs: number }>, steps: Array<{ stepId: string, seq: number, status: string, start: string, end: string | null, durationMs: number }> }> } | null } | null };

export type FFragment = { llmCalls: number, tokens: number, costUsd: number, wallMs: number };

export type RunViewEventsSubscriptionVariables = Exact<{
  id: string | number;
}>;


export type RunViewEventsSubscription = { runEvents:
    | { seq: number, type: string, at: string, payload: unknown }
    | { seq: number, type: string, at: string, payload: unknown }
    | { seq: number, type: string, at: string, payload: unknown }
    | { seq: number, type: string, at: string, payload: unknown }
    | { seq: number, type: string, at: string, payload: unknown }
    | { seq: number, type: string, at: string, payload: unknown }
    | { seq: number, type: string, at: string, payload: unknown }
    | { seq: number, type: string, at: string, payload: unknown }
    | { seq: number, type: string, at: string, payload: unknown }
    | { seq: number, type: string, at: string, payload: unknown }
    | { seq: number, type: string, at: string, payload: unknown }
    | { seq: number, type: string, at: string, payload: unknown }
    | { seq: number, type: string, at: string, payload: unknown }
    | { seq: number, type: string, at: string, payload: unknown }
    | { seq: number, type: string, at: string, payload: unknown }
    | { seq: number, type: string, at: string, payload: unknown }
    | { seq: number, type: string, at: string, payload: unknown }
    | { seq: number, type: string, at: string, payload: unknown }
    | { seq: number, type: string, at: string, payload: unknown }
    | { seq: number, type: string, at: string, payload: unknown }
    | { seq: number, type: string, at: string, payload: unknown }
    | { seq: number, type: string, at: string, payload: unknown }
    | { seq: number, type: string, at: string, payload: unknown }
    | { seq: number, type: string, at: string, payload: unknown }
    | { seq: number, type: string, at: string, payload: unknown }
    | { seq: number, type: string, at: string, payload: unknown }
    | { seq: number, type: string, at: string, payload: unknown }
    | { seq: number, type: string, at: string, payload: unknown }
    | { seq: number, type: string, at: string, payload: unknown }
    | { seq: number, type: string, at: string, payload: unknown }
    | { seq: number, type: string, at: string, payload: unknown }
    | { seq: number, type: string, at: string, payload: unknown }
    | { seq: number, type: string, at: string, payload: unknown }
   };

export type CancelInViewerMutationVariables = Exact<{
  id: string | number;
}>;


export type CancelInViewerMutation = { cancelRun: { id: string, status: RunStatus } };

export type RunViewOutputSubscriptionVariables = Exact<{
  id: string | number;
}>;


export type RunViewOutputSubscription = { runOutput: { callId: string, promptId: string, passNumber: number | null, stepId: string | null, text: string, answerText: string | null, done: boolean } };

export type RunViewStoreWaitsSubscriptionVariables = Exact<{
  id: string | number;
}>;


export type RunViewStoreWaitsSubscription = { runStoreWaits: { waiting: boolean, cause: string | null, since: string | null } };

export type StartRunInViewerMutationVariables = Exact<{
  input: RunTaskInput;
}>;


export type StartRunInViewerMutation = { runTask: { id: string } };

export type MemoryPageQueryVariables = Exact<{
  query: string | null | undefined;
  userId: string | number | null | undefined;
}>;


export type MemoryPageQuery = { memories: { edges: Array<{ node: { id: string, kind: MemoryKind, text: string, task: string, runId: string | null, stepId: string | null, passNumber: number | null, createdAt: string, coverage: number | null } }> } };

export type ForgetMemoryMutationVariables = Exact<{
  id: string | number;
  userId: string | number | null | undefined;
}>;


export type ForgetMemoryMutation = { forgetMemory: boolean };

export type ForgetMemoriesMutationVariables = Exact<{
  userId: string | number | null | undefined;
}>;


export type ForgetMemoriesMutation = { forgetMemories: number };

export type RespondInViewerMutationVariables = Exact<{
  runId: string | number;
  requestId: string | number;
  decision: ApprovalDecision;
  input: unknown;
  reason: string | null | undefined;
}>;


export type RespondInViewerMutation = { respondToApproval: { id: string } };

export type RunListQueryVariables = Exact<{
  status: RunStatus | null | undefined;
  userId: string | number | null | undefined;
  after: string | null | undefined;
  filter: RunFilter | null | undefined;
}>;


export type RunListQuery = { runs: { edges: Array<{ node: { id: string, task: string, status: RunStatus, userId: string | null, createdAt: string, agent: { name: string, version: number | null } | null, usage: { costUsd: number } | null, timeline: { elapsedMs: number, passes: Array<{ passNumber: number }> } | null } }>, pageInfo: { endCursor: string | null, hasNextPage: boolean } } };

export type RunViewCallsQueryVariables = Exact<{
  id: string | number;
  after: string | null | undefined;
}>;


export type RunViewCallsQuery = { run: { llmCalls: { edges: Array<{ cursor: string, node: { seq: number, promptId: string, model: string, attempt: number, phase: string | null, stepId: string | null, inputTokens: number, outputTokens: number, cachedTokens: number, cacheWriteTokens: number, latencyMs: number, replayed: boolean, estimated: boolean } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } } | null };

export type RunViewCallQueryVariables = Exact<{
  id: string | number;
  after: string | null | undefined;
}>;


export type RunViewCallQuery = { run: { llmCalls: { edges: Array<{ node: { seq: number, system: string, user: string, response: string | null, decodeError: string | null, error: string | null } }> } } | null };

export type ForkInViewerMutationVariables = Exact<{
  runId: string | number;
  atSeq: number;
}>;


export type ForkInViewerMutation = { forkRun: { id: string } };

export type ViewerToolsQueryVariables = Exact<{ [key: string]: never; }>;


export type ViewerToolsQuery = { tools: Array<{ name: string, server: string | null, readOnly: boolean, destructive: boolean, idempotent: boolean, description: string }>, health: { mcpServers: Array<{ name: string, transport: string, status: McpServerStatus, toolCount: number, lastError: string | null }> } };

export type ThreadPageQueryVariables = Exact<{
  id: string | number;
  after: string | null | undefined;
}>;


export type ThreadPageQuery = { thread: { id: string, userId: string | null, createdAt: string, updatedAt: string, turnCount: number, turns: { edges: Array<{ node: { turn: number, runId: string, task: string, status: RunStatus, answer: string | null, createdAt: string } }>, pageInfo: { endCursor: string | null, hasNextPage: boolean } } } | null };

export type ThreadListQueryVariables = Exact<{
  after: string | null | undefined;
}>;


export type ThreadListQuery = { threads: { edges: Array<{ node: { id: string, userId: string | null, updatedAt: string, turnCount: number, lastTask: string | null } }>, pageInfo: { endCursor: string | null, hasNextPage: boolean } } };
