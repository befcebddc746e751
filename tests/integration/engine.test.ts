/**
 * The loop workflow's promises, on the real dev server with real processes: injection safety,
 * secrets out of history, timeouts at each level, cancellation, huge and odd output, run files.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import proto from '@temporalio/proto';
import { afterAll, describe, expect, it } from 'vitest';
import { liveProcesses } from '../support/processes.js';
import { statusQuery } from '../../workflows/definitions.js';
import { eventsPath, statePath } from '../../host/run-files.js';
import { closeTemporal, definition, project, runLoop, temporal } from './harness.js';

afterAll(closeTemporal);

describe('interpolated data is never shell syntax', () => {
  it('passes captured output with quotes, $(…) and backticks verbatim in every quoting context', async () => {
    const p = project();
    const payload = `"; touch pwned1; " ' ; touch pwned2 ; ' $(touch pwned3) \`touch pwned4\``;
    const def = definition({
      name: 'inject',
      initial: 'produce',
      states: {
        produce: { action: `printf '%s' "$PAYLOAD"`, capture: 'evil', next: 'single' },
        single: { action: "echo 'single: ${captured.evil.output}' > single.txt", next: 'double' },
        double: { action: 'echo "double: ${captured.evil.output}" > double.txt', next: 'bare' },
        bare: { action: 'printf "%s|" ${captured.evil.output} > bare.txt', next: 'done' },
        done: { terminal: true },
      },
    });
    const run = await runLoop(def, { cwd: p.cwd, env: { PAYLOAD: payload } });
    expect(run.result.terminated_by).toBe('terminal');
    expect(run.result.captured.evil?.output).toBe(payload);
    expect(readFileSync(join(p.cwd, 'single.txt'), 'utf8')).toBe(`single: ${payload}\n`);
    expect(readFileSync(join(p.cwd, 'double.txt'), 'utf8')).toBe(`double: ${payload}\n`);
    // Unquoted, the value is split into words like the text it stands for, but never executed.
    expect(readFileSync(join(p.cwd, 'bare.txt'), 'utf8')).toBe(`${payload.split(/\s+/).join('|')}|`);
    for (const f of ['pwned1', 'pwned2', 'pwned3', 'pwned4']) expect(existsSync(join(p.cwd, f))).toBe(false);
  });
});

describe('secrets stay out of history', () => {
  it('resolves ${env.*} on the worker; the value is in neither history nor the events file', async () => {
    const p = project();
    const secret = `s3cr3t-${Date.now()}`;
    const def = definition({
      name: 'secret',
      initial: 'use',
      states: {
        use: {
          action: 'test "${env.API_TOKEN}" = "$EXPECTED" && echo ok',
          capture: 'r',
          on_yes: 'done',
          on_no: 'failed',
        },
        done: { terminal: true },
        failed: { terminal: true, failure: true },
      },
    });
    const run = await runLoop(def, { cwd: p.cwd, env: { API_TOKEN: secret, EXPECTED: secret } });
    expect(run.result.final_state).toBe('done');
    const { client } = await temporal();
    const history = await client.workflow.getHandle(run.workflowId).fetchHistory();
    expect(JSON.stringify(history)).not.toContain(secret);
    expect(readFileSync(eventsPath(p.cwd, run.workflowId), 'utf8')).not.toContain(secret);
    expect(JSON.stringify(run.events)).toContain('${env.API_TOKEN}');
  });

  it('an undefined ${env.X} is an error verdict routed to on_error, naming the variable', async () => {
    const p = project();
    const def = definition({
      name: 'noenv',
      initial: 'use',
      states: {
        use: { action: 'echo ${env.LL_SURELY_UNSET_VAR}', on_yes: 'done', on_error: 'handled' },
        done: { terminal: true },
        handled: { terminal: true },
      },
    });
    const run = await runLoop(def, { cwd: p.cwd });
    expect(run.result.final_state).toBe('handled');
    const err = run.events.find((e) => e.event === 'action_error');
    expect(String(err?.error)).toContain('LL_SURELY_UNSET_VAR');
  });
});

describe('timeouts, cancellation and odd processes', () => {
  it('a state timeout kills the command (exit 124, error verdict → on_error)', async () => {
    const p = project();
    const def = definition({
      name: 'hang',
      initial: 'hang',
      states: {
        hang: { action: 'sleep 31.1337', timeout: 1, on_yes: 'done', on_error: 'timed_out' },
        done: { terminal: true },
        timed_out: { terminal: true },
      },
    });
    const started = Date.now();
    const run = await runLoop(def, { cwd: p.cwd });
    expect(run.result.final_state).toBe('timed_out');
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(run.events.find((e) => e.event === 'action_complete')).toMatchObject({ exit_code: 124, timed_out: true });
    expect(liveProcesses('31.1337')).toBe(0);
  });

  it('the loop-level timeout ends the run with terminated_by timeout and kills the action', async () => {
    const p = project();
    const def = definition({
      name: 'slow',
      initial: 'work',
      timeout: 2,
      states: {
        work: { action: 'echo started > started.txt; sleep 32.1337 & sleep 32.1337', capture: 'w', on_yes: 'done' },
        done: { terminal: true },
      },
    });
    const started = Date.now();
    const run = await runLoop(def, { cwd: p.cwd });
    expect(run.result).toMatchObject({ terminated_by: 'timeout', final_state: 'work' });
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(existsSync(join(p.cwd, 'started.txt'))).toBe(true);
    expect(liveProcesses('32.1337')).toBe(0);
  });

  it('cancelling the workflow kills the running action and records cancelled with captured values', async () => {
    const p = project();
    const def = definition({
      name: 'cancel',
      initial: 'first',
      states: {
        first: { action: 'echo kept', capture: 'first', next: 'wait' },
        wait: { action: 'sleep 33.1337', on_yes: 'done' },
        done: { terminal: true },
      },
    });
    const { client } = await temporal();
    const run = await runLoop(def, {
      cwd: p.cwd,
      onStarted: async (id) => {
        const handle = client.workflow.getHandle(id);
        for (let i = 0; i < 100; i += 1) {
          const status = await handle.query(statusQuery);
          if (status.state === 'wait' && status.phase === 'action') break;
          await new Promise((r) => setTimeout(r, 100));
        }
        await new Promise((r) => setTimeout(r, 300));
        await handle.cancel();
      },
    });
    expect(run.result).toMatchObject({ terminated_by: 'cancelled', final_state: 'wait' });
    expect(run.result.captured.first?.output).toBe('kept');
    expect(liveProcesses('33.1337')).toBe(0);
  });

  it('a command that does not exist is exit 127 → error verdict → on_error', async () => {
    const p = project();
    const def = definition({
      name: 'missing',
      initial: 'run',
      states: {
        run: { action: 'll-no-such-command-xyz', on_yes: 'done', on_no: 'done', on_error: 'broken' },
        done: { terminal: true },
        broken: { terminal: true, failure: true },
      },
    });
    const run = await runLoop(def, { cwd: p.cwd });
    expect(run.result).toMatchObject({ final_state: 'broken', failure: true });
    expect(run.events.find((e) => e.event === 'action_complete')).toMatchObject({ exit_code: 127 });
  });

  it('100 MB of output neither breaks the run nor fills the disk: its log keeps head and tail', async () => {
    const p = project();
    const def = definition({
      name: 'flood',
      initial: 'flood',
      states: {
        flood: {
          action: "head -c 100000000 /dev/zero | tr '\\0' 'x'; echo; echo tail-marker",
          capture: 'big',
          on_yes: 'done',
        },
        done: { terminal: true },
      },
    });
    const run = await runLoop(def, { cwd: p.cwd });
    expect(run.result.final_state).toBe('done');
    const big = run.result.captured.big!;
    expect(big.output.endsWith('tail-marker')).toBe(true);
    expect(big.output.length).toBeLessThanOrEqual(64 * 1024);
    const complete = run.events.find((e) => e.event === 'action_complete');
    expect(typeof complete?.log_file).toBe('string');
    const log = readFileSync(String(complete?.log_file), 'utf8');
    expect(log.length).toBeLessThan(2 * 1024 * 1024 + 200);
    expect(log).toMatch(
      /\[ll-loop: \d+ bytes cut here; this log keeps the first \d+ and the last \d+ of 100000013 bytes\]/,
    );
    expect(log.endsWith('x\ntail-marker\n')).toBe(true);
  });

  it('binary garbage on stdout is recorded as text and judged', async () => {
    const p = project();
    const def = definition({
      name: 'garbage',
      initial: 'g',
      states: {
        g: {
          action: 'head -c 3000 /dev/urandom',
          capture: 'g',
          evaluate: { type: 'output_contains', pattern: 'zzzzzzzzzzzz' },
          on_yes: 'done',
          on_no: 'done',
        },
        done: { terminal: true },
      },
    });
    const run = await runLoop(def, { cwd: p.cwd });
    expect(run.result.final_state).toBe('done');
    expect(typeof run.result.captured.g?.output).toBe('string');
  });
});

describe('limits, routing errors and run files', () => {
  it('max_iterations ends the run; events and state files follow the seed format', async () => {
    const p = project();
    const def = definition({
      name: 'limit',
      initial: 'check',
      max_iterations: 3,
      states: {
        check: { action: 'exit 1', on_yes: 'done', on_no: 'fix' },
        fix: { action: 'echo fixing ${state.iteration}', capture: 'fix', next: 'check' },
        done: { terminal: true },
      },
    });
    const run = await runLoop(def, { cwd: p.cwd });
    expect(run.result).toMatchObject({ terminated_by: 'max_iterations', iterations: 3, final_state: 'check' });
    expect(run.result.captured.fix?.output).toBe('fixing 3');
    const lines = readFileSync(eventsPath(p.cwd, run.workflowId), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ event: 'loop_start', loop: 'limit' });
    expect(lines[1]).toMatchObject({ event: 'state_enter', state: 'check', iteration: 1 });
    expect(lines[2]).toMatchObject({ event: 'action_start', action: 'exit 1' });
    expect(lines[3]).toMatchObject({ event: 'action_complete', exit_code: 1 });
    expect(lines[4]).toMatchObject({ event: 'evaluate', type: 'exit_code', verdict: 'no' });
    expect(lines[5]).toMatchObject({ event: 'route', from: 'check', to: 'fix', verdict: 'no' });
    expect(lines.at(-1)).toMatchObject({ event: 'loop_complete', terminated_by: 'max_iterations', iterations: 3 });
    for (const l of lines) expect(typeof l.ts).toBe('string');
    const state = JSON.parse(readFileSync(statePath(p.cwd, run.workflowId), 'utf8'));
    expect(state).toMatchObject({ current_state: 'check', iteration: 3, started_at: expect.any(String) });
    expect(state.captured.fix.output).toBe('fixing 3');
  });

  it('a verdict with no route ends the run with an error naming state and verdict', async () => {
    const p = project();
    const def = definition({
      name: 'noroute',
      initial: 'check',
      states: { check: { action: 'exit 1', on_yes: 'done', on_error: 'done' }, done: { terminal: true } },
    });
    const run = await runLoop(def, { cwd: p.cwd });
    expect(run.result.terminated_by).toBe('error');
    expect(run.result.error).toContain('"check"');
    expect(run.result.error).toContain('"no"');
  });

  it('backoff sleeps durably between passes', async () => {
    const p = project();
    const def = definition({
      name: 'backoff',
      initial: 'a',
      max_iterations: 2,
      backoff: 1,
      states: { a: { action: 'true', next: 'a' }, done: { terminal: true } },
    });
    const started = Date.now();
    const run = await runLoop(def, { cwd: p.cwd });
    expect(run.result).toMatchObject({ terminated_by: 'max_iterations', iterations: 2 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
  });
});

describe('quick shell actions run as local activities', () => {
  it('records them as markers (no activity tasks), flushes durably, and still enforces timeouts', async () => {
    const p = project();
    const def = definition({
      name: 'quick',
      initial: 'a',
      max_iterations: 150,
      // Under a budget quick actions run one local activity each, not in bursts (fsm/run/burst.ts
      // mayBurst; bursts are tests/integration/quick-bursts.test.ts's).
      budget: { max_cost_usd: 100 },
      default_timeout: 5,
      states: {
        a: { action: 'echo ${state.iteration}', capture: 'a', on_yes: 'b' },
        b: { action: 'test ${state.iteration} -lt 150', on_yes: 'a', on_no: 'hang' },
        hang: { action: 'sleep 34.1337', timeout: 1, on_error: 'done', on_yes: 'done' },
        done: { terminal: true },
      },
    });
    const run = await runLoop(def, { cwd: p.cwd, localActivityMaxTimeoutS: 30 });
    expect(run.result).toMatchObject({ terminated_by: 'terminal', final_state: 'done', iterations: 150 });
    expect(run.result.captured.a?.output).toBe('150');
    expect(liveProcesses('34.1337')).toBe(0);
    const { client } = await temporal();
    const history = await client.workflow.getHandle(run.workflowId).fetchHistory();
    const E = proto.temporal.api.enums.v1.EventType;
    const types = (history.events ?? []).map((e) => e.eventType);
    expect(types.filter((t) => t === E.EVENT_TYPE_MARKER_RECORDED).length).toBe(301);
    expect(types.includes(E.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)).toBe(false);
    // 300 quick actions are recorded in several workflow tasks (flushed every 100), not one.
    expect(types.filter((t) => t === E.EVENT_TYPE_TIMER_STARTED).length).toBeGreaterThanOrEqual(2);
  });
});
