/**
 * Human states through the built binary, on an embedded dev server of this file's own: a run
 * waits for a person (its notify hook runs, `inbox` and `list --waiting` list it, `status` says
 * since when with the command that answers), `ll-loop answer` answers it, and answers that cannot
 * be given are one-line errors with a fix and exit 1, never a stack trace.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../support/cli.js';
import { useOwnServerProject } from '../support/own-server-project.js';
import { waitFor } from '../support/processes.js';
import { waitForRunEvent } from '../support/run-events.js';

let cwd: string;

const project = useOwnServerProject('ll-loop-e2e-human-', { startServer: true });

/** `ll-loop <args>` in the project. */
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
    const started = await cli(['run', 'approve', '--background', '--json']);
    expect(started.code, started.stderr).toBe(0);
    const id = (JSON.parse(started.stdout) as { instance_id: string }).instance_id;

    await waitForRunEvent(cwd, id, 'human_wait');
    let inbox = await cli(['inbox', '--json']);
    await waitFor(
      'the run in the inbox',
      async () => (inbox = await cli(['inbox', '--json'])).stdout.includes(id),
      60_000,
    );
    const entries = JSON.parse(inbox.stdout) as Array<Record<string, unknown>>;
    expect(entries[0]).toMatchObject({
      run: id,
      state: 'review',
      prompt: 'Ship it?',
      answer: `ll-loop answer ${id} yes | no`,
    });
    expect(entries[0]!.deadline).toEqual(expect.any(String));
    expect((await cli(['inbox'])).stdout).toMatch(/RUN\s+STATE\s+WAITING SINCE\s+DEADLINE\s+QUESTION/);
    expect((await cli(['list', '--waiting'])).stdout).toContain(id);
    // From another project: not in its inbox; with --all-projects, the command that answers goes there first.
    const elsewhere = mkdtempSync(join(tmpdir(), 'll-loop-e2e-human-other-'));
    mkdirSync(join(elsewhere, '.loops'));
    expect((await project.cli(['inbox', '--json'], elsewhere)).stdout).not.toContain(id);
    const everyone = JSON.parse((await project.cli(['inbox', '--all-projects', '--json'], elsewhere)).stdout) as Array<
      Record<string, unknown>
    >;
    expect(everyone.find((e) => e.run === id)).toMatchObject({ answer: `cd ${cwd} && ll-loop answer ${id} yes | no` });

    const status = await cli(['status', id]);
    expect(status.stdout).toMatch(/state:\s+review \(waiting for you since .* \(deadline .*\)\)/);
    expect(status.stdout).toContain('question:     Ship it?');
    expect(status.stdout).toContain(`answer:       ll-loop answer ${id} yes | no`);

    await waitFor('the notify hook', () => existsSync(join(cwd, 'notified.txt')), 60_000);
    expect(readFileSync(join(cwd, 'notified.txt'), 'utf8')).toBe(`Ship it?|ll-loop answer ${id} yes | no`);

    const wrong = await cli(['answer', id, '--choice', 'ship']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/^error: the question asks for an approval, not "choice": answer yes \| no\nfix: /);
    expect(wrong.stderr).not.toMatch(/\n\s+at /);
    const noRun = await cli(['answer', 'no-such-run-123', 'yes']);
    expect(noRun.code).toBe(1);
    expect(noRun.stderr).toMatch(/^error: .*no-such-run-123/);
    expect(noRun.stderr).not.toMatch(/\n\s+at /);

    const answered = await cli(['answer', 'approve', 'yes']);
    expect(answered.code, answered.stderr).toBe(0);
    expect(answered.stdout).toMatch(new RegExp(`^answered ${id} in state review: yes \\(by .+@.+\\)`));
    await waitFor('the run to apply', () => existsSync(join(cwd, 'applied.txt')), 60_000);
    expect(readFileSync(join(cwd, 'applied.txt'), 'utf8')).toMatch(/^answered yes by .+@.+/);
    await waitForRunEvent(cwd, id, 'loop_complete');
    await waitFor('the run to finish', async () => !(await cli(['list', '--running'])).stdout.includes(id), 60_000);

    const again = await cli(['answer', id, 'no']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(
      /^error: run .* no longer waits in state "review": it was already answered by .+@.+ at .* \(the first answer wins\); it has finished in state "done" \(succeeded\)\n/,
    );
    const history = await cli(['history', id]);
    expect(history.stdout).toMatch(/human_wait/);
    expect(history.stdout).toMatch(/human_answer/);
    // logs shows a person's part between the actions' output, and in --json under `people`.
    const logs = await cli(['logs', id]);
    expect(logs.stdout).toMatch(/=== review · waiting for a person until .* \(approval\): Ship it\? ===/);
    expect(logs.stdout).toMatch(/=== review · answered yes by .+@.+ after .* ===/);
    const logsJson = JSON.parse((await cli(['logs', id, '--json'])).stdout) as {
      people: Array<Record<string, unknown>>;
    };
    expect(logsJson.people.map((p) => p.event)).toEqual(['human_wait', 'human_answer']);
    expect(logsJson.people[1]!.fields).toMatchObject({ verdict: 'yes', latency_ms: expect.any(Number) });
  }, 180_000);

  it('an answer after the deadline to a run that has since finished is told so, and where the run ended', async () => {
    writeFileSync(
      join(cwd, '.loops', 'hurry.yaml'),
      [
        'name: hurry',
        'initial: review',
        'states:',
        '  review:',
        '    action_type: human',
        '    prompt: "Quick?"',
        '    timeout: 1',
        '    on_yes: done',
        '    on_no: dropped',
        '  dropped:',
        '    terminal: true',
        '  done:',
        '    terminal: true',
        '',
      ].join('\n'),
    );
    const started = await cli(['run', 'hurry', '--background', '--json']);
    expect(started.code, started.stderr).toBe(0);
    const id = (JSON.parse(started.stdout) as { instance_id: string }).instance_id;
    await waitForRunEvent(cwd, id, 'loop_complete');
    await waitFor('the run to finish', async () => (await cli(['status', id])).stdout.includes('completed'), 60_000);
    const late = await cli(['answer', id, 'yes']);
    expect(late.code).toBe(1);
    expect(late.stderr).toMatch(
      new RegExp(
        `^error: run ${id} no longer waits in state "review": nobody answered by its deadline \\(.+\\); it has finished in state "dropped" \\(succeeded\\)\nfix: `,
      ),
    );
  }, 120_000);

  it('ll-loop run on a terminal asks the question inline and sends the answer through the same update', async () => {
    const pty = join(import.meta.dirname, '..', 'support', 'pty-run.py');
    // Asynchronously: a blocked test process cannot report to its runner for minutes.
    const child = spawn(
      'python3',
      [pty, 'or later with ll-loop answer): ', 'no', '150', process.execPath, BIN, 'run', 'approve'],
      {
        cwd,
        env: project.env,
      },
    );
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stdout).toContain('Ship it?');
    // The terminal's line editor may move the cursor before echoing the answer.
    expect(stdout).toMatch(/answer \(yes \| no, or later with ll-loop answer\): (\x1b\[\d+G)?no/);
    expect(stdout).toContain('answered no');
    expect(stdout).toMatch(/Loop completed: dropped/);
    expect(status, stdout).toBe(0);
  }, 180_000);
});
