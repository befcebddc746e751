/**
 * Secrets stay secret and huge values reach actions (issue 12 §3, §4), on the real dev server with
 * real processes: prompts never in the host CLI's argv, `${env.*}` values masked wherever an
 * action's output is kept (Temporal history, run files, full-output logs), `--context` values
 * passed as data, and values far above the argv/environment limits arriving intact.
 */
import { actionJournalDir } from '../../worker/create-worker.js';
import { journalFile } from '../../activities/action-journal.js';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { filesUnder, historyText } from '../support/leak-scan.js';
import { closeTemporal, definition, project, runLoop, temporal, toolEnv } from './harness.js';

afterAll(closeTemporal);

const sha = (s: string): string => createHash('sha256').update(s, 'utf8').digest('hex');

describe('secrets stay secret', () => {
  it('masks ${env.*} values an action prints (stdout, stderr, captured, full log) in history and under .loops/', async () => {
    const p = project();
    const secret = `tok-${Date.now()}-sEcReT`;
    const def = definition({
      name: 'leaky',
      initial: 'direct',
      states: {
        // References the secret and prints it three ways; the value is captured.
        direct: {
          action: 'echo "token is ${env.API_TOKEN}"; echo "err ${env.API_TOKEN}" >&2; printf %s "${env.API_TOKEN}"',
          capture: 'tok',
          next: 'indirect',
        },
        // Names no variable, yet prints the worker's API_TOKEN: the loop references it elsewhere.
        indirect: { action: 'echo "again $API_TOKEN"; echo "$API_TOKEN" >&2', capture: 'again', next: 'huge' },
        // Over the 64 KiB tail: the full output goes to a file under .loops/.running/, masked too.
        huge: {
          action: 'for i in $(seq 1 8000); do echo "line $i $API_TOKEN"; done; echo "${env.API_TOKEN}" >&2',
          next: 'done',
        },
        done: { terminal: true },
      },
    });
    const run = await runLoop(def, { cwd: p.cwd, env: { API_TOKEN: secret }, maskLoopEnv: true });
    expect(run.result.final_state).toBe('done');
    expect(run.result.captured.tok).toMatchObject({ output: 'token is ***\n***', stderr: 'err ***' });
    expect(run.result.captured.again).toMatchObject({ output: 'again ***', stderr: '***' });

    const files = filesUnder(join(p.cwd, '.loops'));
    const logs = files.filter((f) => f.endsWith('.log'));
    expect(logs.length).toBeGreaterThan(0);
    expect(readFileSync(logs[0]!, 'utf8')).toContain('line 8000 ***\n');
    expect(files.some((f) => f.endsWith('.events.jsonl'))).toBe(true);
    for (const f of files) expect(readFileSync(f, 'utf8'), f).not.toContain(secret);

    const history = await historyText((await temporal()).client, run.workflowId);
    expect(history).toContain('token is ***');
    expect(history).not.toContain(secret);

    // The worker's journal of completed actions (activities/action-journal.ts) holds the masked results.
    // The run's own entries: one directory per run (journalFile), not the whole test run's journal.
    const { runId } = await (await temporal()).client.workflow.getHandle(run.workflowId).describe();
    const runJournal = dirname(
      journalFile(actionJournalDir(), { workflowId: run.workflowId, runId, activityId: 'any' }),
    );
    const journal = filesUnder(runJournal).filter((f) =>
      readFileSync(f, 'utf8').includes(`"workflow_id":"${run.workflowId}"`),
    );
    expect(journal.length).toBeGreaterThanOrEqual(3);
    for (const f of journal) expect(readFileSync(f, 'utf8'), f).not.toContain(secret);
    expect(journal.some((f) => readFileSync(f, 'utf8').includes('token is ***'))).toBe(true);
  });

  it('never puts a prompt in the host CLI argv; its echo of a secret is masked', async () => {
    const p = project();
    const secret = `pr0mpt-${Date.now()}-secret`;
    const cmdlines = join(p.cwd, 'cmdlines.jsonl');
    const def = definition({
      name: 'agent',
      initial: 'ask',
      states: {
        ask: {
          action: 'Deploy with key ${env.DEPLOY_KEY} please',
          action_type: 'prompt',
          capture: 'reply',
          evaluate: { type: 'llm_structured' },
          on_yes: 'done',
          on_no: 'done',
        },
        done: { terminal: true },
      },
    });
    const run = await runLoop(def, {
      cwd: p.cwd,
      env: toolEnv(p, { DEPLOY_KEY: secret, FAKE_CLAUDE_CMDLINE_LOG: cmdlines }),
      maskLoopEnv: true,
    });
    expect(run.result.final_state).toBe('done');
    // The fake read its own /proc/self/cmdline while it ran: once for the prompt, once as judge.
    const seen = readFileSync(cmdlines, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as string);
    expect(seen).toHaveLength(2);
    for (const cmd of seen) {
      expect(cmd).toContain(' -p');
      expect(cmd).not.toContain(secret);
      expect(cmd).not.toContain('Deploy with key');
    }
    // The fake echoes the prompt it read from stdin: the key is masked before anything keeps it.
    expect(run.result.captured.reply?.output).toBe('done: Deploy with key *** please');
    for (const f of filesUnder(join(p.cwd, '.loops'))) expect(readFileSync(f, 'utf8'), f).not.toContain(secret);
    expect(await historyText((await temporal()).client, run.workflowId)).not.toContain(secret);
  });
});

