/**
 * The loop workflow's wire contract: input, queries, sinks. Shared by the workflow, the worker
 * and the client (one definition each, as in Temporal's samples).
 */
import { defineQuery, defineUpdate, type Sinks } from '@temporalio/workflow';
import type { HumanAsk, LoopDefinition } from '../fsm/schema.js';
import type { HumanReply } from '../fsm/human.js';
import type { DoneSnapshot, Effect, Fork, Phase, Snapshot, Upgrade } from '../fsm/run/snapshot.js';
import type { RunStreamEvent } from '../fsm/run/events.js';
import type { BudgetLimits, ExecutionResult, ParallelItemResult, RunLoopInput, Spend } from '../fsm/types.js';
import type { LoopRunOptions } from './run-options.js';

export const LOOP_WORKFLOW_TYPE = 'loopWorkflow';

/**
 * The ApplicationFailure type of a run that ended other than at a success terminal or by a stop
 * (fsm/run/outcome.ts); its details are the LoopRunResult.
 */
export const LOOP_FAILED = 'LoopFailed';

/**
 * What a loop workflow returns (and, failed with `LoopFailed`, carries as its failure details):
 * the run's result plus its final snapshot, so `ll-loop resume` continues a closed run from
 * its result without replaying its history. Runs of 0.1.0 returned the result alone.
 */
export type LoopRunResult = ExecutionResult & { snapshot?: DoneSnapshot };

/**
 * A run's scope lock (seed 001 "Concurrency and Locking"): the run asks the lock workflow of its
 * domain for `scopes` before its first action and releases them when it ends in any way.
 */
export interface ScopeLockRequest {
  /** `checkout:<host>:<abs path>` or `repo:<repository>`. */
  domain: string;
  /** The lock workflow's id (`ll-loop-lock.<hash of domain>`) and the queue it runs on. */
  workflowId: string;
  taskQueue: string;
  /** Paths relative to the checkout, normalised (`.` is the whole checkout). */
  scopes: string[];
  /** `--queue`: wait in FIFO order; otherwise a conflict ends the run at once (exit 8). */
  wait: boolean;
  /** `--queue-timeout`: give up waiting after this many seconds. */
  queueTimeoutS?: number;
  /**
   * While waiting, ask the lock again after this long (default 30 s; then twice as long each time,
   * up to 10 min): a lock workflow that has vanished (terminated by hand) is started afresh and the
   * run queues there, instead of waiting forever.
   */
  recheckIntervalS?: number;
  /** Settings of the lock workflow, used when this request is the one that starts it (tests). */
  lockWorkflow?: { livenessIntervalS?: number; historyEventLimit?: number; idleCloseS?: number };
}

/** Where a run continued as new picks up: the snapshot and the effect it was about to carry out. */
interface LoopResumePoint {
  snapshot: Snapshot;
  effect: Effect;
  /** Continued as new in the middle of a parallel state: the items that had ended (workflows/run-fanout.ts). */
  fanout?: FanoutProgress;
}

/** A parallel state's items that ended, carried across continue-as-new (its state and step name the fan-out). */
export interface FanoutProgress {
  state: string;
  step: number;
  results: ParallelItemResult[];
  /** Across continue-as-new: the child runs' id prefix, each result's `run_id` what follows it (workflows/fanout-carry.ts). */
  prefix?: string;
}

/** A parallel state under way, for `status`: "fix_all: 37/100 done (3 failed), 4 running". */
export interface FanoutStatus {
  state: string;
  total: number;
  done: number;
  failed: number;
  /**
   * Indexes of the items running now, and their child runs' ids; `lane`: the item runs inside
   * this run (workflows/fanout-lanes.ts) and `run_id` is only the id its actions' logs go by.
   */
  running: Array<{ index: number; run_id: string; lane?: true }>;
  /**
   * Items whose turn came but whose loop's scopes another item holds (the `itemScopes` rule):
   * they start when it ends. Absent when none waits (and in runs without the rule).
   */
  waiting?: Array<{ index: number; scopes: string[] }>;
}

