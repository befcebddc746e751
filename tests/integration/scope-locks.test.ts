/**
 * Scope locks on the real Temporal dev server, with real shell actions: a run asks its domain's
 * lock workflow for its scopes before its first action and gives them back however it ends.
 * Busy without --queue → ScopeBusy naming the holder; non-overlapping runs side by side; release
 * on complete, fail, stop and terminate (liveness); a stopped waiter leaves the queue; a lock
 * workflow terminated by hand is rebuilt; a sub-loop runs under its parent's lock; 50 runs
 * contending for overlapping scopes hold them in FIFO order, never two overlapping at once (read
 * from the actions' own timestamped log).
 */
import { randomUUID } from 'node:crypto';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { beforeAll, describe, expect, it } from 'vitest';
import { claimsOverlap } from '../../fsm/scopes.js';
import type { LoopDefinition } from '../../fsm/schema.js';
import { precheckScopes, ScopeBusyError } from '../../runs/scopes/scope-lock.js';
import {
  LOOP_WORKFLOW_TYPE,
  statusQuery,
  type LoopRunResult,
  type LoopWorkflowInput,
  type ScopeLockRequest,
} from '../../workflows/definitions.js';
import {
  SCOPE_BUSY,
  scopeQueueQuery,
  type ScopeBusyDetails,
  type ScopeQueueView,
} from '../../workflows/scope-lock-definitions.js';
import { settle, until, waitFor } from '../support/processes.js';
import { definition, loopRunResult, project, temporal } from './harness.js';
import { useServedProject } from './served-project.js';

const QUEUE = `locks-${randomUUID()}`;
// One worker serves the runs and their lock workflows (the lock's queue is the test's queue).
const served = useServedProject(QUEUE);
let cwd: string;
beforeAll(() => {
  cwd = served.cwd;
});

const short = () => randomUUID().slice(0, 8);

/** A lock request in a domain of its own (each test has its own lock workflow), quick to notice the dead. */
function lockIn(domain: string, scopes: string[], opts: Partial<ScopeLockRequest> = {}): ScopeLockRequest {
  return {
    domain,
    workflowId: `ll-loop-lock.test-${domain}`,
    taskQueue: QUEUE,
    scopes,
    wait: false,
    recheckIntervalS: 2,
    lockWorkflow: { livenessIntervalS: 1, idleCloseS: 30 },
    ...opts,
  };
}

/** A loop whose one action waits until `release-<tag>` exists (at most 60 s), then ends in `done`. */
function blocker(tag: string, extra: Record<string, unknown> = {}): LoopDefinition {
  return definition({
    name: `hold-${tag}`,
    initial: 'work',
    states: {
      work: {
        action: `for i in $(seq 600); do [ -f release-${tag} ] && exit 0; sleep 0.1; done; exit 1`,
        on_yes: 'done',
        on_no: 'failed',
      },
      done: { terminal: true },
      failed: { terminal: true, failure: true },
    },
    ...extra,
  });
}

const release = (tag: string) => writeFileSync(join(cwd, `release-${tag}`), '');

async function start(
  def: LoopDefinition,
  lock: ScopeLockRequest | undefined,
  options: Partial<LoopWorkflowInput['options']> = {},
): Promise<WorkflowHandle> {
  const { client } = await temporal();
  const input: LoopWorkflowInput = {
    definition: def,
    options: { cwd, searchAttributes: true, localActivityMaxTimeoutS: 0, ...options },
    ...(lock ? { lock } : {}),
  };
  return client.workflow.start(LOOP_WORKFLOW_TYPE, {
    workflowId: `${def.name}-${short()}`,
    taskQueue: QUEUE,
    args: [input],
    memo: { cwd },
  });
}

async function queueOf(lock: ScopeLockRequest): Promise<ScopeQueueView> {
  const { client } = await temporal();
  return client.workflow.getHandle(lock.workflowId).query(scopeQueueQuery);
}

/** The run's result however its workflow closed (a stopped run is Canceled, a failed one Failed: fsm/run/outcome.ts). */
const resultOf = async (handle: WorkflowHandle): Promise<LoopRunResult> => {
  const { client } = await temporal();
  return loopRunResult(client, handle.workflowId);
};

const holdersOf = async (lock: ScopeLockRequest) => (await queueOf(lock)).holders.map((h) => h.run);
const waitersOf = async (lock: ScopeLockRequest) => (await queueOf(lock)).waiters.map((w) => w.run);

