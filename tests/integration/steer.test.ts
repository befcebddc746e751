/**
 * A person steering a run on the real dev server: `pause` holds a run after its action (and across
 * a worker restart: the pause is workflow state), `unpause` lets it go on, `steer` sends its next
 * transition elsewhere (a state, a terminal) with context values, a refused update changes
 * nothing; `rerun`'s fork point is read from
 * a finished run's history by replay and a new run starts there with its edits.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineSearchAttributeKey } from '@temporalio/common';
import { afterAll, describe, expect, it } from 'vitest';
import { forkPoint, HistoryGoneError } from '../../runs/control/fork-point.js';
import { createLoopWorker } from '../../worker/create-worker.js';
import { pauseUpdate, steerUpdate, unpauseUpdate } from '../../workflows/control-definitions.js';
import { LOOP_WORKFLOW_TYPE, statusQuery, type LoopWorkflowInput } from '../../workflows/definitions.js';
import { waitFor } from '../support/processes.js';
import { closeTemporal, definition, loopRunResult, project, runLoop, temporal, type TimedEvent } from './harness.js';

afterAll(closeTemporal);

/**
 * plan waits for the file `go` (so a test can act while its action runs), then build, check, done;
 * every action appends its state's name to `ran`. `review` is off the routed path.
 */
const gatedLoop = () =>
  definition({
    name: 'steer-it',
    initial: 'plan',
    context: { target: 'all' },
    states: {
      plan: { action: 'while [ ! -f go ]; do sleep 0.05; done; echo plan >> ran', next: 'build' },
      build: { action: 'echo "build ${context.target}" >> ran', next: 'check' },
      check: { action: 'echo check >> ran', next: 'done' },
      review: { action: 'echo "review ${context.target}" >> ran', next: 'done' },
      done: { terminal: true },
    },
  });

const ran = (cwd: string) =>
  existsSync(join(cwd, 'ran')) ? readFileSync(join(cwd, 'ran'), 'utf8').trim().split('\n') : [];
const by = { by: 'ann@test-host' };

describe('pause and unpause', () => {
  it('pause holds the run after its action; unpause lets it enter the routed state', async () => {
    const p = project();
    const { client } = await temporal();
    let held: Awaited<ReturnType<typeof statusOf>> | undefined;
    const statusOf = (id: string) => client.workflow.getHandle(id).query(statusQuery);
    const run = await runLoop(gatedLoop(), {
      cwd: p.cwd,
      steering: true,
      onStarted: async (id) => {
        const handle = client.workflow.getHandle(id);
        const answer = await handle.executeUpdate(pauseUpdate, { args: [by] });
        expect(answer).toMatchObject({ state: 'plan', holding: false });
        writeFileSync(join(p.cwd, 'go'), '');
        await waitFor('the run to hold', async () => (await statusOf(id)).phase === 'paused');
        held = await statusOf(id);
        // Held: plan's action ended, build's never started.
        expect(ran(p.cwd)).toEqual(['plan']);
        const described = await handle.describe();
        expect(described.searchAttributes.LoopStatus).toEqual(['paused']);
        await handle.executeUpdate(unpauseUpdate, { args: [{ by: 'bob@test-host' }] });
      },
    });
    expect(held).toMatchObject({
      state: 'plan',
      phase: 'paused',
      paused: { by: 'ann@test-host', holding: true, next: 'build', unpause: `ll-loop unpause ${run.workflowId}` },
    });
    expect(run.result).toMatchObject({ terminated_by: 'terminal', final_state: 'done' });
    expect(ran(p.cwd)).toEqual(['plan', 'build all', 'check']);
    const names = run.events.map((e) => e.event);
    expect(names.indexOf('paused')).toBeLessThan(names.indexOf('unpaused'));
    expect(run.events.find((e) => e.event === 'unpaused')).toMatchObject({ state: 'plan', by: 'bob@test-host' });
  });

  it('a paused run holds across a worker restart and goes on with the next worker', async () => {
    const p = project();
    const { client, native } = await temporal();
    const taskQueue = `it-${randomUUID()}`;
    const def = gatedLoop();
    const workflowId = `${def.name}-${randomUUID().slice(0, 8)}`;
    const input: LoopWorkflowInput = { definition: def, options: { cwd: p.cwd, closeAsOutcome: true, steering: true } };
    const first = await createLoopWorker({ connection: native, taskQueue });
    const handle = await first.worker.runUntil(async () => {
      const h = await client.workflow.start(LOOP_WORKFLOW_TYPE, {
        workflowId,
        taskQueue,
        args: [input],
        memo: { cwd: p.cwd, loop: def.name },
        typedSearchAttributes: [{ key: defineSearchAttributeKey('LoopName', 'KEYWORD'), value: def.name }],
      });
      await h.executeUpdate(pauseUpdate, { args: [by] });
      writeFileSync(join(p.cwd, 'go'), '');
      await waitFor('the run to hold', async () => (await h.query(statusQuery)).phase === 'paused');
      return h;
    });
    await first.events.close();
    // The first worker is gone; a fresh one replays the run's history and finds it still paused.
    const second = await createLoopWorker({ connection: native, taskQueue });
    const result = await second.worker.runUntil(async () => {
      const status = await handle.query(statusQuery);
      expect(status).toMatchObject({ phase: 'paused', paused: { by: 'ann@test-host', holding: true } });
      expect(ran(p.cwd)).toEqual(['plan']);
      await handle.executeUpdate(unpauseUpdate, { args: [by] });
      return loopRunResult(client, workflowId);
    });
    await second.events.close();
    expect(result).toMatchObject({ terminated_by: 'terminal', final_state: 'done' });
    expect(ran(p.cwd)).toEqual(['plan', 'build all', 'check']);
  });
});

