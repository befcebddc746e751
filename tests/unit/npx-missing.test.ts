/**
 * A shell action whose `npx --no -- tool` finds no installed tool ends with exit 127 (command not
 * found), as a shell's missing command does, so the built-ins' not-runnable routes take it; npm
 * itself exits 1 there, as a failing check does. A check that fails for its own reasons keeps its
 * exit code.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeRunAction } from '../../activities/run-action.js';
import { runProcess } from '../../activities/process.js';
import { NPX_MISSING_NOTE, npxMissingAsNotFound } from '../../activities/npx-missing.js';
import type { ActionResult, RunActionInput } from '../../fsm/types.js';

const shell = (cwd: string, script: string): RunActionInput =>
  ({
    kind: 'shell',
    state: 'check',
    step: 1,
    instanceId: 'npx-missing-20261202T000000',
    cwd,
    timeout_s: 120,
    shell: { script, vars: {}, env: {} },
  }) as unknown as RunActionInput;

const run = makeRunAction({ envFor: () => ({ PATH: process.env.PATH, HOME: process.env.HOME }) }, runProcess);

describe('npx --no with nothing installed to run', () => {
  it('ends a shell action with exit 127 and says why, in a project without the tool', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'll-npx-missing-'));
    writeFileSync(join(cwd, 'package.json'), '{ "name": "p", "version": "1.0.0" }\n');
    const r = await run(shell(cwd, 'npx --no -- eslint .'));
    expect(r.stderr).toContain('npx canceled due to missing packages');
    expect(r.exit_code).toBe(127);
    expect(r.stderr).toContain(NPX_MISSING_NOTE);
  }, 60_000);

  it('keeps the exit code of a check that fails, of npm failing otherwise, and of a timeout', () => {
    const base: ActionResult = { output: '', stderr: '', exit_code: 1, duration_ms: 5 };
    const failing = { ...base, stderr: 'src/a.ts(1,1): error TS2304\n' };
    expect(npxMissingAsNotFound(failing)).toBe(failing);
    // npm's words early in a long stderr (a test that ran npx itself) are not the action's end.
    const early = {
      ...base,
      stderr: `npm error npx canceled due to missing packages and no YES option: ["x@1"]\n${'FAIL t\n'.repeat(8)}`,
    };
    expect(npxMissingAsNotFound(early)).toBe(early);
    const npxWords = 'npm error npx canceled due to missing packages and no YES option: ["tsc@2.0.4"]\n';
    expect(npxMissingAsNotFound({ ...base, exit_code: 2, stderr: npxWords }).exit_code).toBe(2);
    expect(npxMissingAsNotFound({ ...base, timed_out: true, stderr: npxWords }).exit_code).toBe(1);
    expect(npxMissingAsNotFound({ ...base, stderr: npxWords }).exit_code).toBe(127);
    expect(npxMissingAsNotFound({ ...base, stderr: 'npm ERR! canceled\n' }).exit_code).toBe(127);
  });
});