async function lockStateOf(handle: WorkflowHandle): Promise<string | undefined> {
  return (await handle.query(statusQuery)).lock?.state;
}

/** Wait until the run holds its scopes (its status query says so). */
const holding = (handle: WorkflowHandle) =>
  waitFor(
    `${handle.workflowId} to hold its scopes`,
    async () => (await lockStateOf(handle).catch(() => undefined)) === 'held',
  );

/** The ScopeBusy failure a run ended with. */
async function busyFailure(handle: WorkflowHandle): Promise<{ message: string; details: ScopeBusyDetails }> {
  const err = await handle.result().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WorkflowFailedError);
  const cause = (err as WorkflowFailedError).cause;
  expect(cause).toBeInstanceOf(ApplicationFailure);
  expect((cause as ApplicationFailure).type).toBe(SCOPE_BUSY);
  return {
    message: (cause as ApplicationFailure).message,
    details: (cause as ApplicationFailure).details?.[0] as ScopeBusyDetails,
  };
}

describe('scope locks', () => {
  it('a busy scope fails an overlapping run at once with ScopeBusy, naming the holder; the holder runs on', async () => {
    const domain = short();
    const holder = await start(blocker(domain), lockIn(domain, ['src']));
    await holding(holder);
    const busy = await start(blocker(`${domain}-b`), lockIn(domain, ['src/api']));
    const { message, details } = await busyFailure(busy);
    expect(message).toContain(`held by ${holder.workflowId}`);
    expect(details).toMatchObject({
      reason: 'busy',
      scopes: ['src/api'],
      blockers: [{ run: holder.workflowId, scopes: ['src'], holds: true }],
    });
    release(domain);
    expect(((await resultOf(holder)) as LoopRunResult).terminated_by).toBe('terminal');
    await waitFor('the lock to be free', async () => (await holdersOf(lockIn(domain, []))).length === 0);
  });

  it('the precheck before a start does not count a holder whose run has closed (the lock’s memo lags it)', async () => {
    const domain = short();
    // The lock notices the dead only after an hour: its memo keeps naming the closed holder.
    const lock = lockIn(domain, ['src'], { lockWorkflow: { livenessIntervalS: 3600, idleCloseS: 3600 } });
    const holder = await start(blocker(domain), lock);
    await holding(holder);
    const { client } = await temporal();
    const probe = lockIn(domain, ['src/api'], { lockWorkflow: lock.lockWorkflow });
    await expect(precheckScopes(client, probe)).rejects.toBeInstanceOf(ScopeBusyError);
    await holder.terminate('gone');
    await expect(precheckScopes(client, probe)).resolves.toBeUndefined();
  });

  it('non-overlapping runs start at once and run side by side', async () => {
    const domain = short();
    // Each action says it started, then waits for the other's start: only runs side by side pass.
    const pair = (me: string, other: string) =>
      definition({
        name: `side-${me}`,
        initial: 'work',
        states: {
          work: {
            action: `touch started-${domain}-${me}; for i in $(seq 200); do [ -f started-${domain}-${other} ] && exit 0; sleep 0.1; done; exit 1`,
            on_yes: 'done',
            on_no: 'failed',
          },
          done: { terminal: true },
          failed: { terminal: true, failure: true },
        },
      });
    const [a, b] = await Promise.all([
      start(pair('a', 'b'), lockIn(domain, ['src/a'])),
      start(pair('b', 'a'), lockIn(domain, ['src/ab', 'docs'])),
    ]);
    const results = (await Promise.all([resultOf(a), resultOf(b)])) as LoopRunResult[];
    expect(results.map((r) => [r.terminated_by, r.final_state])).toEqual([
      ['terminal', 'done'],
      ['terminal', 'done'],
    ]);
  });

  it('with --queue a run waits (status says for whom) and starts when the holder completes', async () => {
    const domain = short();
    const holder = await start(blocker(domain), lockIn(domain, ['.']));
    await holding(holder);
    const waiter = await start(blocker(`${domain}-w`), lockIn(domain, ['src'], { wait: true }));
    await waitFor('the waiter to queue', async () => (await waitersOf(lockIn(domain, []))).includes(waiter.workflowId));
    // It hears it waits (and for whom) in an answer signal of its own.
    const status = await settle(
      () => waiter.query(statusQuery),
      (s) => s.lock?.holder !== undefined,
    );
    expect(status.lock).toMatchObject({ state: 'waiting', holder: holder.workflowId, scopes: ['src'] });
    release(domain);
    await holding(waiter);
    release(`${domain}-w`);
    expect(((await resultOf(waiter)) as LoopRunResult).terminated_by).toBe('terminal');
  });

  it('releases when the holder completes, is stopped, or is terminated (liveness)', async () => {
    const domain = short();
    const lock = (wait = false) => lockIn(domain, ['src'], { wait });
    const first = await start(blocker(`${domain}-0`), lock());
    await holding(first);
    const next1 = await start(blocker(`${domain}-1`), lock(true));
    await waitFor('next1 to queue', async () => (await waitersOf(lock())).includes(next1.workflowId));
    // Completes.
    release(`${domain}-0`);
    expect(((await resultOf(first)) as LoopRunResult).terminated_by).toBe('terminal');
    await holding(next1);
    // Stopped: cancel the holder; its action is killed and it releases on the way out.
    const next2 = await start(blocker(`${domain}-2`), lock(true));
    await waitFor('next2 to queue', async () => (await waitersOf(lock())).includes(next2.workflowId));
    await next1.cancel();
    expect(((await resultOf(next1)) as LoopRunResult).terminated_by).toBe('cancelled');
    await holding(next2);
    // Terminated: no code runs; the lock's liveness check (1 s here) frees the scope.
    const next3 = await start(blocker(`${domain}-3`), lock(true));
    await waitFor('next3 to queue', async () => (await waitersOf(lock())).includes(next3.workflowId));
    await next2.terminate('test: terminated from outside');
    await holding(next3);
    expect(await holdersOf(lock())).toEqual([next3.workflowId]);
    release(`${domain}-3`);
    await resultOf(next3);
  });

  it('a failing holder (LoopFailed) releases too', async () => {
    const domain = short();
    const failing = definition({
      name: `fail-${domain}`,
      initial: 'work',
      states: {
        work: {
          action: `for i in $(seq 600); do [ -f release-${domain} ] && exit 1; sleep 0.1; done`,
          on_yes: 'done',
          on_no: 'failed',
        },
        done: { terminal: true },
        failed: { terminal: true, failure: true },
      },
    });
    const holder = await start(failing, lockIn(domain, ['src']));
    await holding(holder);
    const waiter = await start(blocker(`${domain}-w`), lockIn(domain, ['src'], { wait: true }));
    await waitFor('the waiter to queue', async () => (await waitersOf(lockIn(domain, []))).includes(waiter.workflowId));
    release(domain);
    await expect(holder.result()).rejects.toThrow();
    await holding(waiter);
    release(`${domain}-w`);
    await resultOf(waiter);
  });

  it('a stopped waiter leaves the queue and ends as stopped', async () => {
    const domain = short();
    const holder = await start(blocker(domain), lockIn(domain, ['src']));
    await holding(holder);
    const waiter = await start(blocker(`${domain}-w`), lockIn(domain, ['src/x'], { wait: true }));
    await waitFor('the waiter to queue', async () => (await waitersOf(lockIn(domain, []))).includes(waiter.workflowId));
    await waiter.cancel();
    expect(((await resultOf(waiter)) as LoopRunResult).terminated_by).toBe('cancelled');
    await waitFor('the waiter to leave', async () => (await waitersOf(lockIn(domain, []))).length === 0);
    release(domain);
    await resultOf(holder);
  });

  it('--queue-timeout gives up waiting with ScopeBusy (reason timeout)', async () => {
    const domain = short();
    const holder = await start(blocker(domain), lockIn(domain, ['src']));
    await holding(holder);
    const waiter = await start(blocker(`${domain}-w`), lockIn(domain, ['src'], { wait: true, queueTimeoutS: 1 }));
    const { details, message } = await busyFailure(waiter);
    expect(details).toMatchObject({ reason: 'timeout', blockers: [{ run: holder.workflowId }] });
    expect(message).toContain('gave up waiting');
    expect(await waitersOf(lockIn(domain, []))).toEqual([]);
    release(domain);
    await resultOf(holder);
  });

  it('a lock workflow terminated by hand is rebuilt from the running holders; its waiters ask the new one', async () => {
    const domain = short();
    const { client } = await temporal();
    const lock = lockIn(domain, ['src']);
    const holder = await start(blocker(domain), lock);
    await holding(holder);
    const waiter = await start(blocker(`${domain}-w`), lockIn(domain, ['src'], { wait: true }));
    await waitFor('the waiter to queue', async () => (await waitersOf(lock)).includes(waiter.workflowId));
    await client.workflow.getHandle(lock.workflowId).terminate('test: lock terminated by hand');
    // A new request starts a fresh lock workflow, which finds the holder first: still busy.
    const busy = await start(blocker(`${domain}-b`), lockIn(domain, ['src/deep']));
    expect((await busyFailure(busy)).details.blockers[0]).toMatchObject({ run: holder.workflowId, holds: true });
    // The waiter re-asks (every 2 s here) and queues in the new lock workflow.
    await waitFor('the waiter to queue again', async () =>
      (await waitersOf(lock).catch((): string[] => [])).includes(waiter.workflowId),
    );
    release(domain);
    await holding(waiter);
    release(`${domain}-w`);
    await resultOf(waiter);
  });

  it('a run continued as new keeps its scopes', async () => {
    const domain = short();
    const counter = definition({
      name: `long-${domain}`,
      initial: 'tick',
      max_iterations: 1000,
      states: { tick: { action: `[ -f release-${domain} ]`, on_yes: 'done', on_no: 'tick' }, done: { terminal: true } },
    });
    const holder = await start(counter, lockIn(domain, ['src']), {
      historyEventLimit: 40,
      localActivityMaxTimeoutS: 0,
    });
    await holding(holder);
    const firstRun = (await holder.describe()).runId;
    await waitFor('a continue-as-new', async () => (await holder.describe()).runId !== firstRun, 30_000);
    expect(await lockStateOf(holder)).toBe('held');
    const busy = await start(blocker(`${domain}-b`), lockIn(domain, ['src']));
    expect((await busyFailure(busy)).details.blockers[0]?.run).toBe(holder.workflowId);
    release(domain);
    expect(((await resultOf(holder)) as LoopRunResult).terminated_by).toBe('terminal');
    await waitFor('the lock to be free', async () => (await holdersOf(lockIn(domain, []))).length === 0);
  });

  it('an idle lock workflow closes, and the next request starts it again', async () => {
    const domain = short();
    const { client } = await temporal();
    const lock = lockIn(domain, ['src'], { lockWorkflow: { livenessIntervalS: 1, idleCloseS: 1 } });
    release(domain);
    await start(blocker(domain), lock).then((h) => resultOf(h));
    await waitFor(
      'the idle lock to close',
      async () => (await client.workflow.getHandle(lock.workflowId).describe()).status.name === 'COMPLETED',
    );
    release(`${domain}-2`);
    const again = await start(blocker(`${domain}-2`), lock);
    expect(((await resultOf(again)) as LoopRunResult).terminated_by).toBe('terminal');
  });

  it('a sub-loop runs under its parent lock (no lock of its own, no deadlock)', async () => {
    const domain = short();
    const p = project();
    mkdirSync(join(p.cwd, '.loops'));
    writeFileSync(
      join(p.cwd, '.loops', 'child.yaml'),
      'name: child\ninitial: a\nscope: ["."]\nstates:\n  a:\n    action: "true"\n    on_yes: done\n  done: { terminal: true }\n',
    );
    const parent = definition({
      name: `parent-${domain}`,
      initial: 'sub',
      states: {
        sub: { loop: 'child', on_success: 'done', on_failure: 'failed' },
        done: { terminal: true },
        failed: { terminal: true, failure: true },
      },
    });
    const { client } = await temporal();
    const handle = await client.workflow.start(LOOP_WORKFLOW_TYPE, {
      workflowId: `parent-${domain}`,
      taskQueue: QUEUE,
      args: [
        {
          definition: parent,
          options: { cwd: p.cwd, searchAttributes: true },
          lock: lockIn(domain, ['.'], { wait: true }),
        } satisfies LoopWorkflowInput,
      ],
      memo: { cwd: p.cwd },
    });
    const result = (await resultOf(handle)) as LoopRunResult;
    expect([result.terminated_by, result.final_state]).toEqual(['terminal', 'done']);
  });
});

