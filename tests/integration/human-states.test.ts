/**
 * Human states on the real dev server: the run waits (status `human`, LoopStatus `waiting`) until
 * the answerHuman update answers it — approval yes/no/edit, a choice, a text, JSON checked against
 * its schema — or its durable deadline passes. Refused answers change nothing; the first answer wins.
 */
import { WorkflowUpdateFailedError, type Connection, type WorkflowHandle } from '@temporalio/client';
import { afterAll, describe, expect, it } from 'vitest';
import {
  answerHumanUpdate,
  LOOP_WORKFLOW_TYPE,
  statusQuery,
  type HumanAnswerRequest,
  type LoopWorkflowInput,
} from '../../workflows/definitions.js';
import { answerRun } from '../../runs/human/answer-run.js';
import { listRuns, projectScope } from '../../runs/find/find-runs.js';
import { waitFor } from '../support/processes.js';
import { closeTemporal, definition, loopRunResult, project, runLoop, temporal } from './harness.js';
import { createLoopWorker } from '../../worker/create-worker.js';
import { steerUpdate } from '../../workflows/control-definitions.js';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

afterAll(closeTemporal);

const reviewLoop = (review: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  definition({
    name: 'human-review',
    initial: 'plan',
    states: {
      plan: { action: 'echo the plan', capture: 'plan', next: 'review' },
      review: { action_type: 'human', prompt: 'Apply ${captured.plan.output}?', ...review },
      apply: { action: 'echo "applied: ${captured.review.output}"', capture: 'applied', next: 'done' },
      park: { terminal: true },
      done: { terminal: true },
      ...extra,
    },
  });

const approval = { timeout: 3600, on_yes: 'apply', on_no: 'park', on_edit: 'apply' };

async function waiting(handle: WorkflowHandle, state = 'review') {
  await waitFor(
    `the run to wait in ${state}`,
    async () => (await handle.query(statusQuery)).human?.state === state,
    30_000,
  );
  return handle.query(statusQuery);
}

const answer = (handle: WorkflowHandle, request: Omit<HumanAnswerRequest, 'by'>) =>
  handle.executeUpdate(answerHumanUpdate, { args: [{ by: 'ann@test', ...request }] });

async function refusal(promise: Promise<unknown>): Promise<string> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
  return (err as WorkflowUpdateFailedError).cause?.message ?? '';
}

