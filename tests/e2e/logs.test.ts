/**
 * What the operator sees of actions' output, through the built binary in a temporary project:
 * `ll-loop logs` (stdout and stderr marked, with state, pass and exit code; `--state`; sub-loops;
 * the fallback to Temporal when the worker's files are gone; `--follow`), `run --verbose`/`--quiet`
 * and a failing check's last lines by default, and hostile output (escape sequences, CR, C1
 * controls) never reaching the terminal raw through `run`, `logs` or `history`.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runCliBinary } from '../support/cli.js';
import { freePort, waitFor } from '../support/processes.js';

let cwd: string;
let env: NodeJS.ProcessEnv;

function loop(name: string, yaml: string): void {
  writeFileSync(join(cwd, '.loops', `${name}.yaml`), yaml);
}

/** `ll-loop <args…>` in the test project. */
const cli = (args: string[]) => runCliBinary(args, { cwd, env });

/** The id of the run a `run` printed (`run <id> · …`). */
function runIdOf(stdout: string): string {
  const id = /^run (\S+)/m.exec(stdout)?.[1];
  expect(id).toBeDefined();
  return id!;
}

/** `ll-loop logs <id> --follow` started beside the test: what it has printed so far, and its exit. */
function follow(id: string): { out: () => string; err: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [BIN, 'logs', id, '--follow'], { cwd, env });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { out: () => out, err: () => err, exited };
}

/** Characters a terminal acts on (tab and newline aside). */
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

beforeAll(async () => {
  cwd = mkdtempSync(join(tmpdir(), 'll-loop-logs-'));
  mkdirSync(join(cwd, '.loops'));
  const { TEMPORAL_ADDRESS: _drop, ...rest } = process.env;
  env = {
    ...rest,
    LL_TEMPORAL_PORT: String(await freePort()),
    LL_TEMPORAL_UI_PORT: String(await freePort()),
    NO_COLOR: '1',
  };
  loop(
    'noisy',
    `name: noisy
description: prints on both streams, a lot once, then a check fails
initial: build
states:
  build:
    action: "echo build-out-marker; echo build-err-marker >&2"
    next: big
  big:
    action: "head -c 100000 /dev/zero | tr '\\\\0' z; echo; echo big-end-marker; echo big-err-marker >&2"
    next: sub
  sub:
    loop: inner
    on_yes: check
    on_no: check
  check:
    action: "for i in 1 2 3 4 5 6 7 8; do echo check-line-$i; done; echo check-err-marker >&2; exit 1"
    on_yes: done
    on_no: failed
  done:
    terminal: true
  failed:
    terminal: true
    failure: true
`,
  );
  loop(
    'inner',
    `name: inner
description: a sub-loop with one action
initial: hello
states:
  hello:
    action: "echo inner-out-marker"
    next: finish
  finish:
    terminal: true
`,
  );
});

afterAll(async () => {
  await cli(['worker', 'stop']);
  await cli(['server', 'stop']);
  rmSync(cwd, { recursive: true, force: true });
});

