/**
 * The run's state as the pure core sees it, the facts fed into it, and the one effect it asks for.
 * Plain JSON: the snapshot is the workflow's memory, the answer to the status query, the
 * continue-as-new argument and (once done) part of the run's result.
 */
import type { DiffStallMemory } from '../evaluators/diff-stall.js';
import type {
  ActionResult,
  BudgetLimits,
  CapturedValue,
  LlmUsage,
  RateLimitFact,
  Spend,
  EvalResult,
  EvaluateLlmInput,
  ExecutionResult,
  PrevResult,
  RunActionInput,
  RunLoopInput,
  ParallelItemResult,
  ParallelRequest,
  BudgetHit,
} from '../types.js';
import type { RunStreamEvent } from './events.js';
import type { HumanEnded, HumanReply } from '../human.js';
import type { HumanAsk } from '../schema.js';

/** What a running loop waits for. */
type WaitPhase =
  | 'action'
  | 'llm'
  | 'git_diff'
  | 'subloop'
  | 'parallel'
  | 'backoff'
  | 'retry_delay'
  | 'maintain_delay'
  | 'rate_limited'
  | 'handoff'
  | 'paused'
  | 'human';
/**
 * Phases that hold the action result while its evaluation is being made on the worker (or, rate
 * limited, waits to be made again; an action paused by a rate limit holds none).
 */
type EvaluatingPhase = 'llm' | 'git_diff' | 'rate_limited';
/** Every phase a status line can show. */
export type Phase = WaitPhase | 'done';

/**
 * The `semantics` every snapshot carries. Versioned core semantics were replaced by run rules
 * (docs/decisions.md, "Upgrades, history and events"); no release recorded another value.
 */
export const SNAPSHOT_SEMANTICS = 1;

/** What every snapshot carries, running or done. */
export interface RunData {
  /**
   * Always SNAPSHOT_SEMANTICS (1). Kept because `status --json` and `loop_upgraded` show it and
   * recorded snapshots carry it; no behaviour depends on it — a run's behaviour is versioned by
   * its run rules (workflows/run-rules.ts).
   */
  semantics: number;
  /** Sequence number of the last event emitted (events are numbered 1, 2, … per run). */
  seq: number;
  /** The state being executed (or the final state once done). */
  current: string;
  /** Pass number, 1-based (see docs: a pass ends when a state repeats). */
  iteration: number;
  /** States entered in the current pass, in order. */
  visited: string[];
  /** State executions so far. */
  steps: number;
  /** Maintain-mode cycles completed. */
  cycles: number;
  /** Attempt (1-based) of the current state's action under `retry:`. */
  attempt: number;
  captured: Record<string, CapturedValue>;
  prev: PrevResult | null;
  result: EvalResult | null;
  /** Last value each convergence state measured (for `previous` when none is given). */
  lastValues: Record<string, number>;
  startedAt: string;
  startedAtMs: number;
  /** Context keys holding run-time data from a parent loop (see InterpolationScope.dataContext). */
  dataContext?: string[];
  /** How many times the current evaluation was asked again for an answer that missed its schema; absent before the first. */
  schemaAsks?: number;
  /** What each diff_stall state saw last (absent until one is evaluated). */
  diffStats?: Record<string, DiffStallMemory>;
  /** What each set of action_stall keys hashed to last (absent until one is evaluated). */
  actionStalls?: Record<string, DiffStallMemory>;
  /** What agent calls (and sub-loops) spent (fsm/run/budget.ts); absent until one reports usage. */
  spent?: Spend;
  /** The same, by state name. */
  spentByState?: Record<string, Spend>;
  /** A sub-loop: what its parent's loop budget had left when it started (its loop limits are at most these). */
  inheritedBudget?: BudgetLimits;
  /** An item of a fan-out that keeps a shared ledger: its siblings and it spent the fan-out's budget (fsm/run/shared-budget.ts). */
  sharedBudgetSpent?: BudgetHit;
  /** The errors the current prompt or evaluation was last asked again with (kept for a call paused by a rate limit). */
  reaskErrors?: string[];
  /** The current agent call is (or was just) paused by a rate limit; cleared by its first other answer. */
  rateLimit?: RateLimitPause;
  /** Paused on a `CONTEXT_HANDOFF:` (`on_handoff: pause`): waits for `ll-loop resume` (fsm/run/on-signal.ts). */
  handoff?: HandoffPause;
  /** Waiting for a person's answer in a human state (fsm/run/human-wait.ts). */
  human?: HumanWait;
  /** How the last wait for a person ended: told to an answer that comes later (fsm/run/on-human.ts). */
  humanEnded?: HumanEnded;
  /** A handoff's payload, for the next shell or prompt action (then dropped): the fresh session's context. */
  continuation?: string;
  /** Handoffs the run continued (spawned or resumed); `config.automation.max_continuations` caps them. */
  continuations?: number;
  /**
   * The agent session of the run's last prompt action, for a `session_mode: continue` state
   * (fsm/run/agent-session.ts); kept only by loops that have one, dropped at a handoff.
   */
  agentSession?: AgentSession;
  /** A `LOOP_STOP:` seen: the run ends once the state has routed (its reason, possibly ''). */
  stopping?: string;
  /** `ll-loop pause`: the run holds before its next transition until unpaused (fsm/run/control.ts). */
  pause?: PauseRequest;
  /** `ll-loop steer` not yet applied: the run's next transition goes to `to` (fsm/run/control.ts). */
  steer?: SteerRequest;
  /** A paused run holding (phase `paused`): the state it enters once let go, as routed. */
  held?: { name: string; newCycle?: boolean };
  /** Context values set by a steer or a rerun's edits, over the definition's `context`. */
  context?: Record<string, string>;
  /** `max_retries`: the state re-entering itself, and how many times in a row (fsm/run/original-limits.ts). */
  reentries?: { state: string; count: number };
  /** `on_max_steps`/`on_max_iterations`: which cap sent the run to its handler, at which step. */
  capRouted?: { cap: 'max_steps' | 'max_iterations'; steps: number };
}

