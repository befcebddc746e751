/**
 * `ll-loop init` as a user meets it: the built binary (run `npm run build` first) in projects
 * written here. `--yes` writes loops that `validate` accepts, `run --dry-run` plans and `run` runs
 * on the test run's Temporal server; a second run changes nothing; a project without checks gets
 * the message and exit code 1; without a terminal and without `--yes` the plan is printed, the
 * hint given, and nothing written.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { BIN, runCliBinary } from '../support/cli.js';

function projectWith(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'll-init-e2e-'));
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  return dir;
}

/** A Node project whose test script passes and whose lint script is a tool that is not installed. */
const NODE_PROJECT = {
  'package.json': JSON.stringify({
    name: 'demo',
    scripts: { test: 'node -e "process.exit(0)"', lint: 'never-installed-linter .', build: 'tsc' },
  }),
};

function cli(cwd: string, args: string[], extra: NodeJS.ProcessEnv = {}) {
  const { TEMPORAL_ADDRESS: _drop, ...rest } = process.env;
  return runCliBinary(args, { cwd, env: { ...rest, NO_COLOR: '1', ...extra } });
}

const HAVE_PTY = spawnSync('python3', ['-c', 'import pty'], { stdio: 'ignore' }).status === 0;

/** Runs argv[1:] on a pseudo-terminal, copies our stdin to it and its output to our stdout. */
const PTY_BRIDGE = `
import os, pty, select, sys
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
stdin_open = True
while True:
    ready, _, _ = select.select([fd] + ([0] if stdin_open else []), [], [])
    if 0 in ready:
        data = os.read(0, 4096)
        if data:
            os.write(fd, data)
        else:
            stdin_open = False
    if fd in ready:
        try:
            data = os.read(fd, 65536)
        except OSError:
            data = b''
        if not data:
            break
        os.write(1, data)
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))
`;

/**
 * `ll-loop init` on a terminal: answers `key` (then Enter) as soon as the question is on screen,
 * and resolves with the exit code and everything the terminal showed.
 */
function initOnTerminal(cwd: string, key: string): Promise<{ code: number; text: string }> {
  const child = spawn('python3', ['-c', PTY_BRIDGE, process.execPath, BIN, 'init'], {
    cwd,
    env: { ...process.env, TERM: 'xterm-256color', NO_COLOR: '1' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let raw = '';
  let answered = false;
  child.stdout.on('data', (d: Buffer) => {
    raw += d.toString();
    if (!answered && raw.includes('(y/N)')) {
      answered = true;
      child.stdin.write(`${key}\r`);
    }
  });
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      child.stdin.end();
      resolve({ code: code ?? -1, text: raw.replace(/\x1b\[[0-9;?]*[ -/]*[@-~]/g, '') });
    }),
  );
}

/** Each file of .loops/ with its text and modification time. */
function snapshot(cwd: string): Record<string, [string, number]> {
  const dir = join(cwd, '.loops');
  return Object.fromEntries(
    readdirSync(dir)
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => [f, [readFileSync(join(dir, f), 'utf8'), statSync(join(dir, f)).mtimeMs]]),
  );
}

