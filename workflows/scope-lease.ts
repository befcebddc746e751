/**
 * A run's side of its scope lock (workflows/scope-lock-workflow.ts): ask for the scopes before
 * the first transition, wait for the answer, and give them back when the run ends in any way.
 *
 * - Asking is an activity (`requestScopes`: signal-with-start, so the first request of a domain
 *   starts its lock workflow); the answer comes back as `scopeAnswerSignal`.
 * - Denied (busy without `--queue`, removed by `ll-loop queue remove`), or out of patience
 *   (`--queue-timeout`): the run fails with a non-retryable `ScopeBusy` ApplicationFailure whose
 *   details name who was in the way (the CLI's exit 8).
 * - Stopped while waiting: it leaves the queue, and the run ends as stopped.
 * - While waiting it asks again after `recheckIntervalS` (30 s), then twice as long each time up to
 *   10 min: a repeated request keeps its place, and a lock workflow that vanished (terminated by
 *   hand) is started afresh and queues it there.
 * - Holding, it records its scopes in its memo, which is how a fresh lock workflow finds it.
 * - Release is a signal sent in a non-cancellable scope, so a stopped run still releases; a run
 *   that continues as new keeps its scopes (the lock keys holders by workflow id).
 */
import {
  ApplicationFailure,
  CancellationScope,
  condition,
  getExternalWorkflowHandle,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  upsertMemo,
  workflowInfo,
} from '@temporalio/workflow';
import type { LoopActivities } from './activity-types.js';
import type { LockStatus, ScopeLockRequest } from './definitions.js';
import {
  SCOPE_BUSY,
  SCOPE_LOCK_MEMO_KEY,
  scopeBusyMessage,
  SCOPE_LOCK_WORKFLOW_TYPE,
  scopeAnswerSignal,
  scopeReleaseSignal,
  scopeRequestSignal,
  type Blocker,
  type ScopeAnswer,
  type ScopeBusyDetails,
  type ScopeLockMemo,
} from './scope-lock-definitions.js';

const DEFAULT_RECHECK_S = 30;
/**
 * Each re-ask doubles the wait before the next, up to this: a run may wait for days, and each ask
 * costs about ten history events (a timer and an activity), so a fixed 30 s would fill a waiting
 * run's history within two days; 10 min still finds a vanished lock the same day it vanished.
 */
const MAX_RECHECK_S = 600;
/** A run that would not wait is not left hanging by a lock nobody serves: it fails after this. */
const NO_WAIT_ANSWER_TIMEOUT_S = 60;
/** The ApplicationFailure type of a run whose lock never answered. */
const SCOPE_LOCK_UNAVAILABLE = 'ScopeLockUnavailable';

const REQUEST_RETRY = { initialInterval: '1s', maximumInterval: '10s', maximumAttempts: 10 } as const;
const { requestScopes } = proxyActivities<LoopActivities>({
  startToCloseTimeout: '30s',
  retry: REQUEST_RETRY,
  summary: 'request scopes',
});
/**
 * The same request as a local activity (the `localScopeRequest` rule): it runs inside the run's
 * first workflow task, on the worker that has it, instead of a round trip through the server's
 * matching and a second workflow task before the run can even wait for the lock's answer.
 */
const { requestScopes: requestScopesHere } = proxyLocalActivities<LoopActivities>({
  startToCloseTimeout: '30s',
  retry: REQUEST_RETRY,
  summary: 'request scopes',
});

function describeBlocker(b: Blocker | undefined): string {
  if (!b) return 'another run';
  return `${b.holds ? 'held' : 'queued for'} by ${b.run} (scope ${b.scopes.join(', ')})`;
}

export class ScopeLease {
  /** The lock's final word: granted or denied ('queued' only updates the status). */
  private answer: Exclude<ScopeAnswer, { kind: 'queued' }> | undefined;
  private state: LockStatus;
  /** Who was in the way when the lock last said the run waits. */
  private blockers: Blocker[] = [];
  private readonly run = workflowInfo().workflowId;

  /**
   * `held`: a run continued as new, which kept its scopes (its memo says since when). `local`:
   * ask with a local activity (the run's `localScopeRequest` rule; runs without it ask as they did).
   */
  constructor(
    private readonly lock: ScopeLockRequest,
    held: boolean,
    private readonly local = false,
  ) {
    const memo = workflowInfo().memo?.[SCOPE_LOCK_MEMO_KEY] as ScopeLockMemo | undefined;
    this.state = {
      state: held ? 'held' : 'waiting',
      domain: lock.domain,
      scopes: lock.scopes,
      since_ms: (held ? memo?.since_ms : undefined) ?? Date.now(),
    };
    setHandler(scopeAnswerSignal, (answer) => {
      if (answer.kind === 'queued') {
        // Whom it waits for: a run holding an overlapping scope, else the first queued ahead of it.
        const first = answer.blockers.find((b) => b.holds) ?? answer.blockers[0];
        this.blockers = answer.blockers;
        this.state = { ...this.state, ...(first ? { holder: first.run } : {}) };
        setCurrentDetails(`waiting for scope ${this.lock.scopes.join(', ')} ${describeBlocker(first)}`);
      } else this.answer ??= answer;
    });
  }

