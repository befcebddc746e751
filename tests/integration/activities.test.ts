/**
 * The action activities against real processes (no mocks): exit codes, timeouts and cancellation
 * killing whole process groups, huge and binary outputs, injection safety, env references, and the
 * host CLI (tests/fixtures/fake-claude) for prompt states and LLM evaluation.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApplicationFailure, CancelledFailure } from '@temporalio/activity';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EvaluateLlmInput, RunActionInput } from '../../fsm/types.js';
import { createActivities } from '../../activities/index.js';
import { TailBuffer } from '../../activities/tail-buffer.js';
import { cutNote, LOG_HEAD_BYTES, LOG_KEEP_ACTIONS, LOG_TAIL_BYTES } from '../../activities/capped-log.js';
import { SpawnError, runProcess } from '../../activities/process.js';
import { livePids } from '../support/processes.js';

const FAKE_CLAUDE = resolve(fileURLToPath(import.meta.url), '../../fixtures/fake-claude');
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'll-activities-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A fresh working directory per test. */
function cwd(): string {
  return mkdtempSync(join(dir, 'cwd-'));
}

function shell(script: string, extra: Partial<RunActionInput> = {}, vars: Record<string, string> = {}): RunActionInput {
  return {
    instanceId: 'run-1',
    state: 'act',
    step: 1,
    kind: 'shell',
    shell: { script, vars, env: {} },
    cwd: extra.cwd ?? cwd(),
    timeout_s: 30,
    ...extra,
  };
}

const { runAction } = createActivities();

/** Waits up to 1 s for the processes to disappear (a SIGTERMed child takes a moment to die). */
async function expectNoneLive(marker: string): Promise<void> {
  for (let i = 0; i < 20 && livePids(marker).length > 0; i++) await new Promise((r) => setTimeout(r, 50));
  const left = livePids(marker);
  for (const pid of left) process.kill(pid, 'SIGKILL');
  expect(left).toEqual([]);
}

