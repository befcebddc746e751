/**
 * A shell action running ESLint in a project without its configuration ends with exit 127 (it
 * cannot run), as a missing tool does, so the built-ins' not-runnable routes take it instead of
 * sending the agent after it. ESLint itself exits 2 then; lint problems (exit 1) and other exits
 * keep their code.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeRunAction } from '../../activities/run-action.js';
import { runProcess } from '../../activities/process.js';
import { NOT_CONFIGURED_NOTE, notConfiguredAsNotRunnable } from '../../activities/checker-not-configured.js';
import type { ActionResult, RunActionInput } from '../../fsm/types.js';

/** This checkout's ESLint, run where no eslint.config.* is found (a fresh directory in /tmp). */
const ESLINT = join(process.cwd(), 'node_modules', '.bin', 'eslint');

const shell = (cwd: string, script: string): RunActionInput =>
  ({
    kind: 'shell',
    state: 'lint',
    step: 1,
    instanceId: 'not-configured-20261202T000000',
    cwd,
    timeout_s: 120,
    shell: { script, vars: {}, env: {} },
  }) as unknown as RunActionInput;

const run = makeRunAction({ envFor: () => ({ PATH: process.env.PATH, HOME: process.env.HOME }) }, runProcess);

const project = (files: Record<string, string>) => {
  const cwd = mkdtempSync(join(tmpdir(), 'll-not-configured-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(cwd, name), text);
  return cwd;
};

describe('a checker without its configuration', () => {
  it('ESLint with no eslint.config.* ends a shell action with exit 127 and says why', async () => {
    const r = await run(shell(project({ 'a.js': 'let a = 1;\n' }), `"${ESLINT}" .`));
    expect(r.exit_code, r.stderr).toBe(127);
    expect(r.stderr).toContain("ESLint couldn't find an eslint.config");
    expect(r.stderr).toContain(NOT_CONFIGURED_NOTE);
  }, 60_000);

  it('ESLint that finds problems keeps its exit code', async () => {
    const cwd = project({
      'a.js': 'debugger;\n',
      'eslint.config.js': 'module.exports = [{ rules: { "no-debugger": "error" } }];\n',
    });
    const r = await run(shell(cwd, `"${ESLINT}" .`));
    expect(r.exit_code, r.stderr).toBe(1);
    expect(r.stderr).not.toContain(NOT_CONFIGURED_NOTE);
  }, 60_000);

  it('keeps the exit code of other failures, of the words early in a long stderr, and of a timeout', () => {
    const words = "ESLint couldn't find an eslint.config.* file.\n";
    const base: ActionResult = { output: '', stderr: words, exit_code: 2, duration_ms: 5 };
    expect(notConfiguredAsNotRunnable(base).exit_code).toBe(127);
    expect(notConfiguredAsNotRunnable({ ...base, exit_code: 1 }).exit_code).toBe(1);
    expect(notConfiguredAsNotRunnable({ ...base, timed_out: true }).exit_code).toBe(2);
    const early = { ...base, stderr: `${words}${'FAIL t\n'.repeat(30)}` };
    expect(notConfiguredAsNotRunnable(early)).toBe(early);
    const other = { ...base, stderr: 'Oops! Something went wrong! :(\nTypeError: x is not a function\n' };
    expect(notConfiguredAsNotRunnable(other)).toBe(other);
  });
});
