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

export const LOOP_WORKFLOW_TYPE = 'loopWorkflow';

/**
 * The ApplicationFailure type of a run that ended other than at a success terminal (`closeAsOutcome`,
 * or `failOnNonTerminal`); its details are the LoopRunResult.
 */
export const LOOP_FAILED = 'LoopFailed';

/**
 * What a loop workflow returns (and, failed with `LoopFailed`, carries as its failure details):
 * the run's result plus its final snapshot, so `ll-loop resume` continues a closed run from
 * its result without replaying its history. Runs of 0.1.0 returned the result alone.
 */
export type LoopRunResult = ExecutionResult & { snapshot?: DoneSnapshot };

/** Memo keys every run carries: which ll-loop started it (shown by `list` and the Web UI). */
export interface RunMemo {
  cwd: string;
  /** The ll-loop package version. */
  version?: string;
  /** The version plus a hash of the workflow bundle: the code that interprets the run. */
  build_id?: string;
  file?: string;
  loop?: string;
  parent?: string;
}

/**
 * A run's options as its input records them: one flat object, the shape every release recorded
 * (so histories and open runs continuing as new are read as they are), made of three parts that
 * workflows/run-options.ts tells apart: the run's rules, its placement and its tuning.
 */
export type LoopRunOptions = RunPlacement & RunTuning & RunRules;

/** Where the run and its actions run: its project, its queues, its checkout, its server. */
export interface RunPlacement {
  /** Directory the actions run in (the project holding `.loops/`). */
  cwd: string;
  /**
   * The task queue actions and LLM evaluations go to when it is not the workflow's own: a pinned
   * pool run's workflow tasks go to any pool worker, its actions only to the queue of the
   * checkout's worker (Temporal's worker-specific task queue pattern). Unset: the workflow's queue.
   */
  actionQueue?: string;
  /** A portable pool run (`--checkout git`, `--worktree`): see PortableCheckout. */
  portable?: PortableCheckout;
  /** Seconds an action of a pool run may wait for its host before the run says it is gone (default 60). */
  hostNoticeS?: number;
  /** Where a portable run's checkout was claimed (carried across continue-as-new and into sub-loops). */
  placedOn?: { host: string; dir: string };
  /** Upsert the LoopState/LoopStatus search attributes (only when the server has them). */
  searchAttributes?: boolean;
}

/** Limits that change how the run is carried out, never what it decides. */
export interface RunTuning {
  /**
   * Run shell actions whose timeout is at most this many seconds as local activities (in the
   * workflow task, no server round trip). 0 disables. See docs/architecture.md.
   */
  localActivityMaxTimeoutS?: number;
  /** Continue as new past this many history events (default 20,000; Temporal's limit is ~51,200). */
  historyEventLimit?: number;
  /**
   * Seconds a running action or LLM evaluation may go without a heartbeat before Temporal presumes
   * its worker dead and retries it elsewhere (or, for a pool run, the run waits for its host). The
   * worker beats every second. Unset: 30 (every run before this option).
   */
  heartbeatTimeoutS?: number;
}

/**
 * The behaviour gates (docs/architecture.md, "Changing workflow or core behaviour"): each rule is
 * absent from the runs of releases before it, which keep the behaviour they had. New runs get
 * CURRENT_RUN_RULES (workflows/run-rules.ts); `failOnNonTerminal`, which closeAsOutcome
 * supersedes, is in the runs of schedules of 0.1.0 to 0.3.0 created with `--pause-on-failure`.
 */
