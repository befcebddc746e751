/**
 * A shell action where npm finds nothing to run ends with exit 127 (command not found), as a
 * shell's missing command does, so the built-ins' not-runnable routes take it: `npx --no -- tool`
 * with the tool not installed, `npm test` with no test script or no package.json. npm itself exits
 * 1 (or 254), as a failing check does. A check that fails for its own reasons keeps its exit code.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeRunAction } from '../../activities/run-action.js';
import { runProcess } from '../../activities/process.js';
import { NOTHING_TO_RUN_NOTE, npmNothingToRunAsNotFound } from '../../activities/npm-nothing-to-run.js';
import type { ActionResult, RunActionInput } from '../../fsm/types.js';

const shell = (cwd: string, script: string): RunActionInput =>
  ({
    kind: 'shell',
    state: 'check',
    step: 1,
    instanceId: 'npm-nothing-20261202T000000',
    cwd,
    timeout_s: 120,
    shell: { script, vars: {}, env: {} },
  }) as unknown as RunActionInput;

/**
 * Offline: npx looks the missing tool up in the registry before it refuses to install it, and a
 * unit test must not wait on the network (CI's Node 24 tier waited out 60 s on it). The lookup
 * is answered from npm's cache, which the project's own install filled.
 */
const run = makeRunAction(
  { envFor: () => ({ PATH: process.env.PATH, HOME: process.env.HOME, npm_config_offline: 'true' }) },
  runProcess,
);

const nodeProject = (scripts: Record<string, string> = {}) => {
  const cwd = mkdtempSync(join(tmpdir(), 'll-npm-nothing-'));
  writeFileSync(join(cwd, 'package.json'), JSON.stringify({ name: 'p', version: '1.0.0', scripts }));
  return cwd;
};

describe('npm with nothing to run', () => {
  it.each([
    ['npx --no -- eslint .', 'a tool that is not installed', nodeProject()],
    ['npm test', 'no test script', nodeProject({ build: 'true' })],
    ['npm test', 'no package.json', mkdtempSync(join(tmpdir(), 'll-npm-nothing-'))],
    // npm's advice after "Missing script" lists similar commands (`npm star`, `npm stars`).
    ['npm start', 'no start script', nodeProject({ build: 'true' })],
  ])(
    '`%s` with %s ends a shell action with exit 127 and says why',
    async (command, _why, cwd) => {
      const r = await run(shell(cwd, command));
      expect(r.exit_code, r.stderr).toBe(127);
      expect(r.stderr).toContain(NOTHING_TO_RUN_NOTE);
    },
    60_000,
  );

  it('a script that runs and fails keeps its exit code', async () => {
    const r = await run(shell(nodeProject({ test: 'echo "1 failing" >&2; exit 1' }), 'npm test'));
    expect(r.exit_code).toBe(1);
    expect(r.stderr).not.toContain(NOTHING_TO_RUN_NOTE);
  }, 60_000);

  it('keeps the exit code of a check that fails, of npm failing otherwise, and of a timeout', () => {
    const base: ActionResult = { output: '', stderr: '', exit_code: 1, duration_ms: 5 };
    const failing = { ...base, stderr: 'src/a.ts(1,1): error TS2304\n' };
    expect(npmNothingToRunAsNotFound(failing)).toBe(failing);
    // npm's words early in a long stderr (a test that ran npx itself) are not the action's end.
    const early = {
      ...base,
      stderr: `npm error npx canceled due to missing packages and no YES option: ["x@1"]\n${'FAIL t\n'.repeat(12)}`,
    };
    expect(npmNothingToRunAsNotFound(early)).toBe(early);
    const npxWords = 'npm error npx canceled due to missing packages and no YES option: ["tsc@2.0.4"]\n';
    expect(npmNothingToRunAsNotFound({ ...base, exit_code: 2, stderr: npxWords }).exit_code).toBe(2);
    expect(npmNothingToRunAsNotFound({ ...base, timed_out: true, stderr: npxWords }).exit_code).toBe(1);
    expect(npmNothingToRunAsNotFound({ ...base, stderr: npxWords }).exit_code).toBe(127);
    expect(npmNothingToRunAsNotFound({ ...base, stderr: 'npm ERR! canceled\n' }).exit_code).toBe(127);
    expect(npmNothingToRunAsNotFound({ ...base, stderr: 'npm ERR! Missing script: "test"\n' }).exit_code).toBe(127);
  });
});
