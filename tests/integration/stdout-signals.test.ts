/**
 * Stdout signals on a real run: an agent (the host CLI, a scripted fake) or a shell action prints
 * `CONTEXT_HANDOFF:`, `FATAL_ERROR:` or `LOOP_STOP:`. Under `on_handoff: pause` the workflow waits
 * durably until its resumeHandoff update (what `ll-loop resume` sends) continues it; `spawn`
 * continues at once; `terminate` ends the run.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { afterAll, describe, expect, it } from 'vitest';
import {
  LOOP_WORKFLOW_TYPE,
  resumeHandoffUpdate,
  statusQuery,
  type LoopStatus,
  type LoopWorkflowInput,
} from '../../workflows/definitions.js';
import { waitFor } from '../support/processes.js';
import {
  closeTemporal,
  closedAs,
  definition,
  loopRunResult,
  project,
  runLoop,
  script,
  temporal,
  toolEnv,
} from './harness.js';
import { createLoopWorker } from '../../worker/create-worker.js';

afterAll(closeTemporal);

/** What each call of a fake tool got on stdin (a prompt, for the host CLI). */
const stdins = (toolsDir: string, tool: string) =>
  readFileSync(join(toolsDir, 'calls.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { tool: string; stdin: string })
    .filter((c) => c.tool === tool)
    .map((c) => c.stdin);

const agentLoop = (extra: Record<string, unknown> = {}) =>
  definition({
    name: 'handoff',
    initial: 'work',
    states: {
      work: {
        action: 'Do the work',
        action_type: 'prompt',
        evaluate: { type: 'exit_code' },
        on_yes: 'check',
        on_no: 'failed',
      },
      check: { action: 'checker', next: 'done' },
      done: { terminal: true },
      failed: { terminal: true, failure: true },
    },
    ...extra,
  });

const HANDOFF = 'reading the parser\\nCONTEXT_HANDOFF: continue with the lexer tests';

describe('CONTEXT_HANDOFF: from an agent', () => {
  it('terminate: the run ends terminated_by handoff in the state that handed off, and its workflow completes', async () => {
    const p = project(['agent', 'checker']);
    script(p.toolsDir, 'agent', [[0, HANDOFF]]);
    const run = await runLoop(agentLoop({ on_handoff: 'terminate' }), {
      cwd: p.cwd,
      env: toolEnv(p, { LL_HOST_CLI: 'agent' }),
      stdoutSignals: true,
    });
    expect(run.result).toMatchObject({
      terminated_by: 'handoff',
      final_state: 'work',
      error: 'state "work" handed off (CONTEXT_HANDOFF: continue with the lexer tests)',
    });
    expect(closedAs(run.result)).toBe('completed');
    expect(run.events.find((e) => e.event === 'handoff')).toMatchObject({
      state: 'work',
      mode: 'terminate',
      payload: 'continue with the lexer tests',
    });
    expect(run.events.some((e) => e.event === 'evaluate')).toBe(false);
    const { client } = await temporal();
    expect((await client.workflow.getHandle(run.workflowId).describe()).status.name).toBe('COMPLETED');
  });

  it('pause: the run waits on the handoff (status says so) until the resumeHandoff update; then the state runs again with the payload', async () => {
    const p = project(['agent', 'checker']);
    script(p.toolsDir, 'agent', [
      [0, HANDOFF],
      [0, 'all done'],
    ]);
    const { client } = await temporal();
    let paused: LoopStatus | undefined;
    const run = await runLoop(agentLoop(), {
      cwd: p.cwd,
      env: toolEnv(p, { LL_HOST_CLI: 'agent' }),
      stdoutSignals: true,
      onStarted: async (id) => {
        const handle = client.workflow.getHandle(id);
        await waitFor(
          'the run to pause on its handoff',
          async () => (await handle.query(statusQuery)).phase === 'handoff',
          30_000,
        );
        paused = await handle.query(statusQuery);
        // It waits: nothing more ran while paused.
        expect(stdins(p.toolsDir, 'agent')).toHaveLength(1);
        expect(await handle.executeUpdate(resumeHandoffUpdate)).toEqual({ state: 'work' });
      },
    });
    expect(paused).toMatchObject({
      state: 'work',
      phase: 'handoff',
      handoff: { state: 'work', payload: 'continue with the lexer tests', resume: `ll-loop resume ${run.workflowId}` },
    });
    expect(run.result).toMatchObject({ terminated_by: 'terminal', final_state: 'done' });
    expect(run.states).toEqual(['work', 'work', 'check', 'done']);
    expect(run.events.map((e) => e.event)).toEqual(expect.arrayContaining(['handoff', 'handoff_resumed']));
    const prompts = stdins(p.toolsDir, 'agent');
    expect(prompts).toHaveLength(2);
    expect(prompts[0]).toBe('Do the work');
    expect(prompts[1]).toContain('Do the work\n\nA previous agent session handed this task off');
    expect(prompts[1]).toContain('continue with the lexer tests');
  });

  it('pause survives a worker restart: a new worker takes the waiting run and the update continues it', async () => {
    const p = project(['agent', 'checker']);
    script(p.toolsDir, 'agent', [
      [0, HANDOFF],
      [0, 'all done'],
    ]);
    const { client, native } = await temporal();
    const taskQueue = `it-${randomUUID()}`;
    const workflowId = `handoff-restart-${randomUUID().slice(0, 8)}`;
    const env = { ...process.env, ...toolEnv(p, { LL_HOST_CLI: 'agent' }) } as NodeJS.ProcessEnv;
    const input: LoopWorkflowInput = {
      definition: agentLoop(),
      options: { cwd: p.cwd, localActivityMaxTimeoutS: 0, closeAsOutcome: true, stdoutSignals: true },
    };
    const first = await createLoopWorker({ connection: native, taskQueue, activityDeps: { env } });
    const handle = await first.worker.runUntil(async () => {
      const h = await client.workflow.start(LOOP_WORKFLOW_TYPE, {
        workflowId,
        taskQueue,
        args: [input],
        memo: { cwd: p.cwd, loop: 'handoff' },
      });
      await waitFor(
        'the run to pause on its handoff',
        async () => (await h.query(statusQuery)).phase === 'handoff',
        30_000,
      );
      return h;
    });
    await first.events.close();
    // The first worker is gone; the run waits in Temporal alone. A second worker picks it up.
    const second = await createLoopWorker({ connection: native, taskQueue, activityDeps: { env } });
    const result = await second.worker.runUntil(async () => {
      await client.workflowService.resetStickyTaskQueue({ namespace: 'default', execution: { workflowId } });
      expect((await handle.query(statusQuery)).handoff).toMatchObject({ payload: 'continue with the lexer tests' });
      await handle.executeUpdate(resumeHandoffUpdate);
      return loopRunResult(client, workflowId);
    });
    await second.events.close();
    expect(result).toMatchObject({ terminated_by: 'terminal', final_state: 'done' });
    expect(stdins(p.toolsDir, 'agent')).toHaveLength(2);
  });

  it('a run paused on a handoff is stopped like any run (ll-loop stop cancels the wait)', async () => {
    const p = project(['agent', 'checker']);
    script(p.toolsDir, 'agent', [[0, HANDOFF]]);
    const { client } = await temporal();
    const run = await runLoop(agentLoop(), {
      cwd: p.cwd,
      env: toolEnv(p, { LL_HOST_CLI: 'agent' }),
      stdoutSignals: true,
      onStarted: async (id) => {
        const handle = client.workflow.getHandle(id);
        await waitFor(
          'the run to pause on its handoff',
          async () => (await handle.query(statusQuery)).phase === 'handoff',
          30_000,
        );
        await handle.cancel();
      },
    });
    expect(run.result).toMatchObject({ terminated_by: 'cancelled', final_state: 'work' });
    expect(run.result.stopped_by).toBeUndefined();
    expect(closedAs(run.result)).toBe('canceled');
  });

  it('the resumeHandoff update is refused by a run that does not wait on a handoff', async () => {
    const p = project(['agent', 'checker']);
    script(p.toolsDir, 'agent', [
      [0, HANDOFF],
      [0, 'done'],
    ]);
    const { client } = await temporal();
    let refused: unknown;
    // The action runs until the test has tried the update.
    const run = await runLoop(
      agentLoop({
        states: { work: { action: 'while [ ! -f go ]; do sleep 0.05; done', next: 'done' }, done: { terminal: true } },
      }),
      {
        cwd: p.cwd,
        env: toolEnv(p),
        stdoutSignals: true,
        onStarted: async (id) => {
          const handle = client.workflow.getHandle(id);
          await waitFor(
            'the action to start',
            async () => (await handle.query(statusQuery)).phase === 'action',
            30_000,
          );
          refused = await handle.executeUpdate(resumeHandoffUpdate).catch((e: unknown) => e);
          writeFileSync(join(p.cwd, 'go'), '');
        },
      },
    );
    expect(refused).toBeInstanceOf(WorkflowUpdateFailedError);
    expect((refused as WorkflowUpdateFailedError).cause?.message).toMatch(
      /is not waiting on a handoff \(state "work", phase action\)/,
    );
    expect(run.result).toMatchObject({ final_state: 'done' });
  });

  it('spawn: the same state runs again at once, its fresh session carrying the payload', async () => {
    const p = project(['agent', 'checker']);
    script(p.toolsDir, 'agent', [
      [0, HANDOFF],
      [0, 'all done'],
    ]);
    const run = await runLoop(agentLoop({ on_handoff: 'spawn' }), {
      cwd: p.cwd,
      env: toolEnv(p, { LL_HOST_CLI: 'agent' }),
      stdoutSignals: true,
    });
    expect(run.result).toMatchObject({ terminated_by: 'terminal', final_state: 'done' });
    expect(run.events.find((e) => e.event === 'handoff')).toMatchObject({ mode: 'spawn', continuation: 1 });
    expect(stdins(p.toolsDir, 'agent')[1]).toContain('continue with the lexer tests');
  });
});

describe('FATAL_ERROR: and LOOP_STOP:', () => {
  const shellLoop = definition({
    name: 'signals',
    initial: 'probe',
    states: {
      probe: {
        action: 'prober',
        evaluate: { type: 'exit_code' },
        on_yes: 'next_step',
        on_no: 'probe',
        on_error: 'probe',
      },
      next_step: { action: 'echo next', next: 'done' },
      done: { terminal: true },
    },
  });

  it('FATAL_ERROR: ends the run as an error with its message (workflow Failed)', async () => {
    const p = project(['prober']);
    script(p.toolsDir, 'prober', [[0, 'FATAL_ERROR: the disk is full']]);
    const run = await runLoop(shellLoop, { cwd: p.cwd, env: toolEnv(p), stdoutSignals: true });
    expect(run.result).toMatchObject({
      terminated_by: 'error',
      final_state: 'probe',
      error: 'state "probe": FATAL_ERROR: the disk is full',
    });
    expect(closedAs(run.result)).toBe('failed');
  });

  it('LOOP_STOP: the state routes, then the run ends stopped in the next state without running it (workflow Completed)', async () => {
    const p = project(['prober']);
    script(p.toolsDir, 'prober', [[0, 'LOOP_STOP: enough for today']]);
    const run = await runLoop(shellLoop, { cwd: p.cwd, env: toolEnv(p), stdoutSignals: true });
    expect(run.result).toMatchObject({
      terminated_by: 'cancelled',
      stopped_by: 'loop_stop',
      final_state: 'next_step',
      error: 'LOOP_STOP: enough for today',
    });
    expect(run.states).toEqual(['probe']);
    expect(run.events.find((e) => e.event === 'route')).toMatchObject({
      from: 'probe',
      to: 'next_step',
      verdict: 'yes',
    });
    const { client } = await temporal();
    expect((await client.workflow.getHandle(run.workflowId).describe()).status.name).toBe('COMPLETED');
  });

  it('config.handoff_threshold reaches the action as LL_HANDOFF_THRESHOLD', async () => {
    const p = project();
    const d = definition({
      name: 'threshold',
      initial: 'a',
      config: { handoff_threshold: 70 },
      states: {
        a: { action: 'echo "t=$${LL_HANDOFF_THRESHOLD:-unset}"', capture: 't', next: 'done' },
        done: { terminal: true },
      },
    });
    const run = await runLoop(d, { cwd: p.cwd, stdoutSignals: true });
    expect(run.result.captured.t).toMatchObject({ output: 't=70' });
  });
});