describe('command-line context is data', () => {
  it('a --context value with shell syntax reaches the action literally and runs nothing', async () => {
    const p = project();
    const value = 'a"; touch F; echo "$(touch G)';
    const def = definition({
      name: 'ctx',
      initial: 'use',
      context: { x: value, from_file: 'echo code > H' },
      states: {
        use: { action: 'printf %s "${context.x}" > seen.txt; ${context.from_file}', next: 'done' },
        done: { terminal: true },
      },
    });
    const run = await runLoop(def, { cwd: p.cwd, dataContext: ['x'] });
    expect(run.result.final_state).toBe('done');
    expect(readFileSync(join(p.cwd, 'seen.txt'), 'utf8')).toBe(value);
    expect(existsSync(join(p.cwd, 'F'))).toBe(false);
    expect(existsSync(join(p.cwd, 'G'))).toBe(false);
    // Context written in the loop file stays author code.
    expect(readFileSync(join(p.cwd, 'H'), 'utf8')).toBe('code\n');
  });
});

describe('huge values reach the action intact', () => {
  it('a 1 MB --context value and 64 KiB of non-UTF-8 captured output (no spawn E2BIG)', async () => {
    const p = project();
    const big = `${'ünï "$(x)" \\ line\n'.repeat(60_000)}end\n\n`;
    expect(Buffer.byteLength(big)).toBeGreaterThan(1_000_000);
    const def = definition({
      name: 'huge',
      initial: 'ctx',
      context: { big },
      states: {
        ctx: { action: 'printf %s "${context.big}" | sha256sum | cut -c1-64', capture: 'ctxsum', next: 'produce' },
        // Random bytes all >= 0x80: nearly all invalid UTF-8.
        produce: {
          action: "head -c 65536 /dev/urandom | tr '\\000-\\177' '\\200-\\377'",
          capture: 'bin',
          next: 'check',
        },
        check: {
          action: 'printf %s "${captured.bin.output}" | sha256sum | cut -c1-64; printf %s "${prev.output}" | wc -c',
          capture: 'binsum',
          next: 'done',
        },
        done: { terminal: true },
      },
    });
    const run = await runLoop(def, { cwd: p.cwd, dataContext: ['big'] });
    expect(run.result.final_state).toBe('done');
    expect(run.result.captured.ctxsum?.output).toBe(sha(big));
    const bin = run.result.captured.bin?.output ?? '';
    // Decoded lossily: invalid bytes became U+FFFD, 3 bytes each: far above one argument's 128 KiB.
    expect(Buffer.byteLength(bin)).toBeGreaterThan(128 * 1024);
    const [sum, prevBytes] = (run.result.captured.binsum?.output ?? '').split('\n');
    expect(sum).toBe(sha(bin));
    // prev.output is the unchomped output: the same bytes, perhaps plus a final newline.
    expect(Number(prevBytes) - Buffer.byteLength(bin)).toBeGreaterThanOrEqual(0);
    expect(Number(prevBytes) - Buffer.byteLength(bin)).toBeLessThanOrEqual(1);
  }, 60_000);
});