describe('runAction: shell', () => {
  it.each([0, 1, 2])('reports exit code %i as a result', async (code) => {
    const r = await runAction(shell(`echo out; echo err >&2; exit ${code}`));
    expect(r).toMatchObject({ output: 'out\n', stderr: 'err\n', exit_code: code });
    expect(r.truncated).toBeUndefined();
    expect(r.log_file).toBeUndefined();
  });

  it('reads stdout signals only when asked, also from the log file of a cut output', async () => {
    const early = 'echo "FATAL_ERROR: early"; head -c 200000 /dev/zero | tr "\\0" x; echo';
    expect((await runAction(shell(early))).stdout_signal).toBeUndefined();
    const cut = await runAction(shell(early, { detect_signals: true }));
    expect(cut.truncated).toBe(true);
    expect(cut.stdout_signal).toEqual({ kind: 'fatal_error', payload: 'early' });
    expect((await runAction(shell('echo "LOOP_STOP: now"', { detect_signals: true }))).stdout_signal).toEqual({
      kind: 'loop_stop',
      payload: 'now',
    });
  });

  it("returns bash's 127 for an unknown command", async () => {
    const r = await runAction(shell('no-such-command-xyz'));
    expect(r.exit_code).toBe(127);
    expect(r.stderr).toContain('no-such-command-xyz');
  });

  it('writes no log file for small outputs', async () => {
    const c = cwd();
    await runAction(shell('echo small', { cwd: c }));
    expect(existsSync(join(c, '.loops'))).toBe(false);
  });

  it('kills the whole process group on timeout (124, no orphans)', async () => {
    const marker = '301.25';
    const t0 = performance.now();
    const r = await runAction(shell(`sleep ${marker} & sleep ${marker}`, { timeout_s: 1 }));
    expect(performance.now() - t0).toBeLessThan(4000);
    expect(r).toMatchObject({ exit_code: 124, timed_out: true });
    await expectNoneLive(`sleep ${marker}`);
  });

  it('escalates to SIGKILL when the group ignores SIGTERM', async () => {
    const marker = '301.75';
    const t0 = performance.now();
    const r = await runAction(shell(`trap '' TERM; sleep ${marker} & trap '' TERM; wait`, { timeout_s: 1 }));
    expect(performance.now() - t0).toBeLessThan(4500);
    expect(r.exit_code).toBe(124);
    await expectNoneLive(`sleep ${marker}`);
  });

  it('reports death by signal', async () => {
    const r = await runAction(shell('kill -9 $$'));
    expect(r).toMatchObject({ exit_code: 137, signal: 'SIGKILL' });
  });

  it('does not hang on a background child holding stdout', async () => {
    const marker = '303.5';
    const t0 = performance.now();
    const r = await runAction(shell(`sleep ${marker} & echo hi`));
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(r).toMatchObject({ output: 'hi\n', exit_code: 0 });
    await expectNoneLive(`sleep ${marker}`);
  });

  it('keeps a bounded tail of 100 MB of output, and its first and last MiB on disk, saying what was cut', async () => {
    const c = cwd();
    const rssBefore = process.memoryUsage().rss;
    let rssMax = rssBefore;
    const r = await runProcess({
      file: 'bash',
      args: ['-c', "echo first-line; head -c 100000000 /dev/zero | tr '\\0' 'x'; echo; echo last-line; echo done >&2"],
      cwd: c,
      env: {},
      timeoutMs: 60_000,
      logPath: join(c, 'logs', 'big.log'),
      heartbeatMs: 20,
      onHeartbeat: () => {
        rssMax = Math.max(rssMax, process.memoryUsage().rss);
      },
    });
    expect(r.exit_code).toBe(0);
    expect(r.output.length).toBeLessThanOrEqual(64 * 1024);
    expect(r.output.endsWith('xxxx\nlast-line\n')).toBe(true);
    expect(r.stderr).toBe('done\n');
    expect(r).toMatchObject({
      truncated: true,
      log_file: join(c, 'logs', 'big.log'),
      stderr_file: join(c, 'logs', 'big.stderr.log'),
    });
    const total = 'first-line\n'.length + 100_000_000 + '\nlast-line\n'.length;
    const cut = total - LOG_HEAD_BYTES - LOG_TAIL_BYTES;
    const note = cutNote(cut, total, LOG_HEAD_BYTES, LOG_TAIL_BYTES);
    expect(statSync(join(c, 'logs', 'big.log')).size).toBe(LOG_HEAD_BYTES + note.length + LOG_TAIL_BYTES);
    const text = readFileSync(join(c, 'logs', 'big.log'), 'utf8');
    expect(text.startsWith('first-line\nxxx')).toBe(true);
    expect(text).toContain(`xxx${note}xxx`);
    expect(text.endsWith('xxx\nlast-line\n')).toBe(true);
    expect(readFileSync(join(c, 'logs', 'big.stderr.log'), 'utf8')).toBe('done\n');
    expect(rssMax - rssBefore).toBeLessThan(64 * 1024 * 1024);
  }, 60_000);

  it('names the log files after step and sanitized state, one per stream, whole when under the cap', async () => {
    const c = cwd();
    const r = await runAction(
      shell('echo err-line >&2; head -c 70000 /dev/zero | tr "\\0" y', {
        cwd: c,
        state: 'a/b c',
        step: 7,
        instanceId: 'wf/1',
      }),
    );
    // stderr says why when the log files could not be written.
    expect(r.log_file, r.stderr).toBe(join(c, '.loops', '.running', 'wf_1', '7-a_b_c.log'));
    expect(r.stderr_file).toBe(join(c, '.loops', '.running', 'wf_1', '7-a_b_c.stderr.log'));
    expect(statSync(r.log_file as string).size).toBe(70000);
    expect(readFileSync(r.stderr_file as string, 'utf8')).toBe('err-line\n');
  });

  it(`keeps the output files of the last ${LOG_KEEP_ACTIONS} actions of a run`, async () => {
    const c = cwd();
    const runDir = join(c, '.loops', '.running', 'wf_keep');
    for (let step = 1; step <= LOG_KEEP_ACTIONS + 2; step++) {
      const r = await runAction(shell('head -c 70000 /dev/zero', { cwd: c, step, instanceId: 'wf_keep' }));
      expect(r.log_file).toBe(join(runDir, `${step}-act.log`));
    }
    const steps = new Set(readdirSync(runDir).map((n) => Number(n.split('-')[0])));
    expect(steps.size).toBe(LOG_KEEP_ACTIONS);
    expect(steps.has(1) || steps.has(2)).toBe(false);
    expect(steps.has(LOG_KEEP_ACTIONS + 2)).toBe(true);
  }, 60_000);

  it('turns binary garbage into a well-formed string', async () => {
    const r = await runAction(shell('head -c 4096 /dev/urandom; printf "\\0\\0end"'));
    expect(typeof r.output).toBe('string');
    expect(r.output).not.toContain('\0');
    expect(r.output.endsWith('end')).toBe(true);
    expect(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(r.output)).toBe(false);
  });

  it('passes vars as data, never as shell syntax', async () => {
    const c = cwd();
    const value = '"; touch pwned; " $(touch pwned2) `touch pwned3` \'; touch pwned4\'';
    const r = await runAction(shell('echo "${LL_V1}"', { cwd: c }, { LL_V1: value }));
    expect(r.output).toBe(`${value}\n`);
    expect(readdirSync(c)).toEqual([]);
  });

  it('resolves env references on the worker, with defaults', async () => {
    const { runAction: run } = createActivities({ env: { ...process.env, LL_T_SET: 'secret', LL_T_EMPTY: '' } });
    // Upper-cased: the value itself would be masked in the output (secret-mask.ts).
    const input = shell('printf "%s|%s|%s|%s" "${LL_E1^^}" "$LL_E2" "$LL_E3" "$LL_E4"');
    input.shell!.env = {
      LL_E1: { name: 'LL_T_SET' },
      LL_E2: { name: 'LL_T_UNSET', default: 'dflt' },
      LL_E3: { name: 'LL_T_EMPTY', default: 'was-empty' },
      LL_E4: { name: 'LL_T_EMPTY' },
    };
    expect((await run(input)).output).toBe('SECRET|dflt|was-empty|');
  });

  it('returns an error result for an undefined env reference', async () => {
    const input = shell('echo "$LL_E1"', { state: 'deploy' });
    input.shell!.env = { LL_E1: { name: 'LL_T_DEFINITELY_UNSET' } };
    const r = await runAction(input);
    expect(r.exit_code).toBe(2);
    expect(r.error).toContain('LL_T_DEFINITELY_UNSET is not set for this run');
    expect(r.error).toContain('in state deploy');
    expect(r.error).toContain('${env.LL_T_DEFINITELY_UNSET:-default}');
  });

  it('fails the activity non-retryably when cwd does not exist', async () => {
    const err = await runAction(shell('true', { cwd: join(dir, 'missing') })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect((err as ApplicationFailure).type).toBe('ActionSetupError');
    expect((err as ApplicationFailure).nonRetryable).toBe(true);
    expect((err as Error).message).toContain('does not exist');
  });
});

describe('runAction in an activity context', () => {
  it('runs normally', async () => {
    const env = new MockActivityEnvironment();
    expect(await env.run(runAction, shell('echo in-activity'))).toMatchObject({
      output: 'in-activity\n',
      exit_code: 0,
    });
  });

  it('kills the group and rethrows the cancellation', async () => {
    const marker = '305.5';
    const env = new MockActivityEnvironment();
    setTimeout(() => env.cancel(), 300);
    const err = await env.run(runAction, shell(`sleep ${marker} & sleep ${marker}`)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CancelledFailure);
    await expectNoneLive(`sleep ${marker}`);
  });
});

describe('runProcess', () => {
  it('kills the group and reports cancellation on abort', async () => {
    const marker = '302.5';
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 300);
    const t0 = performance.now();
    const r = await runProcess({
      file: 'bash',
      args: ['-c', `sleep ${marker} & sleep ${marker}`],
      cwd: cwd(),
      env: {},
      timeoutMs: 30_000,
      signal: ac.signal,
      logPath: join(dir, 'x.log'),
    });
    expect(performance.now() - t0).toBeLessThan(3000);
    expect(r).toMatchObject({ exit_code: 130, error: 'cancelled' });
    await expectNoneLive(`sleep ${marker}`);
  });

  it('heartbeats while running', async () => {
    let beats = 0;
    await runProcess({
      file: 'sleep',
      args: ['0.5'],
      cwd: cwd(),
      env: {},
      timeoutMs: 5000,
      heartbeatMs: 50,
      onHeartbeat: () => beats++,
      logPath: join(dir, 'x.log'),
    });
    expect(beats).toBeGreaterThanOrEqual(5);
  });

  it('a SIGKILLed worker process takes its running actions with it (the watchdog)', async () => {
    const marker = 'sleep 303.25';
    const processJs = join(import.meta.dirname, '..', '..', 'dist', 'activities', 'process.js');
    // A stand-in worker: one quick action that ends normally, then one that runs until killed. The
    // marker is assembled inside, so only the action's processes carry it on their command line.
    const script = `
      const { runProcess } = await import(${JSON.stringify(processJs)});
      const opts = { cwd: ${JSON.stringify(cwd())}, env: {}, timeoutMs: 600000, logPath: ${JSON.stringify(join(dir, 'w.log'))} };
      await runProcess({ ...opts, file: 'bash', args: ['-c', 'true'] });
      const sleep = 'sleep ' + (303 + 0.25);
      void runProcess({ ...opts, file: 'bash', args: ['-c', sleep + ' & ' + sleep + '; echo after'] });
      setInterval(() => undefined, 1000);
    `;
    const worker = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: 'ignore' });
    // bash -c and its two sleeps.
    for (let i = 0; i < 100 && livePids(marker).length < 3; i++) await new Promise((r) => setTimeout(r, 50));
    expect(livePids(marker)).toHaveLength(3);
    worker.kill('SIGKILL');
    // SIGTERM at once, SIGKILL after the 2 s grace at the latest.
    for (let i = 0; i < 80 && livePids(marker).length > 0; i++) await new Promise((r) => setTimeout(r, 50));
    await expectNoneLive(marker);
  });

  it('throws SpawnError when the program does not exist', async () => {
    const err = await runProcess({
      file: 'no-such-binary-xyz',
      args: [],
      cwd: cwd(),
      env: {},
      timeoutMs: 5000,
      logPath: join(dir, 'x.log'),
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SpawnError);
    expect((err as SpawnError).reason).toBe('not_found');
  });
});

