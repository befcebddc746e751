/**
 * `scopeLockWorkflow`: the scope lock of one domain (a checkout, or a repository for portable
 * runs), after Temporal's mutex sample. It holds the queue (fsm/run/scope-queue.ts decides every
 * grant), hears requests and releases as signals, and answers each run with a signal.
 *
 * - Liveness: while anyone holds or waits, it asks every `livenessIntervalS` (default 15 s)
 *   which of them still run (`describeRuns`); a run terminated from the Web UI or by
 *   `temporal workflow terminate` never releases, so its scopes are freed there.
 * - Rebuild: a fresh start (not a continue-as-new) first lists the running loops whose memo says
 *   they hold scopes of this domain (`findScopeHolders`) and restores them as holders, so a lock
 *   workflow terminated by hand and started again by the next request never grants a scope that
 *   a run still works in.
 * - It continues as new, carrying the queue, past `historyEventLimit` events (or when Temporal
 *   suggests it), and closes after `idleCloseS` with nobody holding or waiting; the next
 *   request starts it again (signal-with-start). A signal that arrives while it continues or
 *   closes is not lost: Temporal refuses the close and hands the signal to the workflow first.
 */
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  proxyActivities,
  setHandler,
  upsertMemo,
  workflowInfo,
} from '@temporalio/workflow';
import {
  decide,
  EMPTY_QUEUE,
  inQueue,
  type QueueFact,
  type ScopeAnswer,
  type ScopeQueue,
  withFacts,
} from '../fsm/run/scope-queue.js';
import type { LoopActivities } from './activity-types.js';
import { LOOP_WORKFLOW_TYPE } from './definitions.js';
import {
  SCOPE_LOCK_MEMO_KEY,
  SCOPE_QUEUE_MEMO_KEY,
  scopeAnswerSignal,
  scopeQueueQuery,
  scopeReleaseSignal,
  scopeRemoveUpdate,
  scopeRequestSignal,
  type ScopeLockInput,
  type ScopeRemoveResult,
} from './scope-lock-definitions.js';

const DEFAULT_LIVENESS_S = 15;
const DEFAULT_HISTORY_EVENT_LIMIT = 5_000;
const DEFAULT_IDLE_CLOSE_S = 300;

const { describeRuns, findScopeHolders } = proxyActivities<LoopActivities>({
  startToCloseTimeout: '60s',
  retry: { initialInterval: '1s', maximumInterval: '10s' },
});

export async function scopeLockWorkflow(input: ScopeLockInput): Promise<void> {
  const livenessMs = (input.livenessIntervalS ?? DEFAULT_LIVENESS_S) * 1000;
  const idleMs = (input.idleCloseS ?? DEFAULT_IDLE_CLOSE_S) * 1000;
  const eventLimit = input.historyEventLimit ?? DEFAULT_HISTORY_EVENT_LIMIT;
  let queue: ScopeQueue = input.queue ?? EMPTY_QUEUE;
  /** Facts heard but not yet decided, in arrival order; answers decided but not yet sent. */
  const inbox: QueueFact[] = [];
  const outbox: Array<{ run: string; answer: ScopeAnswer }> = [];
  let ready = false;

  const apply = (fact: QueueFact): void => {
    const d = decide(queue, fact);
    queue = d.queue;
    outbox.push(...d.answers);
  };
  const pending = (): boolean => inbox.length > 0 || outbox.length > 0;

  /**
   * Keep the queue in the memo too, so the client's pre-check (and `queue list` when no worker
   * answers) reads it with a describe, which needs no worker.
   */
  let published = '';
  const publish = (): void => {
    const text = JSON.stringify(queue);
    if (text === published) return;
    published = text;
    upsertMemo({ [SCOPE_QUEUE_MEMO_KEY]: queue });
  };

  setHandler(
    scopeRequestSignal,
    (r) => void inbox.push({ type: 'request', run: r.run, scopes: r.scopes, wait: r.wait, now: Date.now() }),
  );
  setHandler(scopeReleaseSignal, ({ run }) => void inbox.push({ type: 'release', run, now: Date.now() }));
  // Facts heard count at once (a run that left is not shown), but only after the rebuild: before
  // it, a request would look granted past a holder not yet restored.
  setHandler(scopeQueueQuery, () => ({ domain: input.domain, ...(ready ? withFacts(queue, inbox) : queue) }));
  setHandler(scopeRemoveUpdate, async ({ run }): Promise<ScopeRemoveResult> => {
    // After the facts heard before it, so it sees the queue they made.
    await condition(() => ready && inbox.length === 0);
    const place = inQueue(queue, run);
    apply({ type: 'remove', run, now: Date.now() });
    return place === 'waiter' ? { removed: true } : { removed: false, holds: place === 'holder' };
  });

  /** Send the answers, each run's in order; a run that is gone frees what it was given. */
  const deliver = async (): Promise<void> => {
    const batch = outbox.splice(0);
    const byRun = new Map<string, ScopeAnswer[]>();
    for (const { run, answer } of batch) byRun.set(run, [...(byRun.get(run) ?? []), answer]);
    const gone: string[] = [];
    await Promise.all(
      [...byRun].map(async ([run, answers]) => {
        const handle = getExternalWorkflowHandle(run);
        for (const answer of answers) {
          try {
            await handle.signal(scopeAnswerSignal, answer);
          } catch {
            gone.push(run);
            return;
          }
        }
      }),
    );
    if (gone.length) apply({ type: 'gone', runs: gone, now: Date.now() });
  };

  if (!input.queue) {
    const holders = await findScopeHolders({
      domain: input.domain,
      loopWorkflowType: LOOP_WORKFLOW_TYPE,
      memoKey: SCOPE_LOCK_MEMO_KEY,
    });
    apply({ type: 'restore', holders, now: Date.now() });
  }
  ready = true;
  let checkedAt = Date.now();
  for (;;) {
    while (inbox.length) apply(inbox.shift()!);
    publish();
    if (outbox.length) {
      await deliver();
      continue;
    }
    const info = workflowInfo();
    if (info.continueAsNewSuggested || info.historyLength > eventLimit) {
      await condition(allHandlersFinished);
      if (!pending()) await continueAsNew<typeof scopeLockWorkflow>({ ...input, queue });
      continue;
    }
    if (queue.holders.length + queue.waiters.length === 0) {
      if (await condition(pending, idleMs)) continue;
      await condition(allHandlersFinished);
      if (!pending()) return;
      continue;
    }
    const dueInMs = checkedAt + livenessMs - Date.now();
    if (dueInMs > 0 && (await condition(pending, dueInMs))) continue;
    checkedAt = Date.now();
    const runs = [...queue.holders, ...queue.waiters].map((c) => c.run);
    const { gone } = await describeRuns({ runs });
    if (gone.length) apply({ type: 'gone', runs: gone, now: Date.now() });
  }
}
