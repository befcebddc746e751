/**
 * The run's event stream (seed 001 "Structured Events"): every event the core emits, as one
 * member of a union discriminated on `event`, with the fields it really carries. The same shapes
 * are the lines of `.events.jsonl` and of `--json` output; docs/cli.md lists them, and a test
 * compares that table with EVENT_FIELDS (event-shape.ts), which the compiler holds equal to the
 * union.
 */
import type { BudgetLimit, RateLimitFact, Spend, TerminatedBy } from '../types.js';

type Fact<E extends string, F> = { event: E } & F;

type LoopStartEvent = Fact<'loop_start', { loop: string; initial: string; max_iterations: number }>;
type LoopResumeEvent = Fact<'loop_resume', { loop: string; from_run: string; state: string; iteration: number }>;
type LoopUpgradedEvent = Fact<
  'loop_upgraded',
  {
    loop: string;
    from_semantics: number;
    to_semantics: number;
    from_build?: string;
    state: string;
    iteration: number;
    reason: string;
  }
>;
type StateEnterEvent = Fact<'state_enter', { state: string; iteration: number }>;
type ActionStartEvent = Fact<
  'action_start',
  { state: string; action: string; action_type: 'shell' | 'prompt' | 'mcp'; attempt?: number }
>;
type SubloopStartEvent = Fact<'subloop_start', { state: string; loop: string; passthrough: boolean }>;
type ActionCompleteEvent = Fact<
  'action_complete',
  {
    state: string;
    exit_code: number;
    duration_ms: number;
    timed_out?: true;
    /** The action printed nothing for its `idle_timeout` (absent for its `timeout`). */
    timeout_kind?: 'idle';
    signal?: string;
    log_file?: string;
    rate_limited?: true;
  }
>;
/** Why the attempt failed: its exit code, its verdict (with `retry.on`), or why it could not run. */
export type RetryCause = { exit_code?: number; verdict?: string; error?: string };
type ActionRetryEvent = Fact<
  'action_retry',
  { state: string; attempt: number; attempts: number; delay_ms: number } & RetryCause
>;
type ActionErrorEvent = Fact<'action_error', { state: string; error: string }>;
/** A guarded action changed test files (fsm/tamper-guard.ts): `findings` are `<kind>: <path>` lines. */
type TamperGuardEvent = Fact<
  'tamper_guard',
  { state: string; policy: string; findings: string[]; reverted?: string[]; error?: string }
>;
/** A passing check run again before the patch (fsm/prepatch-check.ts): `outcome` flagged, clean or skipped. */
type PrepatchCheckEvent = Fact<'prepatch_check', { state: string; policy: string; outcome: string; message: string }>;
type OutputReaskEvent = Fact<'output_reask', { state: string; ask: number; asks: number; errors: string[] }>;
type LlmReaskEvent = Fact<'llm_reask', { state: string; ask: number; asks: number; errors: string[] }>;
/** An evaluator's verdict, or (type `error`, with `error` and no `details`) the error verdict after `action_error`. */
type EvaluateEvent = Fact<
  'evaluate',
  {
    state: string;
    type: string;
    verdict: string;
    confidence?: number;
    details?: Record<string, unknown>;
    error?: string;
  }
>;
type RateLimitedEvent = Fact<
  'rate_limited',
  {
    state: string;
    source: 'action' | 'llm';
    kind: RateLimitFact['kind'];
    message: string;
    resumes_at: string;
    wait_ms: number;
    pause: number;
  }
>;
type RateLimitResumeEvent = Fact<'rate_limit_resume', { state: string; source: 'action' | 'llm'; pause: number }>;
type HandoffEvent = Fact<
  'handoff',
  {
    state: string;
    mode: 'pause' | 'spawn' | 'terminate';
    payload: string;
    max_continuations?: number;
    continuation?: number;
  }
>;
type HandoffResumedEvent = Fact<'handoff_resumed', { state: string; waited_ms: number }>;
type HumanWaitEvent = Fact<
  'human_wait',
  { state: string; prompt: string; ask: string; options?: string[]; deadline?: string }
>;
type HumanAnswerEvent = Fact<'human_answer', { state: string; verdict: string; by: string; latency_ms: number }>;
type HumanTimeoutEvent = Fact<'human_timeout', { state: string; waited_ms: number }>;
type FatalErrorEvent = Fact<'fatal_error', { state: string; message: string }>;
type LoopStopEvent = Fact<'loop_stop', { state: string; message: string }>;
type BudgetSpentEvent = Fact<
  'budget_spent',
  { state: string; scope: 'loop' | 'state'; limit: BudgetLimit; spent: number; max: number; needed?: number }
>;
type SubloopCompleteEvent = Fact<
  'subloop_complete',
  {
    state: string;
    loop: string;
    final_state: string;
    terminated_by: TerminatedBy;
    verdict: string;
    duration_ms: number;
    error?: string;
  }
>;
type RouteEvent = Fact<'route', { from: string; to: string; verdict?: string }>;
type MaintainRestartEvent = Fact<'maintain_restart', { state: string; cycle: number; to: string }>;
type LoopCompleteEvent = Fact<
  'loop_complete',
  {
    final_state: string;
    iterations: number;
    steps: number;
    terminated_by: TerminatedBy;
    failure?: true;
    duration_ms: number;
    cycles?: number;
    error?: string;
    spent?: Spend;
  }
