/**
 * The scope lock's wire contract (Temporal's mutex sample pattern): one lock workflow per lock
 * domain, `ll-loop-lock.<hash of domain>`, on the task queue the request names. Runs ask it for
 * scopes with `scopeRequestSignal` (signal-with-start, so the first request starts it), hear back
 * on their own `scopeAnswerSignal`, and give their scopes back with `scopeReleaseSignal` when
 * they end in any way. Shared by the loop workflow, the lock workflow, the activities (names
 * only) and the client.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { Blocker, ScopeAnswer, ScopeQueue } from '../fsm/run/scope-queue.js';

export type { Blocker, ScopeAnswer };

export const SCOPE_LOCK_WORKFLOW_TYPE = 'scopeLockWorkflow';

/** Prefix of lock workflow ids: `ll-loop-lock.<shortHash(domain)>`. */
export const SCOPE_LOCK_ID_PREFIX = 'll-loop-lock.';

// The failure type of a run denied its scopes (no SDK there: the CLI's light follower reads it).
export { SCOPE_BUSY } from './scope-busy.js';

/** Every ScopeBusy message reads `scope <paths> is busy: <why>`, so logs can tell them apart. */
export function scopeBusyMessage(scopes: readonly string[], why: string): string {
  return `scope ${scopes.join(', ')} is busy: ${why}`;
}

export function isScopeBusyMessage(message: string): boolean {
  return /^scope .+ is busy: /.test(message);
}

export interface ScopeBusyDetails {
  domain: string;
  /** The scopes the run asked for. */
  scopes: string[];
  reason: 'busy' | 'timeout' | 'removed';
  /** Who was in the way when the lock answered (holders first). */
  blockers: Blocker[];
  /** With reason `timeout`: how long it waited. */
  waited_s?: number;
}

/** The lock workflow's input; `queue` is its state carried across continue-as-new. */
export interface ScopeLockInput {
  domain: string;
  /** How often the lock checks that its holders and waiters are still running (default 15 s). */
  livenessIntervalS?: number;
  /** Continue as new past this many history events (default 5,000). */
  historyEventLimit?: number;
  /** Close after this long with nobody holding or waiting (default 300 s); the next request starts it again. */
  idleCloseS?: number;
  /** Continued as new: the queue as it was. Absent on a fresh start, which rebuilds the holders. */
  queue?: ScopeQueue;
}

export interface ScopeRequest {
  /** The requesting run's workflow id. */
  run: string;
  scopes: string[];
  wait: boolean;
}

export const scopeRequestSignal = defineSignal<[ScopeRequest]>('ll-scope-request');
export const scopeReleaseSignal = defineSignal<[{ run: string }]>('ll-scope-release');
/** Sent by the lock to a run (granted, queued behind someone, denied). */
export const scopeAnswerSignal = defineSignal<[ScopeAnswer]>('ll-scope-answer');

/** What `queue remove` did: removed a waiter, found the run holding (untouched), or not at all. */
export type ScopeRemoveResult = { removed: true } | { removed: false; holds: boolean };
export const scopeRemoveUpdate = defineUpdate<ScopeRemoveResult, [{ run: string }]>('ll-scope-remove');

/** The lock's state for `ll-loop queue list`: its domain, holders and waiters (in order). */
export interface ScopeQueueView extends ScopeQueue {
  domain: string;
}
export const scopeQueueQuery = defineQuery<ScopeQueueView>('ll-scope-queue');

/** The lock workflow's memo key holding its queue (a ScopeQueue), kept current. */
export const SCOPE_QUEUE_MEMO_KEY = 'scope_queue';

/** What the loop workflow memoises once it holds its scopes: how a fresh lock workflow finds it (rebuild). */
export const SCOPE_LOCK_MEMO_KEY = 'scope_lock';
export interface ScopeLockMemo {
  domain: string;
  scopes: string[];
  since_ms: number;
}