  /** For the status query. */
  status(): LockStatus {
    return this.state;
  }

  /**
   * Hold the scopes: true once granted, false when the run was stopped while waiting (it has left
   * the queue). Throws `ScopeBusy` when denied or out of patience.
   */
  async acquire(): Promise<boolean> {
    const { lock } = this;
    const started = Date.now();
    const deadline = lock.queueTimeoutS !== undefined && lock.wait ? started + lock.queueTimeoutS * 1000 : undefined;
    const answerBy = lock.wait ? undefined : started + NO_WAIT_ANSWER_TIMEOUT_S * 1000;
    let recheckMs = (lock.recheckIntervalS ?? DEFAULT_RECHECK_S) * 1000;
    setCurrentDetails(`asking for scope ${lock.scopes.join(', ')} (lock ${lock.workflowId})`);
    try {
      await this.request();
      for (;;) {
        const until = Math.min(Date.now() + recheckMs, deadline ?? Infinity, answerBy ?? Infinity);
        if (await condition(() => this.answer !== undefined, Math.max(1, until - Date.now()))) break;
        if (deadline !== undefined && Date.now() >= deadline) {
          await this.release();
          throw this.busy('timeout', this.blockers, Math.round((Date.now() - started) / 1000));
        }
        if (answerBy !== undefined && Date.now() >= answerBy) {
          await this.release();
          throw ApplicationFailure.nonRetryable(
            `the scope lock ${lock.workflowId} (${lock.domain}) did not answer within ${NO_WAIT_ANSWER_TIMEOUT_S} s: is a worker polling task queue ${lock.taskQueue}?`,
            SCOPE_LOCK_UNAVAILABLE,
          );
        }
        await this.request();
        recheckMs = Math.min(recheckMs * 2, Math.max(recheckMs, MAX_RECHECK_S * 1000));
      }
    } catch (err) {
      if (!isCancellation(err)) throw err;
      await this.release();
      return false;
    }
    const answer = this.answer;
    if (answer?.kind !== 'granted') throw this.busy(answer?.reason ?? 'busy', answer?.blockers ?? []);
    const now = Date.now();
    this.state = { state: 'held', domain: lock.domain, scopes: lock.scopes, since_ms: now };
    const memo: ScopeLockMemo = { domain: lock.domain, scopes: lock.scopes, since_ms: now };
    upsertMemo({ [SCOPE_LOCK_MEMO_KEY]: memo });
    return true;
  }

  /** Give the scopes back (or leave the queue); safe to call when the lock is gone or never had us. */
  async release(): Promise<void> {
    await CancellationScope.nonCancellable(async () => {
      try {
        await getExternalWorkflowHandle(this.lock.workflowId).signal(scopeReleaseSignal, { run: this.run });
      } catch {
        // The lock workflow is gone: it holds nothing of ours (a fresh one rebuilds from running runs).
      }
    });
  }

  /** Ask (again): signal the lock workflow if it runs, else start it with the request. */
  private async request(): Promise<void> {
    const { lock } = this;
    const request = { run: this.run, scopes: lock.scopes, wait: lock.wait };
    await (this.local ? requestScopesHere : requestScopes)({
      workflowId: lock.workflowId,
      taskQueue: lock.taskQueue,
      workflowType: SCOPE_LOCK_WORKFLOW_TYPE,
      signal: scopeRequestSignal.name,
      request,
      lockInput: { domain: lock.domain, ...(lock.lockWorkflow ?? {}) },
    });
  }

  private busy(reason: ScopeBusyDetails['reason'], blockers: Blocker[], waitedS?: number): ApplicationFailure {
    const { lock } = this;
    const details: ScopeBusyDetails = {
      domain: lock.domain,
      scopes: lock.scopes,
      reason,
      blockers,
      ...(waitedS === undefined ? {} : { waited_s: waitedS }),
    };
    const why =
      reason === 'timeout'
        ? `gave up waiting after ${waitedS ?? 0} s (--queue-timeout)${blockers[0] ? `; it was ${describeBlocker(blockers[0])}` : ''}`
        : reason === 'removed'
          ? `removed from the queue (ll-loop queue remove) while it waited; it was ${describeBlocker(blockers[0])}`
          : describeBlocker(blockers[0]);
    const message = scopeBusyMessage(lock.scopes, why);
    return ApplicationFailure.nonRetryable(message, SCOPE_BUSY, details);
  }
}
