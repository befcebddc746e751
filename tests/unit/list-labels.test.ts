/**
 * `ll-loop list --label L` filters the loops listed by their `labels:`, the project's and the
 * built-in catalog's: repeated or as a comma list (the same), a loop listed when it has every one.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../errors/exit-codes.js';
import { runCliInProcess } from '../support/cli.js';

function projectWithLoops(): string {
  const cwd = mkdtempSync(join(tmpdir(), 'll-loop-labels-'));
  mkdirSync(join(cwd, '.loops'));
  const loop = (name: string, labels?: string) =>
    writeFileSync(
      join(cwd, '.loops', `${name}.yaml`),
      `name: ${name}\n${labels ? `labels: ${labels}\n` : ''}initial: a\nstates:\n  a:\n    terminal: true\n`,
    );
  loop('alpha', '[fast, lint]');
  loop('beta', '[fast]');
  loop('gamma');
  return cwd;
}

async function names(argv: string[], cwd: string): Promise<string[]> {
  const r = await runCliInProcess([...argv, '--json'], { cwd });
  expect(r.code, r.stderr).toBe(EXIT.ok);
  return (JSON.parse(r.stdout) as Array<{ name: string }>).map((l) => l.name);
}

describe('ll-loop list --label', () => {
  it("filters the project's loops: repeated and comma lists are the same, every label must be there", async () => {
    const cwd = projectWithLoops();
    expect(await names(['list', '--label', 'fast'], cwd)).toEqual(['alpha', 'beta']);
    expect(await names(['list', '--label', 'fast', '--label', 'lint'], cwd)).toEqual(['alpha']);
    expect(await names(['list', '--label', 'fast,lint'], cwd)).toEqual(['alpha']);
    expect(await names(['list', '--label', 'lint, fast'], cwd)).toEqual(['alpha']);
    expect(await names(['list', '--label', 'slow'], cwd)).toEqual([]);
    const table = await runCliInProcess(['list', '--label', 'fast'], { cwd });
    expect(table.stdout).toMatch(/^NAME\s+CATEGORY\s+LABELS\s+DESCRIPTION/);
    expect(table.stdout).toMatch(/alpha\s+-\s+fast,lint/);
    expect(table.stdout).toMatch(/beta\s+-\s+fast/);
    expect(table.stdout).not.toContain('gamma');
    expect((await runCliInProcess(['list', '--label', 'slow'], { cwd })).stdout).toBe('no loops match\n');
  });

  it('filters the built-in catalog', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'll-loop-labels-'));
    // Every built-in but bisect-regression, which runs no agent.
    expect(await names(['list', '--builtin', '--label', 'agent'], cwd)).toEqual([
      'build',
      'check-matrix',
      'code-run-gate',
      'complexity-ratchet',
      'coverage-up',
      'dead-code',
      'dependency-upgrades',
      'docs-sync',
      'fan-out-files',
      'file-task',
      'fix-bug',
      'fix-lint',
      'fix-types',
      'flaky-tests',
      'format',
      'general-task',
      'incremental-refactor',
      'migrate-usage',
      'perf-guard',
      'reduce-errors',
      'review-and-fix',
      'security-advisories',
      'stricter-types',
      'test-until-pass',
    ]);
    expect(await names(['list', '--builtin', '--label', 'agent,tests'], cwd)).toEqual([
      'check-matrix',
      'complexity-ratchet',
      'coverage-up',
      'dead-code',
      'dependency-upgrades',
      'fan-out-files',
      'file-task',
      'fix-bug',
      'flaky-tests',
      'general-task',
      'incremental-refactor',
      'migrate-usage',
      'perf-guard',
      'security-advisories',
      'stricter-types',
      'test-until-pass',
    ]);
    expect(await names(['list', '--builtin', '--label', 'until-pass', '--label', 'types'], cwd)).toEqual([
      'check-matrix',
      'fix-types',
    ]);
    expect((await runCliInProcess(['list', '--builtin', '--label', 'nothing-has-this'], { cwd })).stdout).toBe(
      'no built-in loops match\n',
    );
  });

  it('refuses an empty label, and labels with --running or --failed', async () => {
    const cwd = projectWithLoops();
    for (const given of ['', 'fast,', ',']) {
      const r = await runCliInProcess(['list', '--label', given], { cwd });
      expect(r.code).toBe(EXIT.usage);
      expect(r.stderr).toContain('--label needs a label name');
    }
    expect((await runCliInProcess(['list', '--running', '--label', 'fast'], { cwd })).code).toBe(EXIT.usage);
    expect((await runCliInProcess(['list', '--failed', '--label', 'fast'], { cwd })).code).toBe(EXIT.usage);
  });

  it('--all-projects widens --running and --failed only', async () => {
    const r = await runCliInProcess(['list', '--all-projects'], { cwd: projectWithLoops() });
    expect(r.code).toBe(EXIT.usage);
    expect(r.stderr).toContain('--all-projects widens --running and --failed');
  });
});