describe('TailBuffer', () => {
  it('keeps the last bytes and drops a cut multi-byte character', () => {
    const t = new TailBuffer(5);
    t.push(Buffer.from('ab'));
    t.push(Buffer.from('cdé')); // é is 2 bytes: total 6, window "bcdé"
    expect(t.text()).toBe('bcdé');
    t.push(Buffer.from('f'));
    expect(t.truncated).toBe(true);
    expect(t.text()).toBe('cdéf');
    t.push(Buffer.from('€')); // 3 bytes: window is the last byte of é + "f€"
    expect(t.text()).toBe('f€');
    expect(t.totalBytes).toBe(10);
  });
});

describe('prompt actions and LLM evaluation (fake host CLI)', () => {
  function hostEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
    return { ...process.env, LL_HOST_CLI: FAKE_CLAUDE, ...extra };
  }
  function prompt(extra: Partial<RunActionInput> = {}): RunActionInput {
    return {
      instanceId: 'run-1',
      state: 'fix',
      step: 2,
      kind: 'prompt',
      prompt: { parts: ['Fix ', { name: 'LL_T_TARGET' }, ' now'] },
      cwd: cwd(),
      timeout_s: 30,
      ...extra,
    };
  }
  function judge(extra: Partial<EvaluateLlmInput> = {}): EvaluateLlmInput {
    return {
      instanceId: 'run-1',
      state: 'check',
      output: 'all tests passed',
      schema: { type: 'object' },
      min_confidence: 0.5,
      uncertain_suffix: false,
      cwd: cwd(),
      timeout_s: 30,
      ...extra,
    };
  }

  it('runs the host CLI with the rendered prompt and options', async () => {
    const log = join(dir, 'claude.log');
    const acts = createActivities({
      env: hostEnv({ LL_T_TARGET: 'the build', FAKE_CLAUDE_LOG: log, LL_HOST_ARGS: '--verbose  --x' }),
    });
    const r = await acts.runAction(prompt({ agent: 'fixer', tools: ['Read', 'Edit'], model: 'sonnet' }));
    // The fake echoes its prompt; the value of LL_T_TARGET in it is masked (secret-mask.ts).
    expect(r).toMatchObject({ output: 'done: Fix *** now\n', exit_code: 0 });
    const call = JSON.parse(readFileSync(log, 'utf8').trim()) as { prompt: string; args: string[] };
    expect(call.prompt).toBe('Fix the build now');
    // The prompt arrives on stdin (host-cli.ts promptArgs): argv ends with the bare -p.
    expect(call.args).toEqual([
      '--verbose',
      '--x',
      '--dangerously-skip-permissions',
      '--output-format',
      'stream-json',
      '--verbose',
      '--model',
      'sonnet',
      '--agent',
      'fixer',
      '--tools',
      'Read,Edit',
      '-p',
    ]);
  });

  it('reports the host CLI exit code as a result', async () => {
    const acts = createActivities({
      env: hostEnv({ LL_T_TARGET: 'x', FAKE_CLAUDE_EXIT: '3', FAKE_CLAUDE_OUTPUT: 'nope' }),
    });
    expect(await acts.runAction(prompt())).toMatchObject({ output: 'nope', exit_code: 3 });
  });

  it('returns an error result for an undefined env reference in a prompt', async () => {
    const r = await createActivities({ env: hostEnv() }).runAction(prompt());
    expect(r.exit_code).toBe(2);
    expect(r.error).toContain('LL_T_TARGET');
  });

  it('returns 127 when the host CLI is not installed', async () => {
    const acts = createActivities({ env: { ...process.env, LL_HOST_CLI: 'no-such-claude-xyz', LL_T_TARGET: 'x' } });
    const r = await acts.runAction(prompt());
    expect(r.exit_code).toBe(127);
    expect(r.error).toBe(
      "host CLI 'no-such-claude-xyz' (LL_HOST_CLI) not found on PATH; install it, or set LL_HOST_CLI to the agent's path",
    );
  });

  it('parses verdicts in order, with confidence and the uncertain suffix', async () => {
    const verdicts = join(dir, 'verdicts.jsonl');
    writeFileSync(verdicts, '{"verdict":"no","confidence":0.3,"reason":"flaky"}\n{"verdict":"yes"}\n');
    const { evaluateLlm } = createActivities({ env: hostEnv({ FAKE_CLAUDE_VERDICTS: verdicts }) });
    const first = await evaluateLlm(judge({ uncertain_suffix: true }));
    expect(first).toEqual({
      judgement: {
        verdict: 'no',
        confidence: 0.3,
        reason: 'flaky',
        raw: { verdict: 'no', confidence: 0.3, reason: 'flaky' },
      },
    });
    const second = await evaluateLlm(judge({ uncertain_suffix: true }));
    expect(second).toMatchObject({ judgement: { verdict: 'yes', confidence: 1, reason: '' } });
    const third = await evaluateLlm(judge()); // lines used up: the fake's default
    expect(third).toMatchObject({ judgement: { verdict: 'yes', confidence: 0.9, reason: 'fake' } });
  });

  it("reads a prompt's JSON envelope: the result text is the output, cost and tokens its usage", async () => {
    const envelope = {
      type: 'result',
      subtype: 'success',
      is_error: false,
      duration_ms: 1200,
      num_turns: 2,
      result: 'Fixed it.',
      session_id: 's-1',
      total_cost_usd: 0.0123,
      usage: { input_tokens: 10, cache_creation_input_tokens: 100, cache_read_input_tokens: 1000, output_tokens: 42 },
    };
    const r = await createActivities({
      env: hostEnv({ LL_T_TARGET: 'x', FAKE_CLAUDE_OUTPUT: JSON.stringify(envelope) }),
    }).runAction(prompt());
    expect(r).toMatchObject({
      output: 'Fixed it.',
      exit_code: 0,
      usage: { cost_usd: 0.0123, input_tokens: 1110, output_tokens: 42, duration_ms: r.duration_ms },
    });
  });

  it('an LLM evaluation by the host CLI returns the usage its envelope states', async () => {
    const raw = JSON.stringify({
      type: 'result',
      subtype: 'success',
      is_error: false,
      structured_output: { verdict: 'yes', confidence: 0.9 },
      total_cost_usd: 0.004,
      usage: { input_tokens: 300, cache_read_input_tokens: 50, output_tokens: 20 },
    });
    const r = await createActivities({ env: hostEnv({ FAKE_CLAUDE_RAW: raw }) }).evaluateLlm(judge());
    expect(r).toMatchObject({
      judgement: { verdict: 'yes' },
      usage: { cost_usd: 0.004, input_tokens: 350, output_tokens: 20 },
    });
    expect(r.usage?.duration_ms).toBeGreaterThan(0);
  });

  it('reads a verdict from a fenced JSON block in `result`', async () => {
    const raw = JSON.stringify({ type: 'result', result: 'Here:\n```json\n{"verdict":"maybe","confidence":0.8}\n```' });
    const r = await createActivities({ env: hostEnv({ FAKE_CLAUDE_RAW: raw }) }).evaluateLlm(judge());
    expect(r).toMatchObject({ judgement: { verdict: 'maybe', confidence: 0.8 } });
  });

  it.each([
    ['unparseable output', { FAKE_CLAUDE_RAW: 'I think it worked' }, 'not JSON'],
    ['a missing verdict', { FAKE_CLAUDE_RAW: '{"structured_output":{"confidence":1}}' }, 'no string "verdict"'],
    [
      'a non-zero exit',
      { FAKE_CLAUDE_EXIT: '4', FAKE_CLAUDE_RAW: 'rate limited' },
      'exited with code 4; stdout: rate limited',
    ],
    [
      'a missing host CLI',
      { LL_HOST_CLI: 'no-such-claude-xyz' },
      "host CLI 'no-such-claude-xyz' (LL_HOST_CLI) not found",
    ],
  ])('turns %s into the error verdict', async (_name, env, message) => {
    const r = await createActivities({ env: hostEnv(env) }).evaluateLlm(judge());
    expect('error' in r && r.error).toContain(message);
  });

  it('turns a timeout into the error verdict', async () => {
    const r = await createActivities({ env: hostEnv({ FAKE_CLAUDE_SLEEP_MS: '5000' }) }).evaluateLlm(
      judge({ timeout_s: 0.5 }),
    );
    expect('error' in r && r.error).toContain('timed out');
  });
});