describe('ll-loop run: action output in the progress display', () => {
  let runId: string;

  it("shows a failing check's last 5 lines (each stream) by default, and not a passing action's", async () => {
    const r = await cli(['run', 'noisy']);
    expect(r.code).toBe(2);
    runId = runIdOf(r.stdout);
    expect(r.stdout).toContain('out│ … 3 more lines (ll-loop logs)\n       out│ check-line-4\n');
    expect(r.stdout).toContain('out│ check-line-8\n       err│ check-err-marker\n       ✗ no (exit 1)\n');
    expect(r.stdout).not.toContain('check-line-3');
    expect(r.stdout).not.toContain('out│ build-out-marker');
  });

  it('--verbose shows the last lines of every action, sub-loops included', async () => {
    const r = await cli(['run', 'noisy', '--verbose']);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(
      /\[1\/50\] build → echo build-out-marker.*\n {7}out│ build-out-marker\n {7}err│ build-err-marker\n/,
    );
    expect(r.stdout).toContain('out│ big-end-marker');
    expect(r.stdout, r.stderr).toContain('out│ inner-out-marker');
    expect(r.stdout).toContain('out│ check-line-1\n');
    // A quick sub-loop's lines come under the state that runs it, not before the parent's earlier ones.
    expect(r.stdout.indexOf('[1/50] sub → loop inner')).toBeGreaterThan(r.stdout.indexOf('out│ big-end-marker'));
    expect(r.stdout.indexOf('       [1/50] hello')).toBeGreaterThan(r.stdout.indexOf('[1/50] sub → loop inner'));
  });

  it('--quiet prints only the final line', async () => {
    const r = await cli(['run', 'noisy', '--quiet']);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/^Loop ended in failure state: failed \(1 iteration, [^)\n]+\)\n$/);
  });

  describe('ll-loop logs', () => {
    it('prints what each action wrote, stdout and stderr marked, with state, pass and exit code', async () => {
      const r = await cli(['logs', runId]);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(
        /=== build · pass 1 · exit 0 · \S+ ===\n--- stdout:\nbuild-out-marker\n--- stderr:\nbuild-err-marker\n/,
      );
      expect(r.stdout).toMatch(
        /=== check · pass 1 · exit 1 · \S+ ===\n--- stdout:\ncheck-line-1\n(check-line-\d\n){7}--- stderr:\ncheck-err-marker\n/,
      );
      // A sub-loop's action, named by its loop.
      expect(r.stdout).toMatch(/=== inner › hello · pass 1 · exit 0 · \S+ ===\n--- stdout:\ninner-out-marker\n/);
      // The big output comes whole from the worker's files (under the cap), not from the 64 KiB tail.
      expect(r.stdout).toMatch(
        /=== big · pass 1 · exit 0 · \S+ ===\n\(from \S+\/2-big\.log, \S+\/2-big\.stderr\.log: the whole output\)\n--- stdout:\nz{100000}\nbig-end-marker\n--- stderr:\nbig-err-marker\n/,
      );
    });

    it('--state shows only that state; a loop name means its latest run', async () => {
      const r = await cli(['logs', 'noisy', '--state', 'build']);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('build-out-marker');
      expect(r.stdout).not.toContain('check-line');
      expect(r.stdout).not.toContain('=== big');
      // A state the run does not have is refused, with the one meant; a sub-loop's state is one it has.
      const typo = await cli(['logs', 'noisy', '--state', 'buil']);
      expect(typo.code).toBe(1);
      expect(typo.stderr).toMatch(
        /^error: run \S+ has no state "buil" \(did you mean "build"\?\)\nfix: --state takes one of its states: big, build, check, done, failed, hello, sub\n$/,
      );
      const inner = await cli(['logs', 'noisy', '--state', 'hello']);
      expect(inner.code, inner.stderr).toBe(0);
      expect(inner.stdout).toContain('inner-out-marker');
    });

    it('--json is one object with every action', async () => {
      const r = await cli(['logs', runId, '--json']);
      expect(r.code).toBe(0);
      const report = JSON.parse(r.stdout) as {
        id: string;
        actions: Array<{
          state: string;
          exit_code: number;
          stdout: string;
          stderr: string;
          subloop?: { loop: string };
        }>;
      };
      expect(report.id).toBe(runId);
      expect(report.actions.map((a) => a.state)).toEqual(['build', 'big', 'hello', 'check']);
      expect(report.actions[0]).toMatchObject({
        state: 'build',
        exit_code: 0,
        stdout: 'build-out-marker\n',
        stderr: 'build-err-marker\n',
        source: 'history',
      });
      expect(report.actions[2]).toMatchObject({ subloop: { loop: 'inner', depth: 1 } });
    });

    it("falls back to the tail in Temporal when the worker's files are gone, saying where its output files were", async () => {
      rmSync(join(cwd, '.loops', '.running', runId), { recursive: true, force: true });
      const r = await cli(['logs', runId, '--state', 'big']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(
        /\(only the tail kept in Temporal is shown: the output files, which keep each stream's first and last MiB, are \S+\/2-big\.log, \S+\/2-big\.stderr\.log on the worker's machine, not found here\)/,
      );
      expect(r.stdout).toContain('big-end-marker');
      // The 64 KiB tail, not the whole 100,000 bytes. (A substring, not /z{70000}/: that regex
      // tries every start in 64 KiB of z's, ~9 s.)
      expect(r.stdout).not.toContain('z'.repeat(70_000));
      expect(r.stdout).toContain('z'.repeat(60_000));
    });
  });
});