/** The id the host CLI gave a prompt action's session (if any), and the tail of its answer. */
export interface AgentSession {
  /** The prompt state that ran it. */
  state: string;
  id?: string;
  /** The answer's last characters (fsm/run/agent-session.ts SUMMARY_CHARS), for a call that cannot resume it. */
  summary: string;
}

/** Who paused the run (user@host), and since when. */
interface PauseRequest {
  by: string;
  since_ms: number;
}

/** Where a steer sends the run, with the context values it sets, who asked and why. */
interface SteerRequest {
  to: string;
  by: string;
  at_ms: number;
  note?: string;
  context?: Record<string, string>;
}

/** A run waiting on a handoff: which state handed off, with what, since when. */
interface HandoffPause {
  state: string;
  payload: string;
  since_ms: number;
}

/** A run waiting for a person: the question as asked, since when, until when. */
interface HumanWait {
  state: string;
  prompt: string;
  ask: HumanAsk;
  options?: string[];
  since_ms: number;
  /** The state's `timeout:` passed from `since_ms`; absent: no deadline but the loop's. */
  deadline_ms?: number;
}

/** A call paused by rate limits: since when, how often, until when (fsm/run/rate-limit.ts). */
export interface RateLimitPause {
  /** The prompt action, or the state's LLM evaluation. */
  source: 'action' | 'llm';
  kind: RateLimitFact['kind'];
  message: string;
  /** The first pause of this call (max_wait counts from here). */
  since_ms: number;
  pauses: number;
  resumes_at_ms: number;
}

/** A running loop, by what it waits for. Only the LLM phase holds an action result. */
export type RunningSnapshot = RunData & { status: 'running' } & (
    { phase: EvaluatingPhase; pending: ActionResult | null } | { phase: Exclude<WaitPhase, EvaluatingPhase> }
  );

export interface DoneSnapshot extends RunData {
  status: 'done';
  phase: 'done';
  outcome: ExecutionResult;
}

export type Snapshot = RunningSnapshot | DoneSnapshot;

/** Why an activity or a child workflow failed: its error chain, outermost first (raw facts). */
export interface Failure {
  messages: string[];
}

