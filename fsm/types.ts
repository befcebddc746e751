/**
 * Runtime data shapes shared by the pure core, the workflow, the activities and the client.
 * Every value here is plain JSON: it crosses Temporal payloads and is stored in history.
 */
import type { OutputCheck } from './answer-check.js';
import type { StdoutSignal } from './stdout-signals.js';
import type { PrepatchPolicy, PrepatchReport, TamperPolicy, TamperReport } from './check-reports.js';
import type { ContractPair } from './file-judges-schema.js';

/** What an action produced. `output`/`stderr` are tails; the full text is in `log_file`/`stderr_file` when cut. */
export interface ActionResult {
  output: string;
  stderr: string;
  exit_code: number;
  duration_ms: number;
  /** Set when the process died by a signal (exit_code is then 128 + signal number). */
  signal?: string;
  timed_out?: boolean;
  /**
   * With `timed_out`: which limit killed it. `wall` is the state's `timeout`; `idle` is its
   * `idle_timeout` (no output for that long: RunActionInput.idle_timeout_s). The first to fire names it.
   */
  timeout_kind?: TimeoutKind;
  /**
   * A prompt action run by the host CLI: the agent session its JSON envelope names (`session_id`),
   * which a later `session_mode: continue` state resumes (fsm/run/agent-session.ts).
   */
  session_id?: string;
  /**
   * True when output or stderr was cut to its tail; then stdout is in `log_file` and stderr in
   * `stderr_file` on the worker's machine (each capped to its first and last MiB; 0.3.0 and earlier wrote one
   * file held both, whole).
   */
  truncated?: boolean;
  log_file?: string;
  stderr_file?: string;
  /** Set when the action could not be prepared on the worker (e.g. an undefined `${env.X}`). */
  error?: string;
  /** With RunActionInput.output_schema: the output parsed and checked. */
  output_check?: OutputCheck;
  /** With RunActionInput.read_after: the file's text (its last 64 KiB; empty when it does not exist), or why it could not be read. */
  read_after?: { text: string } | { error: string };
  /** A prompt action: what the agent call used, as the host CLI's envelope or the provider reported it. */
  usage?: LlmUsage;
  /**
   * The agent answered with a rate limit or a spent quota instead of doing the work (only runs
   * whose input asks for detection get one): the run pauses and runs the action again.
   */
  rate_limit?: RateLimitFact;
  /**
   * A `CONTEXT_HANDOFF:`, `FATAL_ERROR:` or `LOOP_STOP:` line in the output (fsm/stdout-signals.ts);
   * only runs whose input asks for detection (RunActionInput.detect_signals) get one.
   */
  stdout_signal?: StdoutSignal;
  /**
   * The action had completed before and this is its result delivered again from the worker's
   * journal (activities/action-journal.ts): its first completion never reached the run (the
   * server was unreachable), and it was not run a second time.
   */
  redelivered?: boolean;
  /** With RunActionInput.tamper_guard: how the action changed the test files (activities/tamper-guard.ts). */
  tamper?: TamperReport;
  /** With RunActionInput.prepatch_check: the check run again before the patch (activities/prepatch.ts). */
  prepatch?: PrepatchReport;
}

/** Which limit ended an action that timed out (ActionResult.timeout_kind). */
type TimeoutKind = 'idle' | 'wall';

/** What one agent call (a prompt action or an LLM evaluation) used, as reported; for budgets. */
export interface LlmUsage {
  input_tokens?: number;
  output_tokens?: number;
  cost_usd?: number;
  /** The call's wall time on the worker (agent seconds). */
  duration_ms?: number;
}

/** What a run (or one state of it) has spent on agent calls so far (fsm/run/budget.ts). */
export interface Spend {
  cost_usd: number;
  /** Input plus output tokens. */
  tokens: number;
  /** Agent wall time: the reported duration, else the prompt action's own. */
  agent_ms: number;
}

/** Limits on agent calls (a `budget:` block, or what a parent leaves its sub-loop). */
export interface BudgetLimits {
  max_cost_usd?: number;
  max_tokens?: number;
  max_agent_seconds?: number;
}

/**
 * A rate limit, an overloaded API or a spent usage quota, as the host CLI or an API provider
 * announced it. Facts only: the core decides how long to pause (fsm/run/rate-limit.ts).
 */
