/** The messages between the worker and its action spawner (activities/spawner-main.ts), over Node's IPC channel (JSON). */
import type { ActionResult } from '../fsm/types.js';
import type { BurstFact } from '../fsm/run/burst.js';
import type { RunBurstInput } from '../workflows/activity-types.js';
import type { JournaledAction } from './action-journal.js';
import type { BurstEnd, BurstStopReason } from './burst-loop.js';
import type { RunProcessOptions, SpawnFailureReason } from './process.js';

/**
 * {@link RunProcessOptions} as they cross the channel: no callbacks, secrets as base64, and the
 * live view by its name (`stream-json`: a host CLI's stream, activities/stream-json-live.ts), made
 * again in the spawner.
 */
type SpawnerOptions = Omit<RunProcessOptions, 'signal' | 'onHeartbeat' | 'heartbeatMs' | 'secrets' | 'liveView'> & {
  secrets: string[];
  liveView?: 'stream-json';
};

/** A burst's first action's fault as it crosses the channel: `setup` when retrying cannot help. */
export interface SpawnerFault {
  message: string;
  setup?: true;
}

export type SpawnerRequest =
  | { t: 'run'; id: number; opts: SpawnerOptions }
  /**
   * A whole burst (activities/burst-loop.ts); `env`: its run's environment (activities/action-env.ts),
   * its actions' whole environment and the source of their `${env.*}`; `journaled`: its first
   * actions as an earlier attempt completed them (delivered again, not run).
   */
  | { t: 'burst'; id: number; input: RunBurstInput; env: Record<string, string>; journaled?: JournaledAction[] }
  /** List the checkout's files under `cwd` (activities/checkout-files.ts), for `tamper_guard:`. */
  | { t: 'list'; id: number; cwd: string }
  /** Stop action or burst `id`; a burst's `why` and its time. */
  | { t: 'abort'; id: number; why?: BurstStopReason; at?: number }
  /** Start no action of burst `id` after the running one (activities/burst-loop.ts BurstControl.drain). */
  | { t: 'drain'; id: number };

export type SpawnerReply =
  | { t: 'ready' }
  | { t: 'done'; id: number; result: ActionResult }
  /** Listing `id`'s files; null when git could not list them (the worker walks the directory). */
  | { t: 'listed'; id: number; files: string[] | null }
  | { t: 'failed'; id: number; message: string; spawn?: { reason: SpawnFailureReason; code?: string } }
  /** One action of burst `id` ended: its fact, in order, and its state. */
  | { t: 'fact'; id: number; fact: BurstFact; state: string }
  /** Burst `id` ended (after its last fact). */
  | { t: 'burst_end'; id: number; end: BurstEnd<SpawnerFault> };