describe('steer', () => {
  it('sends the next transition to another state, with a context value set, recording the route it replaced', async () => {
    const p = project();
    const { client } = await temporal();
    const run = await runLoop(gatedLoop(), {
      cwd: p.cwd,
      steering: true,
      onStarted: async (id) => {
        const handle = client.workflow.getHandle(id);
        await handle.executeUpdate(steerUpdate, {
          args: [{ ...by, to: 'review', note: 'skip the build', context: { target: 'docs' } }],
        });
        expect(await handle.query(statusQuery)).toMatchObject({ steer: { to: 'review', by: 'ann@test-host' } });
        writeFileSync(join(p.cwd, 'go'), '');
      },
    });
    expect(run.result).toMatchObject({ terminated_by: 'terminal', final_state: 'done' });
    expect(ran(p.cwd)).toEqual(['plan', 'review docs']);
    expect(run.events.find((e) => e.event === 'steered')).toMatchObject({
      from: 'plan',
      to: 'review',
      replaced: 'build',
      by: 'ann@test-host',
      note: 'skip the build',
      context: ['target'],
    });
  });

  it('a paused run steered to a terminal state ends there at once', async () => {
    const p = project();
    const { client } = await temporal();
    const run = await runLoop(gatedLoop(), {
      cwd: p.cwd,
      steering: true,
      onStarted: async (id) => {
        const handle = client.workflow.getHandle(id);
        await handle.executeUpdate(pauseUpdate, { args: [by] });
        writeFileSync(join(p.cwd, 'go'), '');
        await waitFor('the run to hold', async () => (await handle.query(statusQuery)).phase === 'paused');
        await handle.executeUpdate(steerUpdate, { args: [{ ...by, to: 'done' }] });
      },
    });
    expect(run.result).toMatchObject({ terminated_by: 'terminal', final_state: 'done' });
    expect(ran(p.cwd)).toEqual(['plan']);
    expect(run.events.filter((e) => ['unpaused', 'steered'].includes(e.event)).map((e) => e.event)).toEqual([
      'unpaused',
      'steered',
    ]);
  });

  it('refuses an unknown state or context key (did you mean), and the run is unchanged', async () => {
    const p = project();
    const { client } = await temporal();
    const refusals: unknown[] = [];
    let before = 0;
    let after = 0;
    const run = await runLoop(gatedLoop(), {
      cwd: p.cwd,
      steering: true,
      onStarted: async (id) => {
        const handle = client.workflow.getHandle(id);
        await waitFor('the run to start its action', async () => (await handle.query(statusQuery)).steps === 1);
        before = (await handle.fetchHistory()).events?.length ?? 0;
        refusals.push(await handle.executeUpdate(steerUpdate, { args: [{ ...by, to: 'reveiw' }] }).catch((e) => e));
        refusals.push(
          await handle
            .executeUpdate(steerUpdate, { args: [{ ...by, to: 'review', context: { tagret: 'x' } }] })
            .catch((e: unknown) => e),
        );
        after = (await handle.fetchHistory()).events?.length ?? 0;
        expect((await handle.query(statusQuery)).steer).toBeUndefined();
        writeFileSync(join(p.cwd, 'go'), '');
      },
    });
    expect(String((refusals[0] as Error).cause)).toMatch(/has no state "reveiw" \(did you mean "review"\?\)/);
    expect(String((refusals[1] as Error).cause)).toMatch(/has no context key "tagret" \(did you mean "target"\?\)/);
    // A refused update is not recorded: the history did not grow.
    expect(after).toBe(before);
    expect(run.result).toMatchObject({ terminated_by: 'terminal', final_state: 'done' });
    expect(ran(p.cwd)).toEqual(['plan', 'build all', 'check']);
  });
});