export interface RateLimitFact {
  kind: 'rate_limit' | 'overloaded' | 'quota';
  /** What was said, in a line (masked, control text removed). */
  message: string;
  /** When the limit resets (epoch ms), when it was announced. */
  resets_at_ms?: number;
  /** How long the provider asked to wait (`retry-after`), in ms. */
  retry_after_ms?: number;
  /** Drawn on the worker in [0, 1) for the backoff's jitter; recorded, so a replay pauses the same. */
  jitter: number;
}

/** The value stored under `captured.<name>` by `capture:`. */
export interface CapturedValue {
  output: string;
  stderr: string;
  exit_code: number;
  duration_ms: number;
  /** A state with `output_schema:` whose output matched: the parsed value. */
  json?: unknown;
  /** A human state's answer: the approval (yes/no/edit), the option, the text or the JSON value. */
  answer?: unknown;
  /** A human state's edited approval: the text of the edit. */
  edit?: string;
  /** A human state's answerer (user@host) and when they answered (ISO time). */
  by?: string;
  at?: string;
  /**
   * A parallel state's join (fsm/run/parallel.ts): every item's result, in item order; past
   * JOIN_LISTED items, those that did not succeed first, then the first that did.
   */
  results?: ParallelItemResult[];
  /** A join of more than JOIN_LISTED items: how many items' results it does not list. */
  unlisted?: number;
  /** A parallel state's join: items that ended in a success terminal, the others, all of them. */
  succeeded?: number;
  failed?: number;
  count?: number;
}

/** Layer 1's answer: the routing key plus evaluator-specific details (`${result.*}`). */
export interface EvalResult {
  verdict: string;
  details: Record<string, unknown>;
}

/** `${prev.*}`: the previously executed state. */
export interface PrevResult {
  state: string;
  output: string;
  stderr: string;
  exit_code: number;
  /** Set only when the action timed out (`${prev.timeout_kind}` is then `idle` or `wall`, else empty). */
  timeout_kind?: TimeoutKind;
}

const TERMINATED_BY = [
  'terminal',
  'max_iterations',
  'max_steps',
  'timeout',
  'error',
  'cancelled',
  'budget',
  'handoff',
] as const;
export type TerminatedBy = (typeof TERMINATED_BY)[number];

/** What a run returns (seed 003's ExecutionResult, plus `failure` for failure terminals). */
export interface ExecutionResult {
  loop: string;
  final_state: string;
  iterations: number;
  steps: number;
  terminated_by: TerminatedBy;
  /** True when the run ended in a terminal state marked `failure: true`. */
  failure: boolean;
  duration_ms: number;
  captured: Record<string, CapturedValue>;
  error?: string;
  /** Maintain mode only: cycles completed (terminal states reached) before the run ended. */
  cycles?: number;
  /** What the run (with its sub-loops) spent on agent calls; absent when none reported usage. */
  spent?: Spend;
  /** `terminated_by: cancelled` asked for by the loop itself (a `LOOP_STOP:` line), not from outside. */
  stopped_by?: 'loop_stop';
  /**
   * `terminated_by: cancelled` while the run waited for these scopes (`--queue`): no action of it
   * ran (its counters still count the initial state it was about to enter).
   */
  stopped_waiting_for?: string[];
}

/** A `${env.NAME}` reference, resolved on the worker when the action runs (never in history). */
export interface EnvRef {
  name: string;
  /** From `${env.NAME:-default}`: used when the variable is unset or empty. */
  default?: string;
}

/**
 * A shell action after interpolation. Interpolated data never becomes shell syntax: `script`
 * references each value as a bash variable (`${LL_V1}`), and the activity puts the value in the
 * child's environment: `vars` hold data from the run (captured output, results), `env` names worker
 * environment variables whose values the activity looks up itself.
 */
export interface ShellCommand {
  script: string;
  vars: Record<string, string>;
  env: Record<string, EnvRef>;
}

/** A prompt after interpolation: text, with `${env.*}` left for the worker to fill in. */
export interface PromptText {
  parts: Array<string | EnvRef>;
}

/** A `params:` string value holding `${env.*}`: filled in on the worker at `path`. */
export interface McpEnvParam {
  path: Array<string | number>;
  text: PromptText;
}

/** An `action_type: mcp_tool` call after interpolation (fsm/mcp-call.ts). */
export interface McpCall {
  /** A server of the project's `.mcp.json` (`mcpServers`). */
  server: string;
  tool: string;
  /** The tool's arguments; values listed in `env_params` are null here. */
  params: Record<string, unknown>;
  env_params?: McpEnvParam[];
}

