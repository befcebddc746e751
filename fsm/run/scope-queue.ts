/**
 * The scope lock of one domain as a pure state machine: `decide(queue, fact)` returns the next
 * queue and the answers to send. The lock workflow (workflows/scope-lock-workflow.ts) only feeds
 * it facts and delivers its answers, so every rule here is unit-tested without Temporal.
 *
 * Invariants, whatever the facts:
 * - no two holders have overlapping scopes, except holders restored from a rebuild, which are
 *   facts about runs already working (and then nothing overlapping them is granted);
 * - FIFO: a request waits if it overlaps a holder or an earlier waiter; a waiter is granted as
 *   soon as it overlaps neither a holder nor a waiter ahead of it, so a later request never
 *   overtakes an earlier one it overlaps, and non-overlapping requests never wait for each other;
 * - a run is in the queue at most once (holder or waiter), keyed by its workflow id, so a
 *   repeated request (a retried activity, a waiter's re-request) keeps its place.
 */
import { claimsOverlap } from '../scopes.js';

/** A run asking for scopes. `wait`: queue behind conflicts (`--queue`) rather than be denied. */
interface ScopeClaim {
  /** The run's workflow id (continue-as-new keeps it, so a continued run keeps its lock). */
  run: string;
  scopes: string[];
  wait: boolean;
  requestedAtMs: number;
}

interface ScopeHolder extends ScopeClaim {
  grantedAtMs: number;
}

/** The lock's state: holders, and waiters in arrival order. Serialisable (continue-as-new). */
export interface ScopeQueue {
  holders: ScopeHolder[];
  waiters: ScopeClaim[];
}

/** A run in the way of a request: holding its scopes, or waiting ahead of it. */
export interface Blocker {
  run: string;
  scopes: string[];
  holds: boolean;
}

/** What the lock tells a run. */
export type ScopeAnswer =
  | { kind: 'granted' }
  | { kind: 'queued'; blockers: Blocker[] }
  | { kind: 'denied'; reason: 'busy' | 'removed'; blockers: Blocker[] };

export type QueueFact =
  | { type: 'request'; run: string; scopes: string[]; wait: boolean; now: number }
  /** The run ended (or left the queue): it holds and waits for nothing any more. */
  | { type: 'release'; run: string; now: number }
  /** `ll-loop queue remove`: a waiter leaves the queue and is told so. Holders are not touched. */
  | { type: 'remove'; run: string; now: number }
  /** The liveness check found these runs closed or gone. */
  | { type: 'gone'; runs: string[]; now: number }
  /** A fresh lock workflow found these runs holding scopes of its domain (rebuild). */
  | { type: 'restore'; holders: Array<{ run: string; scopes: string[]; sinceMs: number }>; now: number };

export interface Decision {
  queue: ScopeQueue;
  answers: Array<{ run: string; answer: ScopeAnswer }>;
}

export const EMPTY_QUEUE: ScopeQueue = { holders: [], waiters: [] };

/** The holders and the waiters (ahead of a position) whose scopes overlap `scopes`. */
export function blockersOf(
  queue: ScopeQueue,
  scopes: readonly string[],
  waitersAhead = queue.waiters.length,
): Blocker[] {
  return [
    ...queue.holders
      .filter((h) => claimsOverlap(h.scopes, scopes))
      .map((h) => ({ run: h.run, scopes: h.scopes, holds: true })),
    ...queue.waiters
      .slice(0, waitersAhead)
      .filter((w) => claimsOverlap(w.scopes, scopes))
      .map((w) => ({ run: w.run, scopes: w.scopes, holds: false })),
  ];
}

/** Whether `run` holds or waits. */
export function inQueue(queue: ScopeQueue, run: string): 'holder' | 'waiter' | undefined {
  if (queue.holders.some((h) => h.run === run)) return 'holder';
  if (queue.waiters.some((w) => w.run === run)) return 'waiter';
  return undefined;
}