describe('rerun', () => {
  it('a run whose history is gone cannot be rerun: one error with its fix, exit 5', async () => {
    const { client } = await temporal();
    const gone = await forkPoint(client, `gone-${randomUUID()}`, { state: 'count' }, ['count']).catch(
      (e: unknown) => e,
    );
    expect(gone).toBeInstanceOf(HistoryGoneError);
    expect(gone).toMatchObject({ exitCode: 5, message: expect.stringMatching(/its history is gone$/) });
    expect((gone as HistoryGoneError).fix).toContain('ll-loop run');
  });

  it('starts a new run from the N-th visit of a state of a finished run, with its snapshot and the edits', async () => {
    const p = project();
    writeFileSync(join(p.cwd, 'go'), '');
    const counting = definition({
      name: 'rerun-it',
      initial: 'count',
      max_iterations: 10,
      context: { label: 'first' },
      states: {
        count: {
          action: 'n=$(cat n 2>/dev/null || echo 0); n=$((n+1)); echo $n > n; echo $n',
          capture: 'n',
          evaluate: { type: 'output_numeric', operator: 'ge', target: 3 },
          on_yes: 'report',
          on_no: 'count',
        },
        report: { action: 'echo "${context.label} ${captured.n.output}" >> ran', next: 'done' },
        done: { terminal: true },
      },
    });
    const old = await runLoop(counting, { cwd: p.cwd, steering: true });
    expect(old.result).toMatchObject({ terminated_by: 'terminal', final_state: 'done' });
    expect(ran(p.cwd)).toEqual(['first 3']);
    const { client } = await temporal();
    const point = await forkPoint(client, old.workflowId, { state: 'count', visit: 2 }, Object.keys(counting.states));
    const enters = old.events.filter((e: TimedEvent) => e.event === 'state_enter' && e.state === 'count');
    expect(point).toMatchObject({ event: enters[1]!.seq, visit: 2, visits: 3 });
    // As it entered count the 2nd time: pass 2, count's first capture only.
    expect(point.snapshot).toMatchObject({ current: 'count', iteration: 2, captured: { n: { output: '1' } } });

    const rerun = await runLoop(counting, {
      cwd: p.cwd,
      steering: true,
      continueFrom: {
        runId: old.workflowId,
        snapshot: point.snapshot,
        fork: { event: point.event, context: { label: 'second' } },
      },
    });
    expect(rerun.events[0]).toMatchObject({
      event: 'loop_fork',
      forked_from: `${old.workflowId}@${point.event}`,
      state: 'count',
      iteration: 2,
      context: ['label'],
    });
    // n continues from the file (4): the rerun ran count once more, then report with the new label.
    expect(rerun.result).toMatchObject({ terminated_by: 'terminal', final_state: 'done' });
    expect(ran(p.cwd)).toEqual(['first 3', 'second 4']);
    // The old run is untouched.
    expect((await client.workflow.getHandle(old.workflowId).describe()).status.name).toBe('COMPLETED');
  });
});
