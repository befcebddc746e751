/**
 * A run's workflow closes the way the loop ended (fsm/run/outcome.ts), so Temporal — its Web UI list,
 * its Failures counter, `temporal workflow list --query "LoopStatus='failed'"` — tells the truth:
 * Completed only at a success terminal, Failed with a non-retryable LoopFailed carrying the
 * result and final snapshot otherwise, Canceled when stopped; `list --failed`, `status` and
 * `history` read their data back from there.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import proto from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { historyCommand } from '../../client/commands/history.js';
import { listCommand } from '../../client/commands/list.js';
import { statusCommand } from '../../client/commands/status.js';
import { inspectRun } from '../../runs/resume/resumable.js';
import { closeTemporal, definition, project, runLoop, temporal } from './harness.js';

let cwd: string;
let savedAddress: string | undefined;

beforeAll(() => {
  savedAddress = process.env.TEMPORAL_ADDRESS;
  process.env.TEMPORAL_ADDRESS = inject('temporalAddress');
  cwd = project().cwd;
});

afterAll(async () => {
  await closeTemporal();
  if (savedAddress === undefined) delete process.env.TEMPORAL_ADDRESS;
  else process.env.TEMPORAL_ADDRESS = savedAddress;
});

const unique = () => Math.random().toString(36).slice(2, 8);

async function described(
  workflowId: string,
): Promise<{ status: string; loopStatus: unknown; memo: Record<string, unknown> }> {
  const { client } = await temporal();
  const d = await client.workflow.getHandle(workflowId).describe();
  const loopStatus = d.typedSearchAttributes.getAll().find((p) => p.key.name === 'LoopStatus')?.value;
  return { status: d.status.name, loopStatus, memo: (d.memo ?? {}) as Record<string, unknown> };
}

async function failureOf(workflowId: string): Promise<ApplicationFailure> {
  const { client } = await temporal();
  const err = await client.workflow
    .getHandle(workflowId)
    .result()
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  expect(err).toBeInstanceOf(WorkflowFailedError);
  const cause = (err as WorkflowFailedError).cause;
  expect(cause).toBeInstanceOf(ApplicationFailure);
  return cause as ApplicationFailure;
}

function output(): { out: (t: string) => void; text: () => string } {
  const chunks: string[] = [];
  return { out: (t) => void chunks.push(t), text: () => chunks.join('') };
}

describe('a run closes its workflow the way the loop ended', () => {
  it('a success terminal completes; LoopStatus is succeeded', async () => {
    const name = `good-${unique()}`;
    const run = await runLoop(
      definition({ name, initial: 'a', states: { a: { action: 'true', next: 'done' }, done: { terminal: true } } }),
      { cwd },
    );
    expect(run.result.terminated_by).toBe('terminal');
    expect(await described(run.workflowId)).toMatchObject({ status: 'COMPLETED', loopStatus: 'succeeded' });
  });

  it('a failure terminal fails with a non-retryable LoopFailed carrying the result and the final snapshot', async () => {
    const name = `bad-${unique()}`;
    const def = definition({
      name,
      initial: 'a',
      states: {
        a: { action: 'echo broke', capture: 'why', next: 'broken' },
        broken: { terminal: true, failure: true },
      },
    });
    const run = await runLoop(def, { cwd });
    expect(run.result).toMatchObject({ terminated_by: 'terminal', failure: true, final_state: 'broken' });
    expect(await described(run.workflowId)).toMatchObject({ status: 'FAILED', loopStatus: 'failed' });
    const failure = await failureOf(run.workflowId);
    expect(failure.type).toBe('LoopFailed');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toContain('failure state "broken"');
    const details = failure.details?.[0] as {
      failure: boolean;
      captured: Record<string, { output: string }>;
      snapshot: { status: string };
    };
    expect(details.failure).toBe(true);
    expect(details.captured.why?.output).toBe('broke');
    expect(details.snapshot.status).toBe('done');
    // Not resumable: it reached its (failure) terminal.
    const { client } = await temporal();
    expect((await inspectRun(client, run.workflowId))?.kind).toBe('finished');
  });

  it('max_iterations, a timeout and an error each fail, with their own LoopStatus', async () => {
    const limit = await runLoop(
      definition({
        name: `lim-${unique()}`,
        initial: 'a',
        max_iterations: 2,
        states: { a: { action: 'false', on_yes: 'done', on_no: 'a' }, done: { terminal: true } },
      }),
      { cwd },
    );
    expect(limit.result.terminated_by).toBe('max_iterations');
    expect(await described(limit.workflowId)).toMatchObject({ status: 'FAILED', loopStatus: 'limit' });
    expect((await failureOf(limit.workflowId)).message).toContain('max_iterations');
    const { client } = await temporal();
    // A run stopped by a limit can be resumed: it did not reach a terminal.
    expect(await inspectRun(client, limit.workflowId)).toMatchObject({ kind: 'stopped', reason: 'max iterations' });

    const slow = await runLoop(
      definition({
        name: `slow-${unique()}`,
        initial: 'a',
        timeout: 1,
        states: { a: { action: 'sleep 30', next: 'done' }, done: { terminal: true } },
      }),
      { cwd },
    );
    expect(slow.result.terminated_by).toBe('timeout');
    expect(await described(slow.workflowId)).toMatchObject({ status: 'FAILED', loopStatus: 'timed_out' });

    const lost = await runLoop(
      definition({
        name: `err-${unique()}`,
        initial: 'a',
        states: { a: { action: 'true', on_no: 'done' }, done: { terminal: true } },
      }),
      { cwd },
    );
    expect(lost.result.terminated_by).toBe('error');
    expect(await described(lost.workflowId)).toMatchObject({ status: 'FAILED', loopStatus: 'error' });
  });

  it('a stopped run is Canceled, leaves its result in the memo, and its snapshot can be read back', async () => {
    const name = `stop-${unique()}`;
    const { client } = await temporal();
    const def = definition({
      name,
      initial: 'a',
      states: {
        a: { action: 'echo kept', capture: 'first', next: 'b' },
        b: { action: 'sleep 30', next: 'done' },
        done: { terminal: true },
      },
    });
    const run = await runLoop(def, {
      cwd,
      onStarted: async (id) => {
        // Stop it once the first state's value is captured and the sleep is under way: the first
        // action completed and the second one started on a worker. (Not its ActivityTaskStarted
        // event: Temporal writes that with the activity's end, thirty seconds on.)
        const handle = client.workflow.getHandle(id);
        for (let i = 0; i < 300; i += 1) {
          const [history, { raw }] = await Promise.all([handle.fetchHistory(), handle.describe()]);
          const completed = (history.events ?? []).filter((e) => e.activityTaskCompletedEventAttributes).length;
          const started = (raw.pendingActivities ?? []).some(
            (a) => a.state === proto.temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED,
          );
          if (completed >= 1 && started) break;
          await new Promise((r) => setTimeout(r, 100));
        }
        await handle.cancel();
      },
    });
    expect(run.result).toMatchObject({ terminated_by: 'cancelled', final_state: 'b' });
    expect(run.snapshot?.captured.first?.output).toBe('kept');
    const d = await described(run.workflowId);
    expect(d).toMatchObject({ status: 'CANCELLED', loopStatus: 'stopped' });
    expect(d.memo.outcome).toMatchObject({
      loop: name,
      terminated_by: 'cancelled',
      final_state: 'b',
      captured: { first: { output: 'kept' } },
    });
    expect(await inspectRun(client, run.workflowId)).toMatchObject({ kind: 'stopped' });

    const status = output();
    expect(await statusCommand({ cwd, target: run.workflowId, json: true, out: status.out })).toBe(0);
    expect(JSON.parse(status.text())).toMatchObject({ result: { terminated_by: 'cancelled', final_state: 'b' } });
  });

  it('a sub-loop that does not succeed fails too; its parent routes on its result', async () => {
    const child = `child-${unique()}`;
    mkdirSync(join(cwd, '.loops'), { recursive: true });
    writeFileSync(
      join(cwd, '.loops', `${child}.yaml`),
      `name: ${child}\ninitial: a\nstates:\n  a:\n    action: "true"\n    next: bad\n  bad:\n    terminal: true\n    failure: true\n`,
    );
    const parent = await runLoop(
      definition({
        name: `parent-${unique()}`,
        initial: 'sub',
        states: {
          sub: { loop: child, on_success: 'done', on_failure: 'handled' },
          handled: { terminal: true },
          done: { terminal: true },
        },
      }),
      { cwd },
    );
    expect(parent.result).toMatchObject({ terminated_by: 'terminal', final_state: 'handled', failure: false });
    expect(await described(parent.workflowId)).toMatchObject({ status: 'COMPLETED', loopStatus: 'succeeded' });
    expect(await described(`${parent.workflowId}.sub.1`)).toMatchObject({ status: 'FAILED', loopStatus: 'failed' });
  });

  it('list --failed finds the runs that did not succeed, and history tells a failure terminal apart', async () => {
    const name = `hist-${unique()}`;
    const good = await runLoop(
      definition({ name, initial: 'a', states: { a: { action: 'true', next: 'done' }, done: { terminal: true } } }),
      { cwd },
    );
    const bad = await runLoop(
      definition({
        name,
        initial: 'a',
        states: { a: { action: 'true', next: 'oops' }, oops: { terminal: true, failure: true } },
      }),
      { cwd },
    );
    const { client } = await temporal();
    // Visibility is eventually consistent: wait for the search attribute to be indexed.
    await expect
      .poll(
        async () => {
          const found: string[] = [];
          for await (const w of client.workflow.list({
            query: `LoopStatus = 'failed' AND WorkflowId = '${bad.workflowId}'`,
          }))
            found.push(w.workflowId);
          return found;
        },
        { timeout: 15_000 },
      )
      .toEqual([bad.workflowId]);

    const listed = output();
    expect(await listCommand({ cwd, json: true, failed: true, out: listed.out })).toBe(0);
    const rows = JSON.parse(listed.text()) as Array<{ id: string; outcome: string; final_state: string }>;
    expect(rows.find((r) => r.id === bad.workflowId)).toMatchObject({ outcome: 'failed', final_state: 'oops' });
    expect(rows.some((r) => r.id === good.workflowId)).toBe(false);
    // A failed sub-loop is an outcome its parent routed on, not a failed run.
    expect(rows.some((r) => r.id.includes('.sub.'))).toBe(false);

    const human = output();
    expect(await listCommand({ cwd, json: false, failed: true, out: human.out })).toBe(0);
    expect(human.text()).toMatch(new RegExp(`${bad.workflowId}\\s+${name}\\s+failed\\s+oops`));

    const runs = output();
    expect(await historyCommand({ cwd, loop: name, json: true, out: runs.out })).toBe(0);
    const entries = JSON.parse(runs.text()) as Array<{ id: string; outcome: string; failure: boolean }>;
    expect(entries.find((e) => e.id === bad.workflowId)).toMatchObject({ outcome: 'failed', failure: true });
    expect(entries.find((e) => e.id === good.workflowId)).toMatchObject({ outcome: 'succeeded', failure: false });
    const table = output();
    expect(await historyCommand({ cwd, loop: name, json: false, out: table.out })).toBe(0);
    expect(table.text()).toContain('failure terminal (oops)');
    expect(table.text()).toMatch(/succeeded\s+terminal \(done\)/);

    // One run's events: its loop_complete says it was a failure terminal.
    const events = output();
    expect(
      await historyCommand({
        cwd,
        loop: name,
        runId: bad.workflowId,
        json: false,
        events: ['loop_complete'],
        out: events.out,
      }),
    ).toBe(0);
    expect(events.text()).toMatch(/loop_complete\s+final_state=oops .*terminated_by=terminal failure=true/);
  });
});
