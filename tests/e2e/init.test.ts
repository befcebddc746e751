/**
 * `ll-loop init` as a user meets it: the built binary (run `npm run build` first) in projects
 * written here. `--yes` writes loops that `validate` accepts, `run --dry-run` plans and `run` runs
 * on the test run's Temporal server; a second run changes nothing; a project without checks gets
 * the message and exit code 1; without a terminal and without `--yes` the plan is printed, the
 * hint given, and nothing written.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { runCliBinary } from '../support/cli.js';

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
    expect(first.stdout).toMatch(
      /build\s+npm run build\s+package\.json scripts\.build\s+\(no built-in loop works on build/,
    );
    expect(first.stdout).toMatch(/never-installed-linter: not installed \(install never-installed-linter or put it on PATH\)/);
    expect(first.stdout).toContain('wrote .loops/test-until-pass.yaml\nwrote .loops/fix-lint.yaml\n');
    const written = snapshot(cwd);
    expect(Object.keys(written).sort()).toEqual(['fix-lint.yaml', 'test-until-pass.yaml']);
    expect(written['test-until-pass.yaml']?.[0]).toContain(
      'from: test-until-pass\nparameters:\n  test_cmd:\n    default: npm test\n',
    );

    for (const name of ['test-until-pass', 'fix-lint']) {
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
    expect(r.stdout).toContain('wrote .loops/test-until-pass.yaml\nkept .loops/fix-lint.yaml');
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
    ]);
    expect(parsed.written).toEqual([]);
    expect(readdirSync(cwd)).toEqual(['go.mod']);
    const wrote = JSON.parse((await cli(cwd, ['init', '--json', '--yes'])).stdout) as { written: string[] };
    expect(wrote.written).toEqual(['.loops/test-until-pass.yaml', '.loops/fix-lint.yaml']);
  });
});