/** What an LLM answered, before the core judges it (confidence gate, `_uncertain` suffix). */
export interface Judgement {
  verdict: string;
  confidence: number;
  reason: string;
  raw: Record<string, unknown>;
}

/**
 * The same run, moved onto this release because its history cannot be replayed by it (see
 * docs/architecture.md, "Changing workflow or core behaviour"): it keeps its clock and its event
 * numbering, and says so with a `loop_upgraded` event.
 */
export interface Upgrade {
  /** Why it was moved (the replay error, in a line). */
  reason: string;
  /** The build id that started it, when known. */
  fromBuild?: string;
}

export type { LlmUsage } from '../types.js';

/**
 * What the LLM activity returns: the answer as read, why there is none (`details`: facts for the
 * `error` verdict, e.g. a rate limit's `retry_after`), or how it misses its schema; `usage` when
 * the provider reported it.
 */
export type LlmReply = (
  | { judgement: Judgement }
  /** A verdict the activity decided itself (`contract`, `comparator`: several answers make it). */
  | { result: EvalResult }
  | { error: string; details?: Record<string, unknown> }
  | { invalid: InvalidAnswer }
  | { rate_limit: RateLimitFact }
) & { usage?: LlmUsage };

/** An answer that misses its JSON Schema: every way it misses (one line each), and the answer as read. */
export interface InvalidAnswer {
  errors: string[];
  answer: unknown;
}

/** The first transition of a run: fresh, as a sub-loop, continuing an earlier run, or unable to start. */
export interface StartEvent {
  type: 'start';
  now: number;
  /** A sub-loop's inheritance from its parent. */
  inherited?: { captured?: Record<string, CapturedValue>; dataContext?: string[]; budget?: BudgetLimits };
  /** `ll-loop resume`: continue an earlier run's snapshot from its current state. */
  resumeFrom?: { runId: string; snapshot: Snapshot; upgrade?: Upgrade; fork?: Fork };
  /** The run cannot start (a sub-loop whose parameters do not fit): it ends with `error`. */
  error?: string;
}

/**
 * `ll-loop rerun`: the snapshot is the one an earlier run had when it entered a state (its event
 * `event`); the new run starts there with these context values set.
 */
export interface Fork {
  event: number;
  context?: Record<string, string>;
}

/** Facts fed to a running loop. `now` is epoch ms from the caller's clock (workflow time). */
export type RunEvent =
  | { type: 'action_done'; result: ActionResult; now: number }
  | { type: 'action_failed'; failure: Failure; now: number }
  | { type: 'llm_replied'; judgement: Judgement; usage?: LlmUsage; now: number }
  /** An evaluation the LLM activity could not make (its own message: host CLI missing, unparseable…). */
  | { type: 'llm_error'; error: string; details?: Record<string, unknown>; usage?: LlmUsage; now: number }
  | { type: 'llm_failed'; failure: Failure; now: number }
  /** The answer misses the evaluator's JSON Schema (only runs that check answers: EvaluateLlmInput.check_schema). */
  | { type: 'llm_invalid'; invalid: InvalidAnswer; usage?: LlmUsage; now: number }
  /** The LLM answered with a rate limit or spent quota (only runs that detect them): pause, then ask again. */
  | { type: 'llm_rate_limited'; rate_limit: RateLimitFact; now: number }
  /** An evaluation already decided: the `contract` and `comparator` activities' result (and the unit tests' driver). */
  | { type: 'llm_done'; result: EvalResult; usage?: LlmUsage; now: number }
  /** The child run ended; `timedOut` when the state's `timeout:` stopped it. */
  | { type: 'subloop_done'; result: ExecutionResult; timedOut: boolean; now: number }
  /** The child workflow failed, or never started; `timedOut` as above. */
  | { type: 'subloop_failed'; loop: string; failure: Failure; timedOut: boolean; now: number }
  /** The child could not be prepared: nested too deep, its file unreadable, or invalid. */
  | { type: 'subloop_unavailable'; why: SubloopUnavailable; now: number }
  /** A parallel state's items all ended (or were skipped by fail_fast): every result, in item order. */
  | { type: 'parallel_done'; results: ParallelItemResult[]; now: number }
  /** A parallel state could not start its items (isolation refused: not a git repository, a dirty one). */
  | { type: 'parallel_unavailable'; error: string; now: number }
  /** diff_stall: the worker's `git diff --stat` of the state's scope, or why it has none. */
  | { type: 'diff_stat_done'; stat: string; now: number }
  | { type: 'diff_stat_error'; error: string; now: number }
  | { type: 'diff_stat_failed'; failure: Failure; now: number }
  | { type: 'sleep_done'; now: number }
  /** A run paused on a handoff was told to continue (`ll-loop resume`: the workflow's resumeHandoff update). */
  | { type: 'handoff_resumed'; now: number }
  /** A paused run was let go (unpaused or steered), or a steer ended a human wait: it enters the state it held before, or where the steer sends it (fsm/run/control.ts). */
  | { type: 'released'; now: number }
  /**
   * A person answered the human state the run waits in (the workflow's answerHuman update); `by` is
   * user@host. `approvalEdit`: the run's rule of that name (an approval's `edit` is always captured).
   */
  | { type: 'human_answered'; reply: HumanReply; by: string; now: number; approvalEdit?: true }
  /** The human state's deadline passed without an answer. */
  | { type: 'human_timeout'; now: number }
  | { type: 'timeout'; now: number }
  | { type: 'cancel'; now: number };

