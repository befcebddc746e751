/**
 * Human states through the built binary, on an embedded dev server of this file's own: a run
 * waits for a person (its notify hook runs, `inbox` and `list --waiting` list it, `status` says
 * since when with the command that answers), `ll-loop answer` answers it, and answers that cannot
 * be given are one-line errors with a fix and exit 1, never a stack trace.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { useOwnServerProject } from '../support/own-server-project.js';
import { waitFor } from '../support/processes.js';

let cwd: string;

const project = useOwnServerProject('ll-loop-e2e-human-', { startServer: true });
const cli = (args: string[]) => project.cli(args);

beforeAll(() => {
  cwd = project.cwd;
  writeFileSync(
    join(cwd, '.loops', 'approve.yaml'),
    [
      'name: approve',
      'description: asks before applying',
      'initial: review',
      'states:',
      '  review:',
      '    action_type: human',
      '    prompt: "Ship it?"',
      '    timeout: 3600',
      `    notify: "printf '%s|%s' '\${prompt}' \\"\${command}\\" > notified.txt"`,
      '    on_yes: apply',
      '    on_no: dropped',
      '  apply:',
      '    action: echo "answered ${captured.review.answer} by ${captured.review.by}" > applied.txt',
      '    next: done',
      '  dropped:',
      '    terminal: true',
      '  done:',
      '    terminal: true',
      '',
    ].join('\n'),
  );
});

describe('a run waiting for a person', () => {
  it('is notified, listed by inbox, shown by status, answered by ll-loop answer; bad answers are one-line errors', async () => {
    const started = cli(['run', 'approve', '--background', '--json']);
    expect(started.code, started.stderr).toBe(0);
    const id = (JSON.parse(started.stdout) as { instance_id: string }).instance_id;

    let inbox = cli(['inbox', '--json']);
    await waitFor('the run in the inbox', () => (inbox = cli(['inbox', '--json'])).stdout.includes(id), 60_000);
    const entries = JSON.parse(inbox.stdout) as Array<Record<string, unknown>>;
    expect(entries[0]).toMatchObject({
      run: id,
      state: 'review',
      prompt: 'Ship it?',
      answer: `ll-loop answer ${id} yes | no`,
    });
    expect(entries[0]!.deadline).toEqual(expect.any(String));
    expect(cli(['inbox']).stdout).toMatch(/RUN\s+STATE\s+WAITING SINCE\s+DEADLINE\s+QUESTION/);
    expect(cli(['list', '--waiting']).stdout).toContain(id);

    const status = cli(['status', id]);
    expect(status.stdout).toMatch(/state:\s+review \(waiting for you since .* \(deadline .*\)\)/);
    expect(status.stdout).toContain('question:     Ship it?');
    expect(status.stdout).toContain(`answer:       ll-loop answer ${id} yes | no`);

    await waitFor('the notify hook', () => existsSync(join(cwd, 'notified.txt')), 60_000);
    expect(readFileSync(join(cwd, 'notified.txt'), 'utf8')).toBe(`Ship it?|ll-loop answer ${id} yes | no`);

    const wrong = cli(['answer', id, '--choice', 'ship']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/^error: the question asks for an approval, not "choice": answer yes \| no\nfix: /);
    expect(wrong.stderr).not.toMatch(/\n\s+at /);
    const noRun = cli(['answer', 'no-such-run-123', 'yes']);
    expect(noRun.code).toBe(1);
    expect(noRun.stderr).toMatch(/^error: .*no-such-run-123/);
    expect(noRun.stderr).not.toMatch(/\n\s+at /);

    const answered = cli(['answer', 'approve', 'yes']);
    expect(answered.code, answered.stderr).toBe(0);
    expect(answered.stdout).toMatch(new RegExp(`^answered ${id} in state review: yes \\(by .+@.+\\)`));
    await waitFor('the run to apply', () => existsSync(join(cwd, 'applied.txt')), 60_000);
    expect(readFileSync(join(cwd, 'applied.txt'), 'utf8')).toMatch(/^answered yes by .+@.+/);
    await waitFor('the run to finish', () => !cli(['list', '--running']).stdout.includes(id), 60_000);

    const again = cli(['answer', id, 'no']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^error: run .* is not waiting for an answer: it has finished/);
    const history = cli(['history', id]);
    expect(history.stdout).toMatch(/human_wait/);
    expect(history.stdout).toMatch(/human_answer/);
  }, 180_000);

  it('ll-loop run on a terminal asks the question inline and sends the answer through the same update', () => {
    const bin = join(import.meta.dirname, '..', '..', 'bin', 'll-loop.js');
    const ran = spawnSync(
      'python3',
      [
        join(import.meta.dirname, '..', 'support', 'pty-run.py'),
        'or later with ll-loop answer): ',
        'no',
        '150',
        process.execPath,
        bin,
        'run',
        'approve',
      ],
      { cwd, env: project.env, encoding: 'utf8', timeout: 170_000 },
    );
    expect(ran.stdout).toContain('Ship it?');
    expect(ran.stdout).toMatch(/answer \(yes \| no, or later with ll-loop answer\): no/);
    expect(ran.stdout).toContain('answered no');
    expect(ran.stdout).toMatch(/Loop completed: dropped/);
    expect(ran.status, ran.stdout).toBe(0);
  }, 180_000);
});
