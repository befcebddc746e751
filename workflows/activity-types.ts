/**
 * The activities the workflows call, as the workflows see them: signatures only, in the core's
 * types, so sandboxed code type-checks without Node's types. activities/index.ts implements it
 * (`createActivities(): LoopActivities`), so the two cannot drift apart.
 */
import type { LoopDefinition } from '../fsm/schema.js';
import type { ActionRequest, DiffStatRequest, LlmReply, RunningSnapshot } from '../fsm/run/snapshot.js';
import type { BurstAfter, BurstAfterOutcome, BurstBounds, BurstOutcome } from '../fsm/run/burst.js';
import type { ActionResult, EvaluateLlmInput, RunActionInput } from '../fsm/types.js';
import type { PortableCheckout } from './run-options.js';
import type { ScopeLockInput, ScopeRequest } from './scope-lock-definitions.js';

/** Which sub-loop to load, resolved like `ll-loop run <name>` from `cwd`. */
interface LoadSubloopInput {
  name: string;
  cwd: string;
}

/** The child's definition, or why it could not be loaded (routed as `error` by the parent). */
type LoadSubloopResult = { definition: LoopDefinition; file: string } | { error: string };

/** Signal-with-start the lock workflow of a domain with a run's request. */
export interface RequestScopesInput {
  workflowId: string;
  taskQueue: string;
  workflowType: string;
  signal: string;
  request: ScopeRequest;
  /** The lock workflow's input, should this request start it. */
  lockInput: ScopeLockInput;
}

export interface DescribeRunsInput {
  runs: string[];
}

/** The runs (workflow ids) that are closed or unknown: their scopes are free. */
export interface DescribeRunsResult {
  gone: string[];
}

export interface FindScopeHoldersInput {
  domain: string;
  /** The loop workflow type and the memo key under which a holding run records its scopes. */
  loopWorkflowType: string;
  memoKey: string;
}

export interface FoundScopeHolder {
  run: string;
  scopes: string[];
  sinceMs: number;
}

/** A human state's wait started: the hook to tell someone (absent: the worker's `LL_NOTIFY`). */
export interface NotifyHumanInput {
  command?: string;
  runId: string;
  state: string;
  prompt: string;
  /** The command that answers. */
  answer: string;
  cwd: string;
}

/**
 * What `runAction` is asked: the action and, with `burst_after`, to run the quick actions that
 * follow it, the core deciding them (the `burstsAfterActions` run rule, activities/burst-after.ts):
 * set by the workflow for an activity whose state routes to one that may run in a burst.
 */
export type ActionCall = RunActionInput & { burst_after?: BurstAfter };

/** What `runAction` returns: the action's result, and the burst of quick actions it ran after it when asked. */
export type ActionOutcome = ActionResult & { burst_after?: BurstAfterOutcome };

/** A burst of quick actions (activities/run-burst.ts, fsm/run/burst.ts), from the run's place now. */
export interface RunBurstInput {
  definition: LoopDefinition;
  /** The snapshot whose effect is `first`. */
  snapshot: RunningSnapshot;
  first: ActionRequest;
  /** What the workflow adds to every action's input (as for `runAction`). */
  action: Pick<RunActionInput, 'instanceId' | 'cwd' | 'mask_env' | 'detect_signals' | 'handoff_threshold'>;
  bounds: BurstBounds;
  /** The loop deadline (epoch ms), if the loop has a timeout. */
  deadline_ms?: number;
  /** The workflow's clock when it asked: no fact is timed before it. */
  now: number;
  /** Watch for the run's stop while an action runs (activities/stop-watch.ts; the `stopInBursts` rule). */
  watch_stop?: true;
  /**
   * A fan-out item run in a lane (workflows/fanout-lanes.ts): `<state>.<step>.<index>`. Its burst's
   * journal is keyed by it and by the first action's step and attempt, not by the activity's sequence number, which
   * lanes side by side need not keep when their unrecorded bursts are scheduled again after a crash.
   */
  lane_item?: string;
}

/** For `proxyActivities<LoopActivities>()` / `proxyLocalActivities`; the keys are the activity type names. */
export interface LoopActivities {
  /** The action's result; with `burst_after`, the quick actions after it too. */
  runAction: (input: ActionCall) => Promise<ActionOutcome>;
  /** Quick actions back to back, the core deciding between them; their facts in order. */
  runBurst: (input: RunBurstInput) => Promise<BurstOutcome>;
  /** The answer as read; the core judges it. */
  evaluateLlm: (input: EvaluateLlmInput) => Promise<LlmReply>;
  loadSubloop: (input: LoadSubloopInput) => Promise<LoadSubloopResult>;
  /** diff_stall: `git diff --stat -- <scope>` in `cwd`, or why there is none (the core compares). */
  diffStat: (input: DiffStatRequest & { cwd: string }) => Promise<{ stat: string } | { error: string }>;
  requestScopes: (input: RequestScopesInput) => Promise<void>;
  describeRuns: (input: DescribeRunsInput) => Promise<DescribeRunsResult>;
  findScopeHolders: (input: FindScopeHoldersInput) => Promise<FoundScopeHolder[]>;
  /** Run the notification hook of a human state's wait; what happened, in a line (never throws for the hook's failure). */
  notifyHuman: (input: NotifyHumanInput) => Promise<{ ran: boolean; exit_code?: number; error?: string }>;
}

/** Where a parallel state's item worktrees come from (activities/item-worktrees.ts). */
export interface ItemWorktreeSource {
  repository: string;
  commit: string;
  /** The run's directory relative to the repository's top. */
  path: string;
  /** Where the worktrees go: `<repository>/.loops/.worktrees`. */
  baseDir: string;
}

export interface ItemWorktreeActivities {
  /** The repository and commit the items start from, or why they cannot (not a repository, dirty). */
  itemWorktreeSource: (input: { cwd: string }) => Promise<ItemWorktreeSource | { error: string }>;
  prepareItemWorktree: (input: {
    source: ItemWorktreeSource;
    branch: string;
    runId: string;
  }) => Promise<{ dir: string; cwd: string }>;
  /** Remove the item's worktree and branch unless they hold work. */
  finishItemWorktree: (input: {
    source: ItemWorktreeSource;
    dir: string;
    branch: string;
  }) => Promise<{ kept: boolean; why?: string }>;
}

/** A portable run's checkout, claimed by the worker that answers first (see workflows/placement.ts). */
export interface ClaimedCheckout {
  host: string;
  /** The worker's own host queue: every later action of the run goes there. */
  queue: string;
  /** The checkout's directory, and the run's directory in it. */
  dir: string;
  cwd: string;
}

export interface PlacementActivities {
  claimCheckout: (input: PortableCheckout & { path: string; runId: string }) => Promise<ClaimedCheckout>;
  releaseCheckout: (input: PortableCheckout & { dir: string }) => Promise<{ kept: boolean; why?: string }>;
}
