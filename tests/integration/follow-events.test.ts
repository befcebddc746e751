/**
 * The events `history`, `status --follow` and `run` read (runs/follow/follow-events.ts: the
 * history replayed through the bundle) equal the live events the worker emitted, byte for byte
 * and with the same end, for the shapes tests/integration/replay-events.test.ts does not run:
 * local actions with backoff and flushes, remote backoff, actions that could not run, the loop
 * timeout in the middle of quick local actions.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { followEvents, type FollowedRun } from '../../runs/follow/follow-events.js';
import {
  closedAs,
  closeTemporal,
  definition,
  FIXTURES,
  project,
  runLoop,
  temporal,
  type RunOutcome,
} from './harness.js';

afterAll(closeTemporal);

async function expectRebuilt(run: RunOutcome, runs = 1): Promise<void> {
  const { client } = await temporal();
  const rebuilt = await followEvents(client, run.workflowId);
  expect(rebuilt.warnings).toEqual([]);
  expect(rebuilt.events.map((e) => JSON.stringify(e))).toEqual(run.events.map((e) => JSON.stringify(e)));
  // The end the workflow recorded: its result, closed the way the loop ended.
  expect(rebuilt.end?.status).toBe(closedAs(run.result));
  expect(rebuilt.end?.result).toEqual(run.result);
  const executions = [];
  for await (const w of client.workflow.list({ query: `WorkflowId = '${run.workflowId}'` })) executions.push(w.runId);
  expect(executions.length).toBeGreaterThanOrEqual(runs);
}

describe('events read from history equal the live events', () => {
  it('local activities, with backoff and flushes', async () => {
    const def = definition({
      name: 'rb-local',
      initial: 'a',
      max_iterations: 4,
      backoff: 0.2,
      default_timeout: 5,
      states: {
        a: { action: 'echo ${state.iteration}; sleep 0.3', capture: 'a', on_yes: 'b' },
        b: { action: 'sleep 0.9; test ${state.iteration} -lt 4', on_yes: 'a', on_no: 'done' },
        done: { terminal: true },
      },
    });
    const run = await runLoop(def, { cwd: project().cwd, localActivityMaxTimeoutS: 30 });
    expect(run.result).toMatchObject({ terminated_by: 'terminal', iterations: 4 });
    await expectRebuilt(run);
  });

  it('backoff between passes (remote)', async () => {
    const def = definition({
      name: 'rb-backoff',
      initial: 'a',
      max_iterations: 3,
      backoff: 0.5,
      states: { a: { action: 'true', next: 'a' }, done: { terminal: true } },
    });
    const run = await runLoop(def, { cwd: project().cwd });
    expect(run.result.terminated_by).toBe('max_iterations');
    await expectRebuilt(run);
  });

  it('actions that could not run (remote and local)', async () => {
    for (const local of [0, 30]) {
      const def = definition({
        name: `rb-broken-${local}`,
        initial: 'a',
        default_timeout: 5,
        states: {
          a: { action: 'echo hi', on_yes: 'done', on_error: 'bad' },
          done: { terminal: true },
          bad: { terminal: true, failure: true },
        },
      });
      // A file as the working directory: the action cannot start (ActionSetupError).
      const run = await runLoop(def, { cwd: join(FIXTURES, 'fake-claude'), localActivityMaxTimeoutS: local });
      expect(run.result.final_state).toBe('bad');
      await expectRebuilt(run);
    }
  });

  it('the loop timeout, in the middle of quick local actions', async () => {
    const def = definition({
      name: 'rb-timeout',
      initial: 'a',
      timeout: 2,
      default_timeout: 5,
      states: {
        a: { action: 'echo x', capture: 'w', on_yes: 'b' },
        b: { action: 'sleep 0.7', on_yes: 'a' },
        done: { terminal: true },
      },
    });
    const run = await runLoop(def, { cwd: project().cwd, localActivityMaxTimeoutS: 30 });
    expect(run.result.terminated_by).toBe('timeout');
    await expectRebuilt(run);
  });

  it('a live run followed with its long polls cut into short slices: every event, no disconnect', async () => {
    const def = definition({
      name: 'rb-slices',
      initial: 'a',
      states: {
        // Remote, and longer than several slices: nothing happens in the history meanwhile. The
        // server answers a slice of 1.5 s with an empty page after ~0.5 s (it keeps 1 s of the
        // deadline), so the follower asks again some five times with the same page token.
        a: { action: 'sleep 3; echo slow', timeout: 30, next: 'b' },
        b: { action: 'echo b', terminal: true },
      },
    });
    const { client } = await temporal();
    const disconnects: string[] = [];
    let following: Promise<FollowedRun> | undefined;
    const run = await runLoop(def, {
      cwd: project().cwd,
      onStarted: (workflowId) => {
        following = followEvents(client, workflowId, {
          follow: true,
          pollSliceMs: 1500,
          onDisconnect: (m) => disconnects.push(m),
        });
      },
    });
    const followed = await following!;
    expect(disconnects).toEqual([]);
    expect(followed.warnings).toEqual([]);
    expect(followed.events.map((e) => JSON.stringify(e))).toEqual(run.events.map((e) => JSON.stringify(e)));
    expect(followed.end?.status).toBe('completed');
  });
});