export interface RunRules {
  /**
   * Close the workflow the way the run ended (fsm/run/outcome.ts): Completed at a success terminal,
   * Failed (`LoopFailed`) otherwise, Canceled when stopped; `LoopStatus` holds the outcome. Set on
   * every run started by 0.4.0 and later; absent from older histories, which replay as they ran.
   */
  closeAsOutcome?: boolean;
  /**
   * Fail the workflow (ApplicationFailure of type `LoopFailed`, the ExecutionResult as its details)
   * when the run ends other than in a success terminal or by cancellation. Schedules of 0.1.0 to
   * 0.3.0 set it with `--pause-on-failure`; closeAsOutcome has done its work since.
   */
  failOnNonTerminal?: boolean;
  /**
   * Mask the values of every variable the loop references (`${env.NAME}` anywhere) in each action's
   * and judge's output (RunActionInput.mask_env). Set by the client for new runs; runs of older
   * releases lack it and replay with the activity inputs they had.
   */
  maskLoopEnv?: boolean;
  /**
   * Check each LLM answer against its evaluator's JSON Schema and ask again when it misses
   * (EvaluateLlmInput.check_schema, `llm.schema_retries`). Set by the client for new runs; runs of
   * older releases lack it and take any answer with a verdict, as they did.
   */
  checkAnswers?: boolean;
  /**
   * Read prompt actions' and LLM evaluations' answers for rate limits and spent quotas and pause
   * on them (RunActionInput.detect_rate_limits, fsm/run/rate-limit.ts). Set by the client for new runs;
   * runs of older releases lack it and judge such answers as they did.
   */
  pauseOnRateLimit?: boolean;
  /**
   * Read shell and prompt actions' output for `CONTEXT_HANDOFF:`, `FATAL_ERROR:` and `LOOP_STOP:`
   * and act on them (RunActionInput.detect_signals, fsm/run/on-signal.ts, `on_handoff`). Set by the
   * client for new runs; runs of older releases lack it and treat such lines as plain output.
   */
  stdoutSignals?: boolean;
  /**
   * Start each sub-loop's child run with this run's `LoopCheckout` search attribute, so a child
   * belongs to the checkout its parent was started in (loop names resolve per checkout). Set by
   * the client for new runs; runs of older releases lack it and start children as they did.
   */
  childCheckout?: boolean;
  /**
   * Accept `ll-loop pause`, `unpause` and `steer` (workflows/control-handlers.ts, fsm/run/control.ts).
   * Set by the client for new runs; runs of older releases lack it and refuse them, so their
   * histories replay as they ran.
   */
  steering?: boolean;
  /**
   * Run chains of quick shell actions (those run as local activities) as bursts: one local
   * activity (`runBurst`) runs them back to back, the pure core deciding between them, and the
   * workflow feeds their facts to the core in order (workflows/burst.ts): the same events, routes
   * and captured values, one marker per burst instead of one per action, and the loop deadline
   * enforced inside the burst. Set by the client for new runs; runs of older releases lack it and
   * run one local activity per action, as they did.
   */
  quickBursts?: boolean;
  /**
   * Number each action call of the run (RunActionInput.call_key, workflows/action-calls.ts), so a
   * call the run schedules anew while its host is unreachable (workflows/placement.ts) is known to
   * the worker's journal as the same call, and a completion the host could not report is delivered
   * rather than run again. Set by the client for new runs; runs of older releases lack it and key
   * their journal entries by activity id, as they did.
   */
  actionCallKeys?: boolean;
  /**
   * A parallel state under a budget keeps one ledger for all its items (workflows/fanout-ledger.ts):
   * each item reports what it spent by signal, each item started gets what is left of the
   * fan-out's budget, and once the items together spent it the running ones make no further
   * agent call and no further item starts. Set by the client for new runs; runs of older
   * releases lack it and give every item what was left when the fan-out started, as they did.
   */
  sharedBudget?: boolean;
  /**
   * A fan-out's items share rate-limit pauses (workflows/fanout-pauses.ts): when one pauses for a
   * rate limit it tells the parent, which tells the other running items to make no agent call
   * before the same instant and starts no further item before it. Set by the client for new
   * runs; runs of older releases lack it and let each item meet the limit on its own, as they did.
   */
  shareRateLimits?: boolean;
  /**
   * A fan-out's items on the parent's checkout (no `isolation: worktree`) whose loop declares
   * `scope:` hold those scopes while they run (workflows/fanout-scopes.ts): items on the same
   * files queue and run one after the other. Set by the client for new runs; runs of older
   * releases lack it and run such items at once, as they did.
   */
  itemScopes?: boolean;
  /**
   * A run asks its scope lock with a local activity (workflows/scope-lease.ts): the request runs
   * in the run's first workflow task instead of as an activity dispatched through the server, one
   * round trip and one workflow task fewer before the lock can answer (the time to the first
   * action). Set by the client for new runs; runs of older releases lack it and ask with an
   * activity, as they did.
   */
  localScopeRequest?: boolean;
}

/**
 * A run that brings its own checkout: the first worker to take it prepares a worktree or clone of
 * `repository` at `commit` under its data dir and keeps every later action on its own host
 * queue; if that host is gone another worker takes over with a fresh checkout (`host_change`).
 */
export interface PortableCheckout {
  /** The pool queue whose workers may claim the run. */
  claimQueue: string;
  /** Where to clone from (a remote URL, or the path of the checkout the run was started in). */
  repository: string;
  commit: string;
  /** The branch the run works on: `ll-loop/<run id>`. */
  branch: string;
  /** `--worktree`: a git worktree of `repository` (same machine) rather than a clone. */
  worktree: boolean;
  /** The run's directory inside the repository (`''`: its top), as in the checkout it was started from. */
  path?: string;
}

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

/**
 * Where a run continued as new picks up: the snapshot and the effect it was about to carry out
 * (`command` in runs of 0.1.0, whose snapshot has the old shape: see fsm/run/snapshot-upgrade.ts).
 */
export interface LoopResumePoint {
  snapshot: Snapshot;
  effect?: Effect;
  command?: Effect;
  /** Continued as new in the middle of a parallel state: the items that had ended (workflows/run-fanout.ts). */
  fanout?: FanoutProgress;
}

/** A parallel state's items that ended, carried across continue-as-new (its state and step name the fan-out). */
export interface FanoutProgress {
  state: string;
  step: number;
  results: ParallelItemResult[];
}

/** A parallel state under way, for `status`: "fix_all: 37/100 done (3 failed), 4 running". */
export interface FanoutStatus {
  state: string;
  total: number;
  done: number;
  failed: number;
  /** Indexes of the items running now, and their child runs' ids. */
  running: Array<{ index: number; run_id: string }>;
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
     * stopped run (client/resume/fanout-progress.ts). The new run's fan-out of that state, its
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
export interface ChildRunInput extends Pick<RunLoopInput, 'passthrough' | 'bindings' | 'budget'> {
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