describe('ll-loop logs --follow', () => {
  it('keeps printing actions until the run ends', async () => {
    // The second action ends once the follower has shown the first: it follows a run under way.
    const release = join(cwd, 'release-slow');
    loop(
      'slow',
      `name: slow
description: two actions, the second held until the test lets it end
initial: first
states:
  first:
    action: "echo first-marker"
    next: second
  second:
    action: "while [ ! -f ${release} ]; do sleep 0.05; done; echo second-marker"
    timeout: 120
    next: done
  done:
    terminal: true
`,
    );
    const started = await cli(['run', 'slow', '--background', '--json']);
    expect(started.code).toBe(0);
    const id = (JSON.parse(started.stdout) as { instance_id: string }).instance_id;
    const follower = follow(id);
    try {
      await waitFor('the follower to show the first action', () => follower.out().includes('first-marker'), 45_000, 50);
      expect(follower.out()).not.toContain('second-marker');
    } finally {
      writeFileSync(release, '');
    }
    expect(await follower.exited).toBe(0);
    expect(follower.out()).toContain('second-marker');
    expect(follower.err()).not.toContain('still running');
  });

  it("prints a running action's lines as they are written, before the action ends", async () => {
    const release = join(cwd, 'release-streaming');
    loop(
      'streaming',
      `name: streaming
description: prints a line, then waits for the test before it ends
initial: talk
states:
  talk:
    action: "echo early-marker; printf '<b>x\\\\033[2J</b>\\\\n'; while [ ! -f ${release} ]; do sleep 0.1; done; echo late-marker"
    timeout: 120
    next: done
  done:
    terminal: true
`,
    );
    const started = await cli(['run', 'streaming', '--background', '--json']);
    expect(started.code).toBe(0);
    const id = (JSON.parse(started.stdout) as { instance_id: string }).instance_id;
    const follower = follow(id);
    try {
      const deadline = Date.now() + 45_000;
      // Both lines are written before the action waits for the release file; they may come in
      // two reads of its live file, so wait for the second.
      while (!follower.out().includes('<b>x') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      // The action is still waiting for the release file: its lines came as they were written.
      const out = follower.out();
      expect(out, `${out}\n${follower.err()}`).toMatch(/=== talk · pass 1 · running ===\nearly-marker\n/);
      expect(out).not.toContain('late-marker');
      expect(out).toContain('<b>x\\x1b[2J</b>');
    } finally {
      writeFileSync(release, '');
    }
    expect(await follower.exited).toBe(0);
    expect(follower.out()).toMatch(
      /early-marker\n.*\nlate-marker\n=== talk · pass 1 · exit 0 · \S+ === \(its output is above, as written\)\n/,
    );
  }, 120_000);
});

describe('hostile output never reaches the terminal raw', () => {
  it('a run stopped in its first action: logs says no action finished before it ended, not "yet"', async () => {
    loop(
      'stopped-early',
      `name: stopped-early\ninitial: work\nstates:\n  work:\n    action: "echo working; sleep 300"\n    timeout: 400\n    next: done\n  done:\n    terminal: true\n`,
    );
    const started = await cli(['run', 'stopped-early', '--background', '--json']);
    expect(started.code, started.stderr).toBe(0);
    const id = (JSON.parse(started.stdout) as { instance_id: string }).instance_id;
    await waitFor('its action to run', async () => /action running/.test((await cli(['status', id])).stdout), 45_000);
    const stopped = await cli(['stop', id]);
    expect(stopped.code, stopped.stderr).toBe(0);
    const logs = await cli(['logs', id]);
    expect(logs.code, logs.stderr).toBe(0);
    expect(logs.stdout).toMatch(
      new RegExp(
        `^no action of ${id} finished before the run ended \\(\\w+\\); an action its end cut short keeps no output\\n$`,
      ),
    );
    // With --state naming the state its end cut short, the same reason, not "no action of state".
    const byState = await cli(['logs', id, '--state', 'work']);
    expect(byState.code, byState.stderr).toBe(0);
    expect(byState.stdout).toMatch(
      new RegExp(
        `^no action of state work in ${id} finished before the run ended \\(\\w+\\); an action its end cut short keeps no output\\n$`,
      ),
    );
  });

  it('history gives a run ended without a loop result (stop --force) the outcome its status means', async () => {
    loop(
      'forced',
      `name: forced\ninitial: work\nstates:\n  work:\n    action: "sleep 300"\n    timeout: 400\n    next: done\n  done:\n    terminal: true\n`,
    );
    const started = await cli(['run', 'forced', '--background', '--json']);
    expect(started.code, started.stderr).toBe(0);
    const id = (JSON.parse(started.stdout) as { instance_id: string }).instance_id;
    await waitFor('its action to run', async () => /action running/.test((await cli(['status', id])).stdout), 45_000);
    expect((await cli(['stop', id, '--force'])).code).toBe(0);
    const json = JSON.parse((await cli(['history', 'forced', '--json'])).stdout) as {
      id: string;
      status: string;
      outcome: string | null;
    }[];
    expect(json.find((r) => r.id === id)).toMatchObject({ status: 'terminated', outcome: 'stopped' });
    const row = (await cli(['history', 'forced'])).stdout.split('\n').find((l) => l.startsWith(id));
    expect(row).toMatch(/\bterminated\b.*\bstopped\b/);
  });

  it('escape sequences, CR, BEL and C1 controls are shown as escapes by run, logs and history', async () => {
    loop(
      'hostile',
      `name: hostile
description: prints what would retitle and clear a terminal, and passes it on
initial: evil
states:
  evil:
    action: "printf 'a\\\\033]0;pwned\\\\007b \\\\033[2J c\\\\rd \\\\302\\\\233e\\\\n'; printf 'err\\\\033[1;1H\\\\n' >&2; exit 1"
    capture: evil
    on_yes: done
    on_no: again
  again:
    action: "echo 'was: \${captured.evil.output}'"
    next: done
  done:
    terminal: true
`,
    );
    const run = await cli(['run', 'hostile', '--verbose']);
    expect(run.code).toBe(0);
    const id = runIdOf(run.stdout);
    const logs = await cli(['logs', id]);
    const history = await cli(['history', 'hostile', id]);
    for (const [name, out] of [
      ['run', run.stdout],
      ['logs', logs.stdout],
      ['history', history.stdout],
    ] as const) {
      expect(RAW_CONTROL.test(out), `${name} printed a raw control character`).toBe(false);
    }
    expect(run.stdout).toContain('out│ a\\x1b]0;pwned\\ab \\x1b[2J c\\rd \\x9be');
    expect(run.stdout).toContain('err│ err\\x1b[1;1H');
    expect(logs.stdout).toContain('a\\x1b]0;pwned\\ab \\x1b[2J c\\rd \\x9be\n');
    // history shows the interpolated action, which carries the captured output.
    expect(history.stdout).toContain('\\u001b]0;pwned\\u0007b \\u001b[2J c\\rd \\x9be');
    // JSON stays exact: the very characters, escaped by JSON.
    const json = JSON.parse((await cli(['logs', id, '--json'])).stdout) as { actions: Array<{ stdout: string }> };
    expect(json.actions[0]!.stdout).toBe('a\x1b]0;pwned\x07b \x1b[2J c\rd \u009be\n');
  });
});