/** Input of the `runAction` activity. */
export interface RunActionInput {
  /** Workflow id of the run; names the log files. */
  instanceId: string;
  state: string;
  /** 1-based count of state executions in the run; makes log file names unique. */
  step: number;
  kind: 'shell' | 'prompt' | 'mcp';
  shell?: ShellCommand;
  prompt?: PromptText;
  /** kind `mcp`: the tool call the worker makes through the server's stdio transport. */
  mcp?: McpCall;
  /** Prompt states only: passed to the host CLI as --agent / --tools / --model. */
  agent?: string;
  tools?: string[];
  model?: string;
  cwd: string;
  timeout_s: number;
  /**
   * The state's `idle_timeout` (or the loop's `default_idle_timeout`) in seconds: a shell or host
   * CLI action that prints nothing (stdout or stderr) for this long is killed, as at its
   * `timeout_s` (ActionResult.timeout_kind says which). Only states with one carry it.
   */
  idle_timeout_s?: number;
  /**
   * A `session_mode: continue` prompt state: the host CLI resumes this agent session
   * (`--resume <id>`), the one the run's previous prompt action ended in (fsm/run/agent-session.ts).
   */
  resume_session?: string;
  /**
   * Names of the environment variables the loop references anywhere (`${env.NAME}`): their values
   * are masked in the action's output. Set by the workflow (the `maskLoopEnv` run rule); absent,
   * the worker masks the action's own references only.
   */
  mask_env?: string[];
  /** The state's `output_schema:`: the worker parses the output as JSON and checks it (ActionResult.output_check). */
  output_schema?: Record<string, unknown>;
  /**
   * A file the worker reads once the action is done (relative to `cwd`): little-loops'
   * `score_stall` history file (ActionResult.read_after). Only such states carry it.
   */
  read_after?: string;
  /**
   * A prompt action's answer is read for a rate limit or spent quota (ActionResult.rate_limit).
   * Set by the workflow (the `pauseOnRateLimit` run rule).
   */
  detect_rate_limits?: boolean;
  /**
   * The output is read for stdout signals (ActionResult.stdout_signal). Set by the workflow (the
   * `stdoutSignals` run rule) for shell and prompt actions; absent, such lines are plain output.
   */
  detect_signals?: boolean;
  /**
   * The loop's `config.handoff_threshold`: given to shell and prompt processes as
   * `LL_HANDOFF_THRESHOLD`, which the agent's context monitor reads. Set by the workflow, with
   * detect_signals.
   */
  handoff_threshold?: number;
  /**
   * The run's name for this action call, the same for every schedule of it while its place is
   * the same (workflows/action-calls.ts): the worker's journal of completed actions is keyed by it
   * (activities/action-journal.ts). Set by the workflow (the `actionCallKeys` run rule); absent,
   * the journal entry is keyed by activity id.
   */
  call_key?: string;
  /**
   * kind `prompt` under an HTTP API provider (fsm/llm-provider.ts promptProviderRequest): the
   * prompt is a plain completion by that provider instead of a host CLI run. Absent: the host CLI.
   */
  llm?: LlmProviderRequest;
  /** Guarded states only: compare the test files around the action (ActionResult.tamper, fsm/tamper-guard.ts). */
  tamper_guard?: TamperPolicy;
  /** Checked states only: a check that exits 0 is run again before the patch (ActionResult.prepatch). */
  prepatch_check?: PrepatchPolicy;
}

/** What a sub-loop state asks the runtime to run (a child workflow in Temporal). */
export interface RunLoopInput {
  state: string;
  /** 1-based count of state executions in the parent run; makes child workflow ids unique. */
  step: number;
  /** The child loop's name (or path), interpolated. */
  loop: string;
  /** `context_passthrough: true`: the parent's context and captured values go in. */
  passthrough?: { context: Record<string, unknown>; captured: Record<string, CapturedValue>; dataContext: string[] };
  /** `with:` values after interpolation; the child checks them against its `parameters:`. */
  bindings?: { values: Record<string, unknown>; dataContext: string[] };
  /** The state's own `timeout:` (seconds): the child run is stopped when it runs out. */
  timeout_s?: number;
  /** What is left of the parent's loop budget: the child spends from it (only parents with a budget). */
  budget?: BudgetLimits;
}

