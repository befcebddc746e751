/** The messages between the worker and its action spawner (activities/spawner-main.ts), over Node's IPC channel (JSON). */
import type { ActionResult } from '../fsm/types.js';
import type { RunProcessOptions, SpawnFailureReason } from './process.js';

/** {@link RunProcessOptions} as they cross the channel: no callbacks, secrets as base64. */
export type SpawnerOptions = Omit<RunProcessOptions, 'signal' | 'onHeartbeat' | 'heartbeatMs' | 'secrets'> & {
  secrets: string[];
};

export type SpawnerRequest = { t: 'run'; id: number; opts: SpawnerOptions } | { t: 'abort'; id: number };

export type SpawnerReply =
  | { t: 'ready' }
  | { t: 'done'; id: number; result: ActionResult }
  | { t: 'failed'; id: number; message: string; spawn?: { reason: SpawnFailureReason; code?: string } };
