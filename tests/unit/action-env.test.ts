/**
 * The environment a run's processes see (activities/action-env.ts): its command's file, else its
 * schedule's, else the worker's minimal environment (said once per run), never the worker's own;
 * and a process started for it gets exactly that, nothing of the process that starts it.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isMinimalEnv, minimalEnv, runEnvSource } from '../../activities/action-env.js';
import { makeRunAction } from '../../activities/run-action.js';
import { makeNotifyHuman } from '../../activities/notify-human.js';
import { runProcess } from '../../activities/process.js';
import type { EvaluateLlmInput, RunActionInput } from '../../fsm/types.js';
import { makeEvaluateLlm } from '../../activities/evaluate-llm.js';
import { writeRunEnv } from '../../host/run-env.js';
import { scheduleIdOfRun, writeScheduleEnv } from '../../host/schedule-env.js';

const SERVER = '127.0.0.1:7233/default';

/** A worker's environment: a secret of the shell that started it, and its state directory. */
function worker(): NodeJS.ProcessEnv {
  return {
    LL_STATE_DIR: mkdtempSync(join(tmpdir(), 'll-action-env-')),
    TOKEN: 'the-workers-secret',
    PATH: '/usr/bin:/bin',
    HOME: '/home/w',
    LC_ALL: 'C.UTF-8',
  };
}

describe('runEnvSource', () => {
  it("gives a run its command's file, a sub-loop its parent's, a scheduled run its schedule's", () => {
    const env = worker();
    const source = runEnvSource({ server: SERVER, env });
    writeRunEnv('b-20261201T230000', { TOKEN: 'of-the-command' }, { server: SERVER }, env);
    expect(source('b-20261201T230000').TOKEN).toBe('of-the-command');
    expect(source('b-20261201T230000.sub.4').TOKEN).toBe('of-the-command');
    writeScheduleEnv('ll-loop-b', SERVER, { TOKEN: 'of-the-schedule' }, env);
    expect(source('b-2026-12-01T23:00:00Z').TOKEN).toBe('of-the-schedule');
    expect(source('b-2026-12-01T23:00:00Z.sub.4.1').TOKEN).toBe('of-the-schedule');
    // Another server's schedule of the same name is not this one's.
    const elsewhere = runEnvSource({ server: '10.0.0.1:7233/default', env });
    expect(isMinimalEnv(elsewhere('b-2026-12-01T23:00:00Z'))).toBe(true);
  });

  it("gives a run without a file the worker's minimal environment, never its secrets, and says so once per run", () => {
    const env = worker();
    const noted: string[] = [];
    const source = runEnvSource({ server: SERVER, env, onMinimal: (id) => noted.push(id) });
    const got = source('gone-20261201T230000');
    expect(got).toEqual({ PATH: '/usr/bin:/bin', HOME: '/home/w', LC_ALL: 'C.UTF-8', LL_RUN_ENV: 'minimal' });
    source('gone-20261201T230000');
    source('other-2026-12-01T23:00:00Z');
    expect(noted).toEqual(['gone-20261201T230000', 'other-2026-12-01T23:00:00Z']);
    expect(minimalEnv({ TOKEN: 'x', TMPDIR: '/t' })).toEqual({ TMPDIR: '/t', LL_RUN_ENV: 'minimal' });
  });

  it('knows a scheduled run by its id', () => {
    expect(scheduleIdOfRun('fix-lint-2026-11-24T03:00:00Z')).toBe('ll-loop-fix-lint');
    expect(scheduleIdOfRun('fix-lint-20261124T030000')).toBeUndefined();
    expect(scheduleIdOfRun('fix-lint-2026-11-24T03:00:00Z.review.3')).toBeUndefined();
  });
});

describe("a run's processes get exactly its environment", () => {
  const input = (cwd: string, script: string): RunActionInput =>
    ({
      kind: 'shell',
      state: 'say',
      step: 1,
      instanceId: 'b-20261201T230000',
      cwd,
      timeout_s: 30,
      shell: { script, vars: {}, env: {} },
    }) as unknown as RunActionInput;

  it('a shell action: the run environment, nothing of this process', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'll-action-env-run-'));
    process.env.LL_TEST_WORKER_ONLY = 'of-the-worker';
    try {
      const run = makeRunAction({ envFor: () => ({ PATH: process.env.PATH, MINE: 'of-the-run' }) }, runProcess);
      const r = await run(input(cwd, 'echo "mine=${MINE:-unset} worker=${LL_TEST_WORKER_ONLY:-unset}"'));
      expect(r.output).toBe('mine=of-the-run worker=unset\n');
    } finally {
      delete process.env.LL_TEST_WORKER_ONLY;
    }
  });

  it('a notification hook: the run environment, nothing of this process', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'll-action-env-hook-'));
    process.env.LL_TEST_WORKER_ONLY = 'of-the-worker';
    try {
      const notify = makeNotifyHuman({}, { envFor: () => ({ PATH: process.env.PATH, MINE: 'of-the-run' }) });
      const r = await notify({
        command: 'echo "mine=$MINE worker=$LL_TEST_WORKER_ONLY" > hook.txt',
        runId: 'b-20261201T230000',
        state: 'ask',
        prompt: 'ok?',
        answer: 'll-loop answer b-20261201T230000',
        cwd,
      });
      expect(r).toEqual({ ran: true, exit_code: 0 });
      expect(readFileSync(join(cwd, 'hook.txt'), 'utf8')).toBe('mine=of-the-run worker=\n');
    } finally {
      delete process.env.LL_TEST_WORKER_ONLY;
    }
  });

  it("a prompt's host CLI and an LLM judgement's: the run environment, nothing of this process", async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'll-action-env-host-'));
    const host = join(cwd, 'host-cli');
    writeFileSync(host, '#!/bin/bash\ncat > /dev/null\necho "mine=$MINE worker=$LL_TEST_WORKER_ONLY"\n', {
      mode: 0o755,
    });
    const envFor = () => ({ PATH: process.env.PATH, MINE: 'of-the-run', LL_HOST_CLI: host });
    process.env.LL_TEST_WORKER_ONLY = 'of-the-worker';
    try {
      const prompted = await makeRunAction(
        { envFor },
        runProcess,
      )({
        ...input(cwd, ''),
        kind: 'prompt',
        shell: undefined,
        prompt: { parts: ['hello'] },
      } as unknown as RunActionInput);
      expect(prompted.output).toBe('mine=of-the-run worker=\n');
      const judged = await makeEvaluateLlm({ envFor })({
        instanceId: 'b-20261201T230000',
        state: 'check',
        output: 'done',
        schema: { type: 'object' },
        cwd,
        timeout_s: 30,
      } as unknown as EvaluateLlmInput);
      const error = 'error' in judged ? judged.error : undefined;
      expect(error).toContain('stdout: mine=of-the-run worker=');
      expect(error).not.toContain('of-the-worker');
    } finally {
      delete process.env.LL_TEST_WORKER_ONLY;
    }
  });

  it('an unset ${env.X} in a run without an environment of its own says why', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'll-action-env-unset-'));
    const run = makeRunAction({ envFor: () => minimalEnv({ PATH: process.env.PATH }) }, runProcess);
    const r = await run({
      ...input(cwd, 'echo "$LL_E1"'),
      shell: { script: 'echo "$LL_E1"', vars: {}, env: { LL_E1: { name: 'TOKEN' } } },
    } as unknown as RunActionInput);
    expect(r.exit_code).toBe(2);
    expect(r.error).toContain('environment variable TOKEN is not set for this run');
    expect(r.error).toContain('this run has no environment of its own here');
  });
});
