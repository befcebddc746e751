/**
 * A run's options in their three parts — its rules, its placement, its tuning — and the one flat
 * object its input records (LoopRunOptions, the shape every release recorded). The client builds
 * the recorded options here from the three parts, once; readers take apart what they need.
 * Free of the workflow SDK and of Node built-ins, so both the CLI and the workflow import it.
 */

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
 * The behaviour gates (docs/architecture.md, "Run rules"): each rule is absent from the runs of
 * releases before it, which keep the behaviour they had. New runs get CURRENT_RUN_RULES
 * (workflows/run-rules.ts). A retired rule (RUN_RULE_SINCE there: every release this one serves
 * sets it) is still written into every run's input, and the workflow no longer reads it: its
 * behaviour is the only one. `failOnNonTerminal` is ignored.
 */
export interface RunRules {
  /**
   * Close the workflow the way the run ended (fsm/run/outcome.ts): Completed at a success terminal,
   * Failed (`LoopFailed`) otherwise, Canceled when stopped; `LoopStatus` holds the outcome. Since
   * 0.4.0; retired: the only behaviour.
   */
  closeAsOutcome?: boolean;
  /**
   * Ignored. Schedules of 0.1.0 to 0.3.0 set it with `--pause-on-failure` (fail the workflow
   * unless the run reached a success terminal), what closeAsOutcome does for every run since;
   * every sub-loop's input still carries it as `false`, as every release wrote it.
   */
  failOnNonTerminal?: boolean;
  /**
   * Mask the values of every variable the loop references (`${env.NAME}` anywhere) in each action's
   * and judge's output (RunActionInput.mask_env). Since 0.4.0; retired: the only behaviour.
   */
  maskLoopEnv?: boolean;
  /**
   * Check each LLM answer against its evaluator's JSON Schema and ask again when it misses
   * (EvaluateLlmInput.check_schema, `llm.schema_retries`). Since 0.5.0; retired: the only
   * behaviour.
   */
  checkAnswers?: boolean;
  /**
   * Read prompt actions' and LLM evaluations' answers for rate limits and spent quotas and pause on
   * them (RunActionInput.detect_rate_limits, fsm/run/rate-limit.ts). Since 0.5.0; retired: the only
   * behaviour.
   */
  pauseOnRateLimit?: boolean;
  /**
   * Read shell and prompt actions' output for `CONTEXT_HANDOFF:`, `FATAL_ERROR:` and `LOOP_STOP:`
   * and act on them (RunActionInput.detect_signals, fsm/run/on-signal.ts, `on_handoff`). Since
   * 0.6.0; retired: the only behaviour.
   */
  stdoutSignals?: boolean;
  /**
   * Start each sub-loop's child run with this run's `LoopCheckout` search attribute, so a child
   * belongs to the checkout its parent was started in (loop names resolve per checkout). Since
   * 0.6.0; retired: the only behaviour.
   */
  childCheckout?: boolean;
  /**
   * Accept `ll-loop pause`, `unpause` and `steer` (workflows/control-handlers.ts,
   * fsm/run/control.ts). Since 0.6.0; retired: the only behaviour.
   */
  steering?: boolean;
  /**
   * Run chains of quick shell actions (those run as local activities) as bursts: one local activity
   * (`runBurst`) runs them back to back, the pure core deciding between them, and the workflow
   * feeds their facts to the core in order (workflows/burst.ts): the same events, routes and
   * captured values, one marker per burst instead of one per action, and the loop deadline enforced
   * inside the burst. Since 0.6.0; retired: the only behaviour.
   */
  quickBursts?: boolean;
  /**
   * Number each action call of the run (RunActionInput.call_key, workflows/action-calls.ts), so a
   * call the run schedules anew while its host is unreachable (workflows/placement.ts) is known to
   * the worker's journal as the same call, and a completion the host could not report is delivered
   * rather than run again. Since 0.6.0; retired: the only behaviour.
   */
  actionCallKeys?: boolean;
  /**
   * A parallel state under a budget keeps one ledger for all its items
   * (workflows/fanout-ledger.ts): each item reports what it spent by signal, each item started gets
   * what is left of the fan-out's budget, and once the items together spent it the running ones
   * make no further agent call and no further item starts. Since 0.7.0; retired: the only
   * behaviour.
   */
  sharedBudget?: boolean;
  /**
   * A fan-out's items share rate-limit pauses (workflows/fanout-pauses.ts): when one pauses for a
   * rate limit it tells the parent, which tells the other running items to make no agent call
   * before the same instant and starts no further item before it. Since 0.7.0; retired: the only
   * behaviour.
   */
  shareRateLimits?: boolean;
  /**
   * A fan-out's items on the parent's checkout (no `isolation: worktree`) whose loop declares
   * `scope:` hold those scopes while they run (workflows/fanout-scopes.ts): items on the same files
   * queue and run one after the other. Since 0.7.0; retired: the only behaviour.
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
  /**
   * A burst watches for the run's stop while its actions run (activities/stop-watch.ts): a stop
   * seen kills the running action and ends the burst (`stopped_at`), and the workflow then lets
   * its task end so that Temporal hands it the stop at once, instead of at the task's heartbeat
   * 8 s later. Set by the client for new runs; runs of older releases lack it and hear of a stop
   * when their burst ends, as they did.
   */
  stopInBursts?: boolean;
  /**
   * An approval answered `yes` or `no` captures `edit` as the empty string
   * (`${captured.<state>.edit}`), as an edited one captures its text: a reference to it after the
   * state has run never fails, and `${captured.<state>.edit:-…}` falls back. Set by the client
   * for new runs; runs of older releases lack it and capture `edit` only for an edit, as they did.
   */
  approvalEdit?: boolean;
  /**
   * A fan-out's items whose loop needs no run of its own (quick shell actions and pure decisions:
   * fsm/run/lane-items.ts) run inside the parent's workflow, their actions as bursts
   * (workflows/fanout-lanes.ts), not as child workflows. Set by the client for new runs; runs of
   * older releases lack it and start a child per item, as they did.
   */
  laneItems?: boolean;
  /**
   * A shell action whose timeout makes it an ordinary activity runs as a burst (a local activity)
   * once this run has seen the same state's action finish within 1 s (workflows/quick-record.ts):
   * a check the run repeats after each agent pass costs no round trip through the server. Set by
   * the client for new runs; runs of older releases lack it and run such actions as activities.
   */
  learnedQuick?: boolean;
  /**
   * A person's pause or steer that reaches the run while a burst runs acts at the burst's end
   * (workflows/burst.ts feedBurst): every action the burst ran is recorded as its own, and the
   * steered state's action runs. Set by the client for new runs; runs of older releases lack it:
   * their burst's facts after the control's were dropped (a pause) or taken for the steered
   * state's action (a steer), as they were.
   */
  controlsAfterBursts?: boolean;
  /**
   * Under `learnedQuick`, a burst goes on through the actions of states the run saw quick as it
   * does through quick ones (fsm/run/burst.ts BurstBounds.learned): a pass of build, type check,
   * lint and tests is one local activity, not four. Set by the client for new runs; runs of older
   * releases lack it and run each such action as a burst of its own.
   */
  learnedChains?: boolean;
  /**
   * An action's activity (an agent's fix) runs the quick actions that follow it, deciding them
   * with the pure core (activities/burst-after.ts): a pass of fix and check is one activity and
   * one workflow task, not two activations and a local activity. Set by the client for new runs;
   * runs of older releases lack it and run what follows an action as a burst of its own.
   */
  burstsAfterActions?: boolean;
  /**
   * Under `burstsAfterActions`, an action's activity also goes on through the shell actions of
   * states the run saw finish within 5 s (workflows/quick-record.ts LEARNED_BRIEF_MS), not only
   * the quick ones, up to 10 s of them: a type check or test run of a few seconds after an agent's
   * fix costs no round trip through the server either (a pass of build, type check, lint and
   * tests after a fix is one activity). Set by the client for new runs; runs of older releases
   * lack it and run such actions as activities of their own.
   */
  briefAfterActions?: boolean;
  /**
   * A terminal state's quick action (a loop's closing message: `gave_up`, `agent_failed`) runs as
   * the last action of the burst that comes to it (fsm/run/burst.ts BurstBounds.terminals), after
   * an agent's fix in its activity too, not as a burst of its own in a workflow task of its own.
   * Set by the client for new runs; runs of older releases lack it and run it alone, as they did.
   */
  terminalsInBursts?: boolean;
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

/** Every key of each part: a key of LoopRunOptions in none of them fails the type check below. */
export const RUN_RULE_KEYS = [
  'closeAsOutcome',
  'failOnNonTerminal',
  'maskLoopEnv',
  'checkAnswers',
  'pauseOnRateLimit',
  'stdoutSignals',
  'childCheckout',
  'steering',
  'quickBursts',
  'actionCallKeys',
  'sharedBudget',
  'shareRateLimits',
  'itemScopes',
  'localScopeRequest',
  'stopInBursts',
  'approvalEdit',
  'laneItems',
  'learnedQuick',
  'controlsAfterBursts',
  'learnedChains',
  'burstsAfterActions',
  'briefAfterActions',
  'terminalsInBursts',
] as const satisfies ReadonlyArray<keyof RunRules>;
export const PLACEMENT_KEYS = [
  'cwd',
  'actionQueue',
  'portable',
  'hostNoticeS',
  'placedOn',
  'searchAttributes',
] as const satisfies ReadonlyArray<keyof RunPlacement>;
export const TUNING_KEYS = [
  'localActivityMaxTimeoutS',
  'historyEventLimit',
  'heartbeatTimeoutS',
] as const satisfies ReadonlyArray<keyof RunTuning>;

type Listed = (typeof RUN_RULE_KEYS)[number] | (typeof PLACEMENT_KEYS)[number] | (typeof TUNING_KEYS)[number];
/** Compile-time check: every option is listed in one part. */
const everyKeyListed: Record<Exclude<keyof LoopRunOptions, Listed>, never> = {};
void everyKeyListed;

/** A run's options in their parts. */
export interface RunOptionParts {
  rules: RunRules;
  placement: RunPlacement;
  tuning: RunTuning;
}

function pick<T>(from: Record<string, unknown>, keys: readonly string[]): T {
  const out: Record<string, unknown> = {};
  for (const key of keys) if (from[key] !== undefined) out[key] = from[key];
  return out as T;
}

/** The options a run's input records, taken apart (any release's: their shape is the same). */
export function splitRunOptions(options: LoopRunOptions): RunOptionParts {
  const raw = options as unknown as Record<string, unknown>;
  return { rules: pick(raw, RUN_RULE_KEYS), placement: pick(raw, PLACEMENT_KEYS), tuning: pick(raw, TUNING_KEYS) };
}

/** The options a run's input records, from its parts (no part's keys overlap another's). */
export function recordedRunOptions(parts: RunOptionParts): LoopRunOptions {
  return { ...parts.placement, ...parts.tuning, ...parts.rules };
}