describe('ll-loop init', () => {
  it('--yes writes loops from the built-ins that validate, plan and run; a second run changes nothing', async () => {
    const cwd = projectWith(NODE_PROJECT);
    const first = await cli(cwd, ['init', '--yes']);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/tests\s+npm test\s+package\.json scripts\.test/);
    expect(first.stdout).toMatch(/build\s+npm run build\s+package\.json scripts\.build/);
    expect(first.stdout).toMatch(/\.loops\/build\.yaml\s+from build\s+build_cmd="npm run build"\s+new/);
    expect(first.stdout).toMatch(
      /never-installed-linter: not installed \(install never-installed-linter or put it on PATH\)/,
    );
    expect(first.stdout).toContain(
      'wrote .loops/test-until-pass.yaml\nwrote .loops/fix-lint.yaml\nwrote .loops/build.yaml\n',
    );
    const written = snapshot(cwd);
    expect(Object.keys(written).sort()).toEqual(['build.yaml', 'fix-lint.yaml', 'test-until-pass.yaml']);
    expect(written['test-until-pass.yaml']?.[0]).toContain(
      'from: test-until-pass\nparameters:\n  test_cmd:\n    default: npm test\n',
    );

    for (const name of ['test-until-pass', 'fix-lint', 'build']) {
      const valid = await cli(cwd, ['validate', name]);
      expect(valid.stdout + valid.stderr).toContain(`.loops/${name}.yaml is valid`);
      expect(valid.code).toBe(0);
    }
    // No server is reachable on port 1: the plan needs none.
    const plan = await cli(cwd, ['run', 'fix-lint', '--dry-run', '--json'], { LL_TEMPORAL_PORT: '1' });
    expect(plan.code).toBe(0);
    const parsed = JSON.parse(plan.stdout) as { loop: string; context: Record<string, unknown> };
    expect(parsed.loop).toBe('fix-lint');
    expect(parsed.context).toMatchObject({ lint_cmd: 'npm run lint', fix_cmd: 'true' });

    // The project's passing test script: the loop ends at done on its first check.
    const run = await cli(cwd, ['run', 'test-until-pass', '--json'], { TEMPORAL_ADDRESS: inject('temporalAddress') });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      loop: 'test-until-pass',
      final_state: 'done',
      terminated_by: 'terminal',
    });

    const second = await cli(cwd, ['init', '--yes']);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('nothing to change');
    expect(second.stdout).not.toContain('wrote');
    expect(snapshot(cwd)).toEqual(written);
  });

  it('keeps a loop file that is already there and says so', async () => {
    const cwd = projectWith(NODE_PROJECT);
    mkdirSync(join(cwd, '.loops'));
    writeFileSync(join(cwd, '.loops', 'fix-lint.yaml'), 'name: fix-lint\n# mine\n');
    const r = await cli(cwd, ['init', '--yes']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\.loops\/fix-lint\.yaml\s+from fix-lint\s+.*kept \(already there\)/);
    expect(r.stdout).toContain(
      'wrote .loops/test-until-pass.yaml\nwrote .loops/build.yaml\nkept .loops/fix-lint.yaml (already there',
    );
    expect(readFileSync(join(cwd, '.loops', 'fix-lint.yaml'), 'utf8')).toBe('name: fix-lint\n# mine\n');
  });

  it('a project without recognisable checks gets the message, the next step and exit code 1', async () => {
    const cwd = projectWith({ 'README.md': '# notes\n' });
    const r = await cli(cwd, ['init', '--yes']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: no checks found in .*; looked for package\.json scripts/m);
    expect(r.stderr).toMatch(/^fix: write a loop for your check with ll-loop create/m);
    expect(readdirSync(cwd)).toEqual(['README.md']);
  });

  it('without a terminal and without --yes: the plan, the hint, nothing written', async () => {
    const cwd = projectWith(NODE_PROJECT);
    const r = await cli(cwd, ['init']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/\.loops\/test-until-pass\.yaml\s+from test-until-pass\s+test_cmd="npm test"\s+new/);
    expect(r.stderr).toContain('error: nothing written: there is no terminal to confirm on');
    expect(r.stderr).toContain('fix: re-run with --yes');
    expect(readdirSync(cwd)).toEqual(['package.json']);
  });

  it('--json reports what was found and proposed, and writes only with --yes', async () => {
    const cwd = projectWith({ 'go.mod': 'module example.com/demo\n' });
    const report = await cli(cwd, ['init', '--json']);
    expect(report.code).toBe(0);
    const parsed = JSON.parse(report.stdout) as {
      checks: unknown[];
      loops: Array<Record<string, unknown>>;
      written: string[];
    };
    expect(parsed.checks).toHaveLength(3);
    expect(parsed.loops.map((l) => [l.name, l.status, l.parameters])).toEqual([
      ['test-until-pass', 'new', { test_cmd: 'go test ./...' }],
      ['fix-lint', 'new', { lint_cmd: 'go vet ./...', fix_cmd: 'true' }],
      ['build', 'new', { build_cmd: 'go build ./...' }],
    ]);
    expect(parsed.written).toEqual([]);
    expect(readdirSync(cwd)).toEqual(['go.mod']);
    const wrote = JSON.parse((await cli(cwd, ['init', '--json', '--yes'])).stdout) as { written: string[] };
    expect(wrote.written).toEqual(['.loops/test-until-pass.yaml', '.loops/fix-lint.yaml', '.loops/build.yaml']);
  });

  it.skipIf(!HAVE_PTY)('on a terminal it asks y/N: "y" writes the loops, "n" writes nothing', async () => {
    const no = projectWith(NODE_PROJECT);
    const declined = await initOnTerminal(no, 'n');
    expect(declined.text).toContain('Write 3 loops into .loops/?');
    expect(declined.text).toContain('nothing written');
    expect(declined.code).toBe(0);
    expect(readdirSync(no)).toEqual(['package.json']);

    const yes = projectWith(NODE_PROJECT);
    const accepted = await initOnTerminal(yes, 'y');
    expect(accepted.text).toContain('wrote .loops/test-until-pass.yaml');
    expect(accepted.code).toBe(0);
    expect(Object.keys(snapshot(yes)).sort()).toEqual(['build.yaml', 'fix-lint.yaml', 'test-until-pass.yaml']);
  });

  it.skipIf(!HAVE_PTY)('Ctrl-C at the question writes nothing and exits as cancelled (6)', async () => {
    const cwd = projectWith(NODE_PROJECT);
    const r = await initOnTerminal(cwd, '\x03');
    expect(r.text).toContain('error: cancelled; nothing was written');
    expect(r.code).toBe(6);
    expect(readdirSync(cwd)).toEqual(['package.json']);
  });
});
