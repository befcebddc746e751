/**
 * The run's state as the pure core sees it. Plain JSON: it is the workflow's memory, the answer
 * to the status query, and (later) the continue-as-new argument.
 */
import type { ActionResult, CapturedValue, EvalResult, ExecutionResult, LoopEvent, PrevResult, RunActionInput, EvaluateLlmInput, RunLoopInput } from './types.js';

/** What the run is waiting for. */
export type Phase = 'starting' | 'action' | 'llm' | 'subloop' | 'backoff' | 'retry_delay' | 'maintain_delay' | 'done';

export interface Snapshot {
  phase: Phase;
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
  /** Attempt (1-based) of the current state's action under `retry:`; absent means 1. */
  attempt?: number;
  captured: Record<string, CapturedValue>;
  prev: PrevResult | null;
  result: EvalResult | null;
  /** Last value each convergence state measured (for `previous` when none is given). */
  lastValues: Record<string, number>;
  /** The action result waiting for LLM evaluation. */
  pending: ActionResult | null;
  startedAt: string;
  startedAtMs: number;
  outcome: ExecutionResult | null;
  /** Context keys holding run-time data from a parent loop (see InterpolationScope.dataContext). */
  dataContext?: string[];
}

/** Inputs to the core. `now` is epoch ms from the caller's clock (workflow time in Temporal). */
export type StepEvent =
  | { type: 'start'; now: number }
  | { type: 'action_done'; result: ActionResult; now: number }
  | { type: 'action_failed'; error: string; now: number }
  | { type: 'llm_done'; result: EvalResult; now: number }
  /** A sub-loop ended (any way): its result. */
  | { type: 'loop_done'; result: ExecutionResult; now: number }
  /** A sub-loop could not run (unknown loop, bad parameters, too deep, workflow failure). */
  | { type: 'loop_failed'; error: string; now: number }
  | { type: 'sleep_done'; now: number }
  | { type: 'timeout'; now: number }
  | { type: 'cancel'; now: number };

/** Effects for the runtime. At most one of run_action / evaluate_llm / sleep / finish per step. */
export type Command =
  | { type: 'emit'; event: LoopEvent }
  | { type: 'run_action'; input: Omit<RunActionInput, 'instanceId' | 'cwd'> }
  | { type: 'evaluate_llm'; input: Omit<EvaluateLlmInput, 'instanceId' | 'cwd'> }
  | { type: 'run_loop'; input: RunLoopInput }
  | { type: 'sleep'; ms: number; reason: 'backoff' | 'retry' | 'maintain_delay' }
  | { type: 'finish'; result: ExecutionResult };

export interface StepOutput {
  snapshot: Snapshot;
  commands: Command[];
}

export function initialSnapshot(initial: string, now: number): Snapshot {
  return {
    phase: 'starting',
    current: initial,
    iteration: 0,
    visited: [],
    steps: 0,
    cycles: 0,
    captured: {},
    prev: null,
    result: null,
    lastValues: {},
    pending: null,
    startedAt: new Date(now).toISOString(),
    startedAtMs: now,
    outcome: null,
  };
}