/** One item of a parallel state, resolved by the core: the child loop it runs and with what. */
export interface ParallelItem {
  /** 0-based position in the state's items (or branches): results keep this order. */
  index: number;
  /** The item as resolved (a branch: its loop's name). */
  item: unknown;
  /** The child loop's name (or path), interpolated. */
  loop: string;
  /** The item's `with:` after interpolation (`${item}`, `${item_index}`); absent without one. */
  bindings?: { values: Record<string, unknown>; dataContext: string[] };
}

/** What a parallel state asks the runtime to run: its items, bounded and joined. */
export interface ParallelRequest {
  state: string;
  /** The parent's step: with the state and the index, makes child workflow ids unique and stable. */
  step: number;
  items: ParallelItem[];
  max_workers: number;
  fail_mode: 'collect' | 'fail_fast';
  isolation: 'none' | 'worktree';
  /** The state's own `timeout:` (seconds) bounds each child. */
  timeout_s?: number;
  /** What is left of the parent's loop budget: each child spends from it (parents with a budget only). */
  budget?: BudgetLimits;
}

/**
 * How one item ended: `yes` / `no` / `error` as a sub-loop state would judge its child;
 * `cancelled` when fail_fast stopped it, `skipped` when fail_fast stopped the fan-out before it began.
 */
type ItemOutcome = 'yes' | 'no' | 'error' | 'cancelled' | 'skipped';

/** One item's result in a parallel state's join. */
export interface ParallelItemResult {
  index: number;
  item: unknown;
  loop: string;
  outcome: ItemOutcome;
  /** The child run's workflow id (absent for a skipped item). */
  run_id?: string;
  terminated_by?: TerminatedBy;
  final_state?: string;
  duration_ms?: number;
  captured?: Record<string, CapturedValue>;
  error?: string;
  spent?: Spend;
  /** `isolation: worktree`: the item's worktree, kept (with its branch) when it changed something. */
  worktree?: { path: string; branch: string; kept: boolean };
}

/** Input of the `evaluateLlm` activity. */
export interface EvaluateLlmInput {
  instanceId: string;
  state: string;
  output: string;
  prompt?: string;
  schema: Record<string, unknown>;
  model?: string;
  min_confidence: number;
  uncertain_suffix: boolean;
  cwd: string;
  timeout_s: number;
  /** As RunActionInput.mask_env: values masked in the judge's output. */
  mask_env?: string[];
  /**
   * Check the answer against `schema` (ajv) and reply `invalid` when it misses. Set by the workflow
   * (the `checkAnswers` run rule); absent, any answer with a verdict is taken.
   */
  check_schema?: boolean;
  /** As RunActionInput.detect_rate_limits: a rate limit is replied as `rate_limit`, not as an error. */
  detect_rate_limits?: boolean;
  /** Asking again: how the previous answer missed the schema, appended to the prompt. */
  schema_errors?: string[];
  /** An HTTP API provider answers instead of the host CLI (fsm/llm-provider.ts); absent: the host CLI. */
  llm?: LlmProviderRequest;
  /** `contract` evaluations only: the pairs to judge, paths relative to `cwd` (activities/file-judges.ts). */
  contract?: { pairs: ContractPair[] };
  /** `comparator` evaluations only: the baseline directory and the number of blind comparisons. */
  comparator?: { baseline_path: string; auto_promote: boolean; min_pairs: number };
}

/** The HTTP API providers an LLM evaluation or a prompt state may call (fsm/llm-provider.ts chooses). */
export type ApiProvider = 'anthropic' | 'openai-compatible';

/** What the activity needs to ask an HTTP API provider. */
export interface LlmProviderRequest {
  provider: ApiProvider;
  model: string;
  /** Omitted: the provider's public API. */
  base_url?: string;
  /** The variable holding the key (worker side). */
  api_key_env: string;
  /** Whether a missing key is an error (see {@link keyRequired}). */
  key_required: boolean;
  max_tokens: number;
}

/** A budget limit's name (fsm/run/budget.ts BUDGET_LIMITS lists them). */
export type BudgetLimit = 'max_cost_usd' | 'max_tokens' | 'max_agent_seconds';

/** A reached limit: which, whose (the loop's or the state's), the spend against it and its maximum. */
export interface BudgetHit {
  scope: 'loop' | 'state';
  limit: BudgetLimit;
  /** The spend in the limit's unit (dollars, tokens, seconds). */
  spent: number;
  max: number;
  /** Set when the limit is not yet reached but the next call may need more than is left (its stated maximum). */
  needed?: number;
}