function without(queue: ScopeQueue, runs: readonly string[]): ScopeQueue {
  return {
    holders: queue.holders.filter((h) => !runs.includes(h.run)),
    waiters: queue.waiters.filter((w) => !runs.includes(w.run)),
  };
}

/** Grant, in order, every waiter that overlaps no holder and no waiter still ahead of it. */
function promote(queue: ScopeQueue, now: number): Decision {
  const holders = [...queue.holders];
  const waiters: ScopeClaim[] = [];
  const answers: Decision['answers'] = [];
  for (const w of queue.waiters) {
    if (blockersOf({ holders, waiters }, w.scopes).length === 0) {
      holders.push({ ...w, grantedAtMs: now });
      answers.push({ run: w.run, answer: { kind: 'granted' } });
    } else waiters.push(w);
  }
  return { queue: { holders, waiters }, answers };
}

function request(queue: ScopeQueue, fact: Extract<QueueFact, { type: 'request' }>): Decision {
  const place = inQueue(queue, fact.run);
  // Asked again: a holder hears it holds (it may have missed nothing, but it costs one signal);
  // a waiter keeps its place and hears nothing new.
  if (place === 'holder') return { queue, answers: [{ run: fact.run, answer: { kind: 'granted' } }] };
  if (place === 'waiter') return { queue, answers: [] };
  const claim: ScopeClaim = { run: fact.run, scopes: fact.scopes, wait: fact.wait, requestedAtMs: fact.now };
  const blockers = blockersOf(queue, fact.scopes);
  if (blockers.length === 0) {
    return {
      queue: { ...queue, holders: [...queue.holders, { ...claim, grantedAtMs: fact.now }] },
      answers: [{ run: fact.run, answer: { kind: 'granted' } }],
    };
  }
  if (!fact.wait) return { queue, answers: [{ run: fact.run, answer: { kind: 'denied', reason: 'busy', blockers } }] };
  return {
    queue: { ...queue, waiters: [...queue.waiters, claim] },
    answers: [{ run: fact.run, answer: { kind: 'queued', blockers } }],
  };
}

/** The next queue and the answers to send, for one fact. */
export function decide(queue: ScopeQueue, fact: QueueFact): Decision {
  switch (fact.type) {
    case 'request':
      return request(queue, fact);
    case 'release':
      return promote(without(queue, [fact.run]), fact.now);
    case 'gone':
      return promote(without(queue, fact.runs), fact.now);
    case 'remove': {
      const waiter = queue.waiters.find((w) => w.run === fact.run);
      if (!waiter) return { queue, answers: [] };
      const index = queue.waiters.indexOf(waiter);
      const blockers = blockersOf(queue, waiter.scopes, index);
      const next = promote(without(queue, [fact.run]), fact.now);
      return {
        queue: next.queue,
        answers: [{ run: fact.run, answer: { kind: 'denied', reason: 'removed', blockers } }, ...next.answers],
      };
    }
    case 'restore': {
      const known = new Set([...queue.holders.map((h) => h.run)]);
      const restored = fact.holders
        .filter((h) => !known.has(h.run))
        .map((h): ScopeHolder => ({
          run: h.run,
          scopes: h.scopes,
          wait: false,
          requestedAtMs: h.sinceMs,
          grantedAtMs: h.sinceMs,
        }));
      // A restored holder that was also waiting here (it re-requested first) holds: drop the wait.
      const runs = restored.map((h) => h.run);
      return promote(
        { holders: [...queue.holders, ...restored], waiters: queue.waiters.filter((w) => !runs.includes(w.run)) },
        fact.now,
      );
    }
  }
}

/**
 * The queue once `facts` (heard, not yet decided) are decided: what a reader asking now should
 * see. The lock workflow decides its inbox only between its own awaits, so a release heard while
 * it waits on a liveness check would otherwise still show the run that left.
 */
export function withFacts(queue: ScopeQueue, facts: readonly QueueFact[]): ScopeQueue {
  return facts.reduce((q, fact) => decide(q, fact).queue, queue);
}