>;
/** `ll-loop pause`: the run holds before its next transition (fsm/run/control.ts). */
type PausedEvent = Fact<'paused', { state: string; by: string }>;
type UnpausedEvent = Fact<'unpaused', { state: string; by: string; paused_ms: number }>;
/** `ll-loop steer`: the run went to `to` instead of `replaced` (the route it had decided). */
type SteeredEvent = Fact<
  'steered',
  { from: string; to: string; replaced: string; by: string; note?: string; context?: string[] }
>;
/** `ll-loop rerun`: the first event of a run started from an earlier run's snapshot (`<run>@<seq>`). */
type LoopForkEvent = Fact<
  'loop_fork',
  { loop: string; forked_from: string; state: string; iteration: number; context?: string[] }
>;
/** A parallel state starts its items (fsm/run/parallel.ts); `loop` absent for branches. */
type FanoutStartEvent = Fact<
  'fanout_start',
  { state: string; count: number; max_workers: number; fail_mode: string; loop?: string }
>;
/** One item of a parallel state ended (or was skipped by fail_fast); `run_id` is its child run. */
type ItemDoneEvent = Fact<
  'item_done',
  { state: string; index: number; outcome: string; run_id?: string; error?: string }
>;
/** A parallel state's items are joined: how many, how many succeeded, the verdict it routes on. */
type FanoutJoinEvent = Fact<
  'fanout_join',
  { state: string; count: number; succeeded: number; failed: number; verdict: string }
>;
/** Where a portable run's checkout moved (fsm/run/notes.ts); the first claim has no `from_host`. */
type HostChangeEvent = Fact<
  'host_change',
  { state: string; from_host?: string; to_host: string; dir: string; reason: string }
>;

/** One entry of the run's event stream: exactly the events the core emits. */
export type LoopEvent =
  | LoopStartEvent
  | LoopResumeEvent
  | LoopUpgradedEvent
  | StateEnterEvent
  | ActionStartEvent
  | SubloopStartEvent
  | ActionCompleteEvent
  | ActionRetryEvent
  | ActionErrorEvent
  | TamperGuardEvent
  | PrepatchCheckEvent
  | OutputReaskEvent
  | LlmReaskEvent
  | EvaluateEvent
  | RateLimitedEvent
  | RateLimitResumeEvent
  | HandoffEvent
  | HandoffResumedEvent
  | HumanWaitEvent
  | HumanAnswerEvent
  | HumanTimeoutEvent
  | FatalErrorEvent
  | LoopStopEvent
  | BudgetSpentEvent
  | SubloopCompleteEvent
  | RouteEvent
  | MaintainRestartEvent
  | LoopCompleteEvent
  | HostChangeEvent
  | PausedEvent
  | UnpausedEvent
  | SteeredEvent
  | LoopForkEvent
  | FanoutStartEvent
  | ItemDoneEvent
  | FanoutJoinEvent;

export type EventName = LoopEvent['event'];
/** The fields of event `E` besides its name (what `emit` takes). */
export type EventFields<E extends EventName> = Omit<Extract<LoopEvent, { event: E }>, 'event'>;

/** One event of the run's stream, numbered and timed by the core. */
export type RunStreamEvent = LoopEvent & { seq: number; ts: string };

/**
 * An event this release does not know, or a known name without the fields it has now: a line
 * of an earlier release's `.events.jsonl`. Readers show it as it is (its name and fields).
 */
interface UnknownEvent {
  event: string;
  seq: number;
  ts: string;
  [field: string]: unknown;
}

/** Where a sub-loop's event comes from, when it is delivered to an ancestor run's listeners. */
interface SubloopOrigin {
  /** 1 for a child of the listened run, 2 for a grandchild, … */
  depth: number;
  workflow_id: string;
}

/** What the follower attached to `action_complete`: the action's result from history (runs/follow/action-results.ts). */
export interface ActionOutput {
  output: string;
  stderr: string;
  exit_code: number;
  /** Set when the tails were cut: the whole output is in `log_file` on the worker's machine. */
  truncated?: boolean;
  log_file?: string;
  /** stderr's file beside it (results of 0.3.0 and earlier: one `log_file` held both streams). */
  stderr_file?: string;
}

/** What delivery adds to an event for its listeners (never in the core's stream or the files). */
type Delivery = {
  subloop?: SubloopOrigin;
  /** Only on `action_complete`, when the follower was asked for what the action printed. */
  action_output?: ActionOutput;
};
/** A delivered event as the core emitted it: every field of today's shape present. */
export type KnownTimedEvent = RunStreamEvent & Delivery;
/** What readers of the stream (reporters, `history`, `logs`) get: the core's events, as delivered, or events they do not know. */
export type TimedEvent = KnownTimedEvent | (UnknownEvent & Delivery);

type Lenient<E> = E extends LoopEvent ? { event: E['event'] } & Partial<Omit<E, 'event'>> : never;
/**
 * A known event as a reader may meet it: its name is today's and each field present has today's
 * kind, but any field may be missing (a line an earlier release wrote, before the field existed).
 */
export type ReadEvent = Lenient<LoopEvent> & { seq: number; ts: string } & Delivery;
