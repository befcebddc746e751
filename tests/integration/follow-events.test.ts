/**
 * The events `history`, `status --follow` and `run` read (client/runs/follow-events.ts: the
 * history replayed through the bundle) equal the live events the worker emitted, byte for byte
 * and with the same end, for each way a run can go: remote and local actions, LLM evaluation,
 * backoff, action errors, cancellation, the loop timeout, continue-as-new.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadLoopFile } from '../../loader/load.js';
import { followEvents } from '../../client/runs/follow-events.js';
import { statusQuery } from '../../workflows/definitions.js';
import { closeTemporal, definition, FIXTURES, project, runLoop, script, temporal, toolEnv, verdicts, type RunOutcome } from './harness.js';

afterAll(closeTemporal);

async function expectRebuilt(run: RunOutcome, runs = 1): Promise<void> {
  const { client } = await temporal();
  const rebuilt = await followEvents(client, run.workflowId);
  expect(rebuilt.warnings).toEqual([]);
  expect(rebuilt.events.map((e) => JSON.stringify(e))).toEqual(run.events.map((e) => JSON.stringify(e)));
  expect(rebuilt.end).toEqual({ status: 'completed', result: run.result });
  const executions = [];
  for await (const w of client.workflow.list({ query: `WorkflowId = '${run.workflowId}'` })) executions.push(w.runId);
  expect(executions.length).toBeGreaterThanOrEqual(runs);
}

const counter = {
  initial: 'count',
  context: { limit: 3 },
  states: {
    count: { action: 'echo ${state.iteration}', capture: 'n', evaluate: { type: 'output_numeric', operator: 'ge', target: '${context.limit}' }, on_yes: 'done', on_no: 'count' },
    done: { action: "echo 'reached ${captured.n.output}'", terminal: true },
  },
};

describe('events read from history equal the live events', () => {
  it('a plain loop (remote activities)', async () => {
    const run = await runLoop(definition({ name: 'rb-plain', ...counter }), { cwd: project().cwd });
    expect(run.result.iterations).toBe(3);
    await expectRebuilt(run);
  });

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

  it('an LLM evaluation of a prompt action (fake host CLI)', async () => {
    const p = project(['mypy']);
    script(p.toolsDir, 'mypy', [[1, 'a.py:1: error: x\n'], [0, 'Success']]);
    const file = verdicts(p.cwd, [{ verdict: 'yes', confidence: 0.9, reason: 'fixed' }]);
    const loaded = loadLoopFile(join(FIXTURES, 'seed-examples', 'fix-types.yaml'));
    const run = await runLoop(loaded.definition!, { cwd: p.cwd, env: toolEnv(p, { FAKE_CLAUDE_VERDICTS: file }) });
    expect(run.events.some((e) => e.event === 'evaluate' && e.type === 'llm_structured')).toBe(true);
    await expectRebuilt(run);
  });

  it('backoff between passes (remote)', async () => {
    const def = definition({ name: 'rb-backoff', initial: 'a', max_iterations: 3, backoff: 0.5, states: { a: { action: 'true', next: 'a' }, done: { terminal: true } } });
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
        states: { a: { action: 'echo hi', on_yes: 'done', on_error: 'bad' }, done: { terminal: true }, bad: { terminal: true, failure: true } },
      });
      // A file as the working directory: the action cannot start (ActionSetupError).
      const run = await runLoop(def, { cwd: join(FIXTURES, 'fake-claude'), localActivityMaxTimeoutS: local });
      expect(run.result.final_state).toBe('bad');
      await expectRebuilt(run);
    }
  });

  it('a cancelled run (the action was killed)', async () => {
    const def = definition({
      name: 'rb-cancel',
      initial: 'first',
      states: { first: { action: 'echo kept', capture: 'first', next: 'wait' }, wait: { action: 'sleep 36.1337', on_yes: 'done' }, done: { terminal: true } },
    });
    const { client } = await temporal();
    const run = await runLoop(def, {
      cwd: project().cwd,
      onStarted: async (id) => {
        const handle = client.workflow.getHandle(id);
        for (let i = 0; i < 100; i += 1) {
          const status = await handle.query(statusQuery);
          if (status.state === 'wait' && status.phase === 'action') break;
          await new Promise((r) => setTimeout(r, 100));
        }
        await handle.cancel();
      },
    });
    expect(run.result).toMatchObject({ terminated_by: 'cancelled', final_state: 'wait' });
    await expectRebuilt(run);
  });

  it('the loop timeout, in the middle of quick local actions', async () => {
    const def = definition({
      name: 'rb-timeout',
      initial: 'a',
      timeout: 2,
      default_timeout: 5,
      states: { a: { action: 'echo x', capture: 'w', on_yes: 'b' }, b: { action: 'sleep 0.7', on_yes: 'a' }, done: { terminal: true } },
    });
    const run = await runLoop(def, { cwd: project().cwd, localActivityMaxTimeoutS: 30 });
    expect(run.result.terminated_by).toBe('timeout');
    await expectRebuilt(run);
  });

  it('a run continued as new several times', async () => {
    const def = definition({
      name: 'rb-long',
      initial: 'a',
      max_iterations: 30,
      states: {
        a: { action: 'echo ${state.iteration}', capture: 'last', on_yes: 'b' },
        b: { action: 'test ${state.iteration} -lt 30', on_yes: 'a', on_no: 'done' },
        done: { terminal: true },
      },
    });
    const run = await runLoop(def, { cwd: project().cwd, historyEventLimit: 100 });
    expect(run.result).toMatchObject({ terminated_by: 'terminal', iterations: 30 });
    await expectRebuilt(run, 3);
  });
});