export interface LoopWorkflowInput {
  /** The resolved, validated definition (the client parses YAML; the workflow never reads files). */
  definition: LoopDefinition;
  options: LoopRunOptions;
  /** Continue-as-new: the same run, carried into a fresh history. */
  resume?: LoopResumePoint;
  /**
   * `ll-loop resume`: a new run continuing an earlier run's snapshot from its current state; with
   * `upgrade`, the same run moved onto this release (its history could not be replayed); with
   * `fork`, `ll-loop rerun`: a new run from the snapshot an earlier run had at one of its events.
   */
  continueFrom?: {
    runId: string;
    snapshot: Snapshot;
    upgrade?: Upgrade;
    fork?: Fork;
    /**
     * Resumed in the middle of a parallel state: the items whose children had ended in the
     * stopped run (runs/resume/fanout-progress.ts). The new run's fan-out of that state, its
     * first effect, runs only the rest; absent in runs of older releases.
     */
    fanout?: FanoutProgress;
  };
  /** Set when this run is a sub-loop: how deep it is, and what its parent passed in. */
  child?: ChildRunInput;
  /** The scopes this run holds while it runs (none for sub-loops: they run under the parent's). */
  lock?: ScopeLockRequest;
  /**
   * Context keys whose values came from the command line (`--context`): data, not code, in shell
   * actions (fsm/shell-render.ts). Absent in runs of older releases, which replay as they ran.
   */
  dataContext?: string[];
}

/** A sub-loop's inputs from its parent state (see fsm/run/subloop.ts). */
interface ChildRunInput extends Pick<RunLoopInput, 'passthrough' | 'bindings' | 'budget'> {
  /** 1 for a child of a top-level run. */
  depth: number;
  /** The parent run's workflow id. */
  parent: string;
  /** An item of a fan-out that keeps a shared budget ledger: report each spend to the parent, take its word that the budget is spent. */
  ledger?: true;
  /** An item of a fan-out that shares rate-limit pauses: report its own, wait out its siblings'. */
  pauses?: true;
}

/**
 * Sub-loops nest at most this deep. Static recursion is rejected when the loop is loaded; this
 * bounds chains that only templated names (`loop: "${context.next}"`) can build.
 */
export const MAX_SUBLOOP_DEPTH = 8;

/**
 * The answer to `statusQuery`. A query runs with the workflow's clock, which stands still between
 * workflow tasks, so the answer has no elapsed time: the client computes it from `started_at_ms`
 * (client/runs: `withElapsed`).
 */
export interface LoopStatus {
  loop: string;
  state: string;
  phase: Phase;
  iteration: number;
  max_iterations: number;
  steps: number;
  last_verdict: string | null;
  started_at: string;
  started_at_ms: number;
  captured: string[];
  result: ExecutionResult | null;
  /** Always 1 (fsm/run/snapshot.ts SNAPSHOT_SEMANTICS): kept in the answer for its readers. */
  semantics: number;
  /** What the run waits for, when its actions' host or pool does not answer (pool runs). */
  waiting_for?: string;
  /** The host holding a portable run's checkout. */
  host?: string;
  /** Runs with a scope lock: waiting for it (and for whom), or holding it. */
  lock?: LockStatus;
  /** A parallel state under way: how many items ended, failed, run. */
  fanout?: FanoutStatus;
  /** What agent calls (and sub-loops) spent so far; absent until one reports usage. */
  spent?: Spend;
  /** The run's loop budget (its own, lowered to what a parent left it); absent without one. */
  budget?: BudgetLimits;
  /** Paused by a rate limit or spent quota (phase `rate_limited`): what was said, and when the call is made again. */
  rate_limited?: {
    source: 'action' | 'llm';
    kind: 'rate_limit' | 'overloaded' | 'quota';
    message: string;
    /** The call's first pause (ISO time); `llm.rate_limit.max_wait` counts from here. */
    since: string;
    resumes_at: string;
    pauses: number;
  };
  /** `ll-loop pause`: by whom, since when, and whether it holds yet (phase `paused`) and before which state. */
  paused?: { by: string; since: string; holding: boolean; next?: string; unpause: string };
  /** `ll-loop steer` not yet applied: where the run's next transition goes. */
  steer?: { to: string; by: string; note?: string; context?: string[] };
  /** Waiting for a person (phase `human`): the question, since when, the deadline, the command that answers. */
  human?: {
    state: string;
    prompt: string;
    ask: HumanAsk;
    options?: string[];
    /** `ask: json`: the JSON Schema the answer must match (checked by the answering client). */
    schema?: Record<string, unknown>;
    /** ISO times. */
    since: string;
    deadline?: string;
    /** The command that answers, with the forms the question takes. */
    answer: string;
  };
  /** Paused on a `CONTEXT_HANDOFF:` (phase `handoff`, `on_handoff: pause`): waits for `resume`. */
  handoff?: {
    state: string;
    payload: string;
    /** When it handed off (ISO time). */
    since: string;
    /** The command that continues it. */
    resume: string;
  };
}