describe('50 runs contending for overlapping scopes, with --queue', () => {
  it('hold them in FIFO order, never two overlapping at once, with no deadlock; stopped waiters are removed', async () => {
    const domain = short();
    const log = join(cwd, `contention-${domain}.log`);
    appendFileSync(log, '');
    const pool = [['.'], ['src'], ['src/a'], ['src/b'], ['docs'], ['src/a', 'docs'], ['tests']];
    // The lock continues as new every ~150 events: its queue must survive that under load.
    const lock = (scopes: string[]) =>
      lockIn(domain, scopes, {
        wait: true,
        recheckIntervalS: 30,
        lockWorkflow: { livenessIntervalS: 5, historyEventLimit: 150, idleCloseS: 30 },
      });
    const runs: Array<{ id: string; scopes: string[]; handle: WorkflowHandle }> = [];
    const stopped = new Set<number>([7, 19, 33, 41]);
    const lastStop = Math.max(...stopped);
    for (let i = 0; i < 50; i += 1) {
      const id = `c${String(i).padStart(2, '0')}`;
      const scopes = pool[(i * 5) % pool.length]!;
      // The first run (scope `.`, overlapping all) holds until the last run to stop has been
      // stopped, so those are waiting whatever the machine's load; the later ones contend as they come.
      const hold = i === 0 ? `while [ ! -e ${log}.go ]; do sleep 0.02; done; ` : '';
      const def = definition({
        name: `contend-${id}`,
        initial: 'work',
        // Its own timestamps (ns) around a short piece of work; a stopped waiter never gets here.
        states: {
          work: {
            action: `${hold}echo "start ${id} $(date +%s%N)" >> ${log}; sleep 0.05; echo "end ${id} $(date +%s%N)" >> ${log}`,
            next: 'done',
          },
          done: { terminal: true },
        },
      });
      const handle = await start(def, lock(scopes), { localActivityMaxTimeoutS: 30 });
      runs.push({ id, scopes, handle });
      // Request order is start order: wait until the lock has heard this one.
      await until(
        `${id} to reach the lock`,
        async () => {
          const q = await queueOf(lock([]));
          const known = [...q.holders, ...q.waiters].some((c) => c.run === handle.workflowId);
          return known || (await handle.describe()).status.name !== 'RUNNING' ? true : undefined;
        },
        20_000,
        50,
      );
      if (stopped.has(i)) {
        const waiting = (await handle.query(statusQuery)).lock?.state === 'waiting';
        if (waiting) await handle.cancel();
        else stopped.delete(i);
      }
      if (i === lastStop) writeFileSync(`${log}.go`, '');
    }
    const results = (await Promise.all(runs.map((r) => resultOf(r.handle)))) as LoopRunResult[];
    // A stop sent just as the lock granted the run can lose the race: that run holds its scopes and
    // finishes like any other (the span checks below then cover it); every other stopped waiter
    // ends cancelled without ever running.
    for (const i of [...stopped]) if (results[i]!.terminated_by === 'terminal') stopped.delete(i);
    results.forEach((r, i) => expect(r.terminated_by, runs[i]!.id).toBe(stopped.has(i) ? 'cancelled' : 'terminal'));
    expect(stopped.size).toBeGreaterThan(0);

    // The actions' own log: when each held the scopes (start..end), by the machine's clock.
    const spans = new Map<string, { start: bigint; end: bigint }>();
    for (const line of readFileSync(log, 'utf8').trim().split('\n')) {
      const [what, id, ts] = line.split(' ') as ['start' | 'end', string, string];
      const span = spans.get(id) ?? { start: 0n, end: 0n };
      span[what] = BigInt(ts);
      spans.set(id, span);
    }
    const ran = runs.filter((_, i) => !stopped.has(i));
    expect([...spans.keys()].sort()).toEqual(ran.map((r) => r.id).sort());
    for (let i = 0; i < ran.length; i += 1) {
      for (let j = i + 1; j < ran.length; j += 1) {
        const [a, b] = [ran[i]!, ran[j]!];
        if (!claimsOverlap(a.scopes, b.scopes)) continue;
        const [sa, sb] = [spans.get(a.id)!, spans.get(b.id)!];
        // Never at once, and the earlier request first (FIFO among overlapping runs).
        expect(
          sa.end <= sb.start,
          `${a.id} ${a.scopes.join(',')} ended before ${b.id} ${b.scopes.join(',')} started`,
        ).toBe(true);
      }
    }
    const q = await queueOf(lock([]));
    expect([q.holders, q.waiters]).toEqual([[], []]);
    // The lock carried its queue across continue-as-new while the runs contended.
    const { client } = await temporal();
    let lockRuns = 0;
    for await (const _ of client.workflow.list({ query: `WorkflowId = '${lock([]).workflowId}'` })) lockRuns += 1;
    expect(lockRuns).toBeGreaterThan(1);
  }, 120_000);
});
