/**
 * A human state's notification hook (activities/notify-human.ts): its placeholders arrive as
 * data whatever quoting they stand in, the worker's LL_NOTIFY is the default, and a failing hook
 * is reported, never thrown.
 */
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeNotifyHuman } from '../../activities/notify-human.js';

const base = (cwd: string) => ({
  runId: 'review-20261125T120000',
  state: 'review',
  prompt: `Ship it? '; touch pwned; echo '$(touch pwned2)`,
  answer: 'll-loop answer review-20261125T120000 yes | no',
  cwd,
});

describe('notifyHuman', () => {
  it('passes the prompt, run id, state and command as data, in single quotes, double quotes or bare', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'll-notify-'));
    const r = await makeNotifyHuman({})({
      ...base(cwd),
      command: `printf '%s\\n' '\${prompt}' "\${run_id}" \${state} > out.txt; printf '%s' "$LL_ANSWER_COMMAND" >> out.txt`,
    });
    expect(r).toEqual({ ran: true, exit_code: 0 });
    expect(readFileSync(join(cwd, 'out.txt'), 'utf8')).toBe(
      `Ship it? '; touch pwned; echo '$(touch pwned2)\nreview-20261125T120000\nreview\nll-loop answer review-20261125T120000 yes | no`,
    );
    expect(existsSync(join(cwd, 'pwned'))).toBe(false);
    expect(existsSync(join(cwd, 'pwned2'))).toBe(false);
  });

  it("uses the worker's LL_NOTIFY when the state and loop give no hook; nothing without either", async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'll-notify-'));
    const viaEnv = await makeNotifyHuman({ LL_NOTIFY: 'printf %s "$LL_RUN_ID" > env.txt' })(base(cwd));
    expect(viaEnv).toEqual({ ran: true, exit_code: 0 });
    expect(readFileSync(join(cwd, 'env.txt'), 'utf8')).toBe('review-20261125T120000');
    expect(await makeNotifyHuman({})(base(cwd))).toEqual({ ran: false });
  });

  it('reports a failing hook instead of throwing', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'll-notify-'));
    const r = await makeNotifyHuman({})({ ...base(cwd), command: 'echo broken >&2; exit 3' });
    expect(r).toMatchObject({ ran: true, exit_code: 3, error: expect.stringContaining('broken') });
  });
});