/** Why a sub-loop state's child could not start (raw facts; the core words the error). */
export type SubloopUnavailable =
  | { reason: 'too_deep'; loop: string; depth: number; limit: number }
  | { reason: 'load_failed'; loop: string; failure: Failure }
  /** The loader's own diagnostic (file, line, fix). */
  | { reason: 'invalid'; error: string };

export type CoreEvent = StartEvent | RunEvent;

export type ActionRequest = Omit<RunActionInput, 'instanceId' | 'cwd'>;
type LlmRequest = Omit<EvaluateLlmInput, 'instanceId' | 'cwd'>;
/** A diff_stall state asks the worker for `git diff --stat -- <scope>` in the run's directory. */
export interface DiffStatRequest {
  state: string;
  /** Paths given to git diff; empty: the whole repository. */
  scope: string[];
}

/** What the runtime must do next for a running loop: exactly one. */
export type WorkEffect =
  | { type: 'run_action'; input: ActionRequest }
  | { type: 'evaluate_llm'; input: LlmRequest }
  | { type: 'diff_stat'; input: DiffStatRequest }
  | { type: 'run_loop'; input: RunLoopInput }
  /** Run a parallel state's items as child runs, at most `max_workers` at once, and join them. */
  | { type: 'run_parallel'; input: ParallelRequest }
  | { type: 'sleep'; ms: number; reason: 'backoff' | 'retry' | 'maintain_delay' }
  /** A rate limit's pause: until an instant, so a continue-as-new mid-pause does not wait again from the start. */
  | { type: 'sleep'; ms: number; until_ms: number; reason: 'rate_limit' }
  /** Wait, durably and without a deadline of its own, until someone continues the handed-off run. */
  | { type: 'await_handoff'; state: string }
  /** Wait, durably, until a paused run is unpaused or steered (the loop's timeout still runs). */
  | { type: 'await_release'; state: string }
  /**
   * Wait, durably, for a person's answer until `deadline_ms` (a durable timer; none: only the
   * loop's timeout and `stop` end it). `notify`: the hook to run when the wait starts (absent:
   * the worker's `LL_NOTIFY`, if any).
   */
  | {
      type: 'await_human';
      state: string;
      prompt: string;
      ask: HumanAsk;
      options?: string[];
      deadline_ms?: number;
      notify?: string;
    };

export interface FinishEffect {
  type: 'finish';
  result: ExecutionResult;
}

export type Effect = WorkEffect | FinishEffect;

/** A transition's output: the next snapshot, the events it emitted, and its one effect. */
export type Transition =
  | { snapshot: RunningSnapshot; events: RunStreamEvent[]; effect: WorkEffect }
  | { snapshot: DoneSnapshot; events: RunStreamEvent[]; effect: FinishEffect };