export interface LockStatus {
  state: 'waiting' | 'held';
  domain: string;
  scopes: string[];
  /** While waiting: a run holding an overlapping scope (else one queued ahead for one), when known. */
  holder?: string;
  /** When the run asked (waiting) or got its scopes (held), in ms since the epoch. */
  since_ms: number;
}

export const statusQuery = defineQuery<LoopStatus>('status');

/**
 * Continue a run paused on a handoff (`ll-loop resume <run>`): the state that handed off runs
 * again, its next action carrying the payload. Refused (by the validator, so nothing is recorded)
 * unless the run waits on a handoff. Answers the state that runs again.
 */
export const resumeHandoffUpdate = defineUpdate<{ state: string }, []>('resumeHandoff');

/** An answer to the human state a run waits in (`ll-loop answer`, the terminal prompt of `ll-loop run`). */
export interface HumanAnswerRequest {
  reply: HumanReply;
  /** Who answers: user@host. */
  by: string;
  /** The state the answerer saw waiting; refused when the run waits elsewhere now. */
  state?: string;
}

/** What an accepted answer does: the state it answered and the verdict it routes as. */
export interface HumanAnswerAck {
  state: string;
  verdict: string;
}

/**
 * Answer the human state the run waits in. The validator refuses (nothing is recorded) an answer
 * to a run that does not wait, to another state, one that does not fit the question, and every
 * answer after the first; one after the deadline is told where the run went.
 */
export const answerHumanUpdate = defineUpdate<HumanAnswerAck, [HumanAnswerRequest]>('answerHuman');

/** The whole snapshot: what `ll-loop resume` continues from (also answered by closed runs, by replay). */
export const snapshotQuery = defineQuery<Snapshot>('snapshot');

/**
 * The run state as `.loops/.running/<id>.state.json` holds it (seed 001 "State Persistence"),
 * with the whole snapshot: what a run can continue from when its history cannot be replayed.
 */
export interface RunStateFile {
  loop: string;
  current_state: string;
  phase: Phase;
  iteration: number;
  steps: number;
  captured: Snapshot['captured'];
  last_result: Snapshot['result'];
  started_at: string;
  result: ExecutionResult | null;
  /** The sequence number of the last event emitted. */
  seq: number;
  snapshot: Snapshot;
}

/** What the workflow reports after each transition; `stateFileOf()` (worker/) makes the state file of it. */
export interface RunStateReport {
  loop: string;
  snapshot: Snapshot;
}

/**
 * The run's event stream and state, delivered by the worker that runs the workflow (live) and by
 * a replay of its history (`ll-loop history`, following a run): the same calls either way, since
 * events are numbered and timed by the core.
 */
export interface LoopSinks extends Sinks {
  loopEvents: {
    emit(event: RunStreamEvent): void;
    state(state: RunStateReport): void;
  };
}