describe('human states on a real run', () => {
  it('approval yes: waits (status, search attribute, details), then routes on_yes with the answer captured', async () => {
    const p = project();
    const { client } = await temporal();
    const run = await runLoop(reviewLoop(approval), {
      cwd: p.cwd,
      onStarted: async (id) => {
        const handle = client.workflow.getHandle(id);
        const status = await waiting(handle);
        expect(status).toMatchObject({
          phase: 'human',
          human: {
            state: 'review',
            prompt: 'Apply the plan?',
            ask: 'approval',
            answer: `ll-loop answer ${id} yes | no | --edit TEXT`,
          },
        });
        await waitFor(
          'LoopStatus waiting',
          async () => (await handle.describe()).searchAttributes.LoopStatus?.[0] === 'waiting',
          30_000,
        );
        // The question is in the memo too, where `ll-loop inbox` reads it with one visibility query.
        let listed: Awaited<ReturnType<typeof listRuns>> = [];
        await waitFor('the run listed as waiting', async () => {
          listed = await listRuns(client, { openOnly: true, where: `LoopStatus = 'waiting' AND WorkflowId = '${id}'` });
          return listed.length > 0;
        });
        expect(listed[0]?.human).toMatchObject({ state: 'review', prompt: 'Apply the plan?', ask: 'approval' });
        const session = { client, connection: client.connection as Connection };
        // A loop name means this project's runs; its run id would reach it from anywhere.
        await expect(answerRun(session, 'human-review', { kind: 'yes' }, projectScope('/elsewhere'))).rejects.toThrow(
          /no run of this project matches "human-review"/,
        );
        expect(await answer(handle, { reply: { kind: 'yes' }, state: 'review' })).toEqual({
          state: 'review',
          verdict: 'yes',
        });
      },
    });
    expect(run.result).toMatchObject({ terminated_by: 'terminal', final_state: 'done' });
    expect(run.states).toEqual(['plan', 'review', 'apply', 'done']);
    expect(run.result.captured.review).toMatchObject({ answer: 'yes', by: 'ann@test' });
    expect(run.events.find((e) => e.event === 'human_wait')).toMatchObject({
      state: 'review',
      prompt: 'Apply the plan?',
    });
    expect(run.events.find((e) => e.event === 'human_answer')).toMatchObject({ verdict: 'yes', by: 'ann@test' });
  });

  it('approval no and edit route on_no and on_edit; the edit is captured', async () => {
    const p = project();
    const { client } = await temporal();
    const no = await runLoop(reviewLoop(approval), {
      cwd: p.cwd,
      onStarted: async (id) => {
        const handle = client.workflow.getHandle(id);
        await waiting(handle);
        await answer(handle, { reply: { kind: 'no' } });
      },
    });
    expect(no.result).toMatchObject({ final_state: 'park' });
    const edit = await runLoop(reviewLoop(approval), {
      cwd: p.cwd,
      onStarted: async (id) => {
        const handle = client.workflow.getHandle(id);
        await waiting(handle);
        await answer(handle, { reply: { kind: 'edit', text: 'only the docs' } });
      },
    });
    expect(edit.result.captured.review).toMatchObject({ answer: 'edit', edit: 'only the docs' });
    expect(edit.result.captured.applied?.output).toBe('applied: only the docs');
  });

  it('choice: an unknown option or another kind is refused and changes nothing; an option routes', async () => {
    const p = project();
    const { client } = await temporal();
    const run = await runLoop(
      reviewLoop({ ask: 'choice', options: ['ship', 'drop'], timeout: 3600, on_ship: 'apply', on_drop: 'park' }),
      {
        cwd: p.cwd,
        onStarted: async (id) => {
          const handle = client.workflow.getHandle(id);
          await waiting(handle);
          expect(await refusal(answer(handle, { reply: { kind: 'choice', option: 'rework' } }))).toMatch(
            /"rework" is not an option: answer --choice ship\|drop/,
          );
          expect(await refusal(answer(handle, { reply: { kind: 'yes' } }))).toMatch(/asks for a choice/);
          expect((await handle.query(statusQuery)).human?.state).toBe('review');
          await answer(handle, { reply: { kind: 'choice', option: 'drop' } });
        },
      },
    );
    expect(run.result).toMatchObject({ final_state: 'park' });
    expect(run.result.captured.review).toMatchObject({ answer: 'drop' });
    expect(run.events.filter((e) => e.event === 'human_answer')).toHaveLength(1);
  });

  it('text: the answer is captured and routes on_yes', async () => {
    const p = project();
    const { client } = await temporal();
    const run = await runLoop(reviewLoop({ ask: 'text', timeout: 3600, on_yes: 'apply' }), {
      cwd: p.cwd,
      onStarted: async (id) => {
        const handle = client.workflow.getHandle(id);
        await waiting(handle);
        await answer(handle, { reply: { kind: 'text', text: 'use the second plan' } });
      },
    });
    expect(run.result.captured.applied?.output).toBe('applied: use the second plan');
  });

  it('json: an answer that misses the schema is refused (client: ajv; run: its shape); a fitting one is captured', async () => {
    const p = project();
    const { client } = await temporal();
    const schema = { type: 'object', properties: { n: { type: 'integer', minimum: 1 } }, required: ['n'] };
    const run = await runLoop(reviewLoop({ ask: 'json', schema, timeout: 3600, next: 'apply' }), {
      cwd: p.cwd,
      onStarted: async (id) => {
        const handle = client.workflow.getHandle(id);
        await waiting(handle);
        const session = { client, connection: client.connection as Connection };
        await expect(answerRun(session, id, { kind: 'json', value: { n: 0 } }, projectScope(p.cwd))).rejects.toThrow(
          /does not match the schema of state "review": .*n.*>= 1/,
        );
        expect(await refusal(answer(handle, { reply: { kind: 'json', value: [1] } }))).toMatch(
          /type object, not array/,
        );
        expect(await refusal(answer(handle, { reply: { kind: 'json', value: {} } }))).toMatch(/misses required key n/);
        const ok = await answerRun(session, id, { kind: 'json', value: { n: 3 } }, projectScope(p.cwd));
        expect(ok).toMatchObject({ run: id, state: 'review', verdict: 'yes' });
      },
    });
    expect(run.result.captured.review).toMatchObject({ answer: { n: 3 } });
    expect(run.result.captured.applied?.output).toBe('applied: {"n":3}');
  });

  it('timeout: nobody answers; the durable deadline routes on_timeout', async () => {
    const p = project();
    const run = await runLoop(reviewLoop({ ...approval, timeout: 1, on_timeout: 'park' }), { cwd: p.cwd });
    expect(run.result).toMatchObject({ final_state: 'park' });
    expect(run.events.find((e) => e.event === 'human_timeout')).toMatchObject({ state: 'review' });
    expect(run.events.find((e) => e.event === 'route' && e.from === 'review')).toMatchObject({
      verdict: 'timeout',
      to: 'park',
    });
  });

  it('two answers: the first wins, the second is told it was already answered', async () => {
    const p = project();
    const { client } = await temporal();
    let second = '';
    const hold = {
      hold: { action_type: 'human', prompt: 'still there?', timeout: 3600, on_yes: 'done', on_no: 'park' },
    };
    const run = await runLoop(reviewLoop({ ...approval, on_no: 'hold' }, hold), {
      cwd: p.cwd,
      onStarted: async (id) => {
        const handle = client.workflow.getHandle(id);
        await waiting(handle);
        await answer(handle, { reply: { kind: 'no' }, state: 'review' });
        second = await refusal(
          handle.executeUpdate(answerHumanUpdate, {
            args: [{ by: 'bob@test', reply: { kind: 'yes' }, state: 'review' }],
          }),
        );
        await answer(handle, { reply: { kind: 'no' }, state: 'hold' });
      },
    });
    expect(second).toMatch(/already answered by ann@test/);
    expect(run.result).toMatchObject({ final_state: 'park' });
    expect(run.result.captured.review).toMatchObject({ answer: 'no', by: 'ann@test' });
  });

  it('an answer after the deadline is told so, with where the run went', async () => {
    const p = project();
    const { client } = await temporal();
    let late = '';
    const run = await runLoop(
      reviewLoop(
        { ...approval, timeout: 1, on_timeout: 'hold' },
        { hold: { action_type: 'human', prompt: 'still there?', timeout: 3600, on_yes: 'done', on_no: 'park' } },
      ),
      {
        cwd: p.cwd,
        onStarted: async (id) => {
          const handle = client.workflow.getHandle(id);
          await waiting(handle, 'hold');
          late = await refusal(answer(handle, { reply: { kind: 'yes' }, state: 'review' }));
          await answer(handle, { reply: { kind: 'yes' }, state: 'hold' });
        },
      },
    );
    expect(late).toMatch(
      /no longer waits in state "review": nobody answered by its deadline .*; it is now in state "hold"/,
    );
    expect(run.result).toMatchObject({ final_state: 'done' });
  });

  it('a waiting run survives its worker: an answer given while no worker runs is applied once one is back', async () => {
    const p = project();
    const { client, native } = await temporal();
    const taskQueue = `it-${randomUUID()}`;
    const workflowId = `human-restart-${randomUUID().slice(0, 8)}`;
    const input: LoopWorkflowInput = {
      definition: reviewLoop(approval),
      options: { cwd: p.cwd, localActivityMaxTimeoutS: 0, closeAsOutcome: true },
    };
    const first = await createLoopWorker({ connection: native, taskQueue });
    const handle = await first.worker.runUntil(async () => {
      const h = await client.workflow.start(LOOP_WORKFLOW_TYPE, { workflowId, taskQueue, args: [input] });
      await waiting(h);
      return h;
    });
    await first.events.close();
    // No worker now: the answer waits in Temporal for one.
    const answered = answer(handle, { reply: { kind: 'yes' }, state: 'review' });
    const second = await createLoopWorker({ connection: native, taskQueue });
    const result = await second.worker.runUntil(async () => {
      await client.workflowService.resetStickyTaskQueue({ namespace: 'default', execution: { workflowId } });
      expect(await answered).toEqual({ state: 'review', verdict: 'yes' });
      return loopRunResult(client, workflowId);
    });
    await second.events.close();
    expect(result).toMatchObject({ terminated_by: 'terminal', final_state: 'done' });
    expect(result.captured.review).toMatchObject({ answer: 'yes' });
  });

  it('a steer of a run waiting for an answer acts at once; a later answer is told where the run went', async () => {
    const p = project();
    const { client } = await temporal();
    let late = '';
    const hold = {
      hold: { action_type: 'human', prompt: 'still there?', timeout: 3600, on_yes: 'done', on_no: 'park' },
    };
    const run = await runLoop(reviewLoop(approval, hold), {
      cwd: p.cwd,
      steering: true,
      onStarted: async (id) => {
        const handle = client.workflow.getHandle(id);
        await waiting(handle);
        await handle.executeUpdate(steerUpdate, { args: [{ by: 'bob@test', to: 'hold', note: 'go ahead' }] });
        // The deadline is an hour away: the run must leave the wait now, not then.
        await waiting(handle, 'hold');
        late = await refusal(answer(handle, { reply: { kind: 'no' }, state: 'review' }));
        await answer(handle, { reply: { kind: 'yes' }, state: 'hold' });
      },
    });
    expect(run.result).toMatchObject({ terminated_by: 'terminal', final_state: 'done' });
    expect(run.events.find((e) => e.event === 'steered')).toMatchObject({
      from: 'review',
      to: 'hold',
      by: 'bob@test',
      note: 'go ahead',
    });
    expect(run.events.filter((e) => e.event === 'human_answer').map((e) => e.state)).toEqual(['hold']);
    expect(run.events.some((e) => e.event === 'human_timeout')).toBe(false);
    expect(late).toMatch(
      /no longer waits in state "review": it was steered to "hold" by bob@test .*; it is now in state "hold"/,
    );
  });

  it('an answer after the deadline is told so after a continue-as-new too', async () => {
    const p = project();
    const { client } = await temporal();
    let late = '';
    let continued = '';
    const def = definition({
      name: 'human-can',
      initial: 'review',
      max_iterations: 100,
      states: {
        review: { action_type: 'human', prompt: 'ship?', timeout: 1, on_yes: 'done', on_timeout: 'work' },
        // Enough actions that the run continues as new (historyEventLimit) before it waits again.
        work: { action: 'echo x >> n; [ "$(wc -l < n)" -ge 8 ]', on_yes: 'hold', on_no: 'work' },
        hold: { action_type: 'human', prompt: 'still there?', timeout: 3600, on_yes: 'done', on_no: 'done' },
        done: { terminal: true },
      },
    });
    const run = await runLoop(def, {
      cwd: p.cwd,
      historyEventLimit: 40,
      onStarted: async (id) => {
        const handle = client.workflow.getHandle(id);
        await waiting(handle, 'hold');
        // The run waiting in hold is a continued one: its start names the run it continued.
        const started = (await handle.fetchHistory()).events?.[0]?.workflowExecutionStartedEventAttributes;
        continued = started?.continuedExecutionRunId ?? '';
        late = await refusal(answer(handle, { reply: { kind: 'yes' }, state: 'review' }));
        await answer(handle, { reply: { kind: 'yes' }, state: 'hold' });
      },
    });
    expect(run.result).toMatchObject({ final_state: 'done' });
    expect(continued).not.toBe('');
    expect(late).toMatch(
      /no longer waits in state "review": nobody answered by its deadline .*; it is now in state "hold"/,
    );
  });

  it('an answer to a run that is not waiting for one is refused with where it is, and changes nothing', async () => {
    const p = project();
    const { client } = await temporal();
    let refused = '';
    const plan = {
      plan: { action: 'while [ ! -f go ]; do sleep 0.05; done; echo the plan', capture: 'plan', next: 'review' },
    };
    const run = await runLoop(reviewLoop(approval, plan), {
      cwd: p.cwd,
      onStarted: async (id) => {
        const handle = client.workflow.getHandle(id);
        await waitFor('the plan to run', async () => (await handle.query(statusQuery)).state === 'plan');
        refused = await refusal(answer(handle, { reply: { kind: 'yes' } }));
        writeFileSync(join(p.cwd, 'go'), '');
        await waiting(handle);
        await answer(handle, { reply: { kind: 'no' }, state: 'review' });
      },
    });
    expect(refused).toMatch(/is not waiting for an answer: it is now in state "plan" \(phase action\)/);
    // The refused yes changed nothing: the run waited, and the later no routed it.
    expect(run.result).toMatchObject({ final_state: 'park' });
    expect(run.events.filter((e) => e.event === 'human_answer')).toHaveLength(1);
  });
});
