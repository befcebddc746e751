/**
 * The runs service's `start` (runs/service/interface.ts): what it is asked — a loop the caller
 * loaded and validated, and how to run it — and what it answers: the started run (its id, where
 * it runs, who serves it) or the checkout worker's refusal. Types only: every caller loads it.
 */
import type { LoopDefinition } from '../../fsm/schema.js';
import type { WorkerRecord } from '../../host/checkout.js';
import type { ScopeLockRequest } from '../../workflows/definitions.js';
import type { PortableCheckout } from '../../workflows/run-options.js';
import type { WorkerStartRequest } from '../transport/schemas.js';
import type { RunPlace } from './run-place.js';

export interface RunStart {
  /** The caller's directory: its checkout and project. */
  cwd: string;
  definition: LoopDefinition;
  /** The loop's file. */
  file: string;
  /** The environment the run's actions see (the command's, as it was invoked: host/run-env.ts). */
  env: NodeJS.ProcessEnv;
  /** The `--context` keys that are data in shell actions, not code (docs/decisions.md). */
  dataContext: string[];
  /** When the start was asked (the run's id is made from it). */
  started: Date;
  /** The scope lock asked for: none, wait in the queue (`--queue`, with its timeout), or fail when busy. */
  lock: WorkerStartRequest['lock'];
  /** Where the run goes (default: the checkout's worker). */
  place?: RunPlace;
  /** Nobody follows the run: the start answers once its scope lock has (a busy scope is the start's error). */
  background?: boolean;
  /** Called once the checkout's worker has the request (the caller may load what follows meanwhile). */
  sent?: () => void;
  /** A line for a person (no worker polls a pool's queue yet…). */
  onNote?: (text: string) => void;
  /**
   * Only the checkout's worker may start it: when it cannot, the answer is a refusal (`run` then
   * starts it on the connection it follows on). Else `direct` starts it.
   */
  workerOnly?: boolean;
}

/** A started run: its id and chain, where it runs and who serves it. */
export interface StartedRun {
  instanceId: string;
  /** The first run of its chain. */
  runId: string;
  taskQueue: string;
  /** Its scope lock (undefined: `--no-lock`). */
  lock: ScopeLockRequest | undefined;
  place: RunPlace;
  /** The checkout's worker that serves it, when this machine's does. */
  worker: WorkerRecord | undefined;
  /** Who started it: the checkout's worker (over its socket), or the caller's connection. */
  by: 'worker' | 'caller';
  /** Its server (`host:port`), namespace and Web UI, when known. */
  address: string;
  namespace: string;
  uiUrl?: string;
  /** A portable run's source and branch (`--worktree`). */
  portable?: PortableCheckout;
}

export type StartOutcome = { kind: 'started'; run: StartedRun } | { kind: 'refused'; why: string };
