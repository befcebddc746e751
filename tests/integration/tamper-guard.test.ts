/**
 * `tamper_guard:` on a real workflow: an agent (a scripted host CLI that prints the real JSON
 * envelope, or a shell action) deletes or weakens a test. `fail` fails the state with a message
 * naming the file; `warn` records it and the run goes on; `revert` puts the file back; `allow`
 * records nothing. Project directories are a git checkout or a plain directory (walked).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeTemporal, definition, project, runLoop, toolEnv } from './harness.js';

afterAll(closeTemporal);

const TEST = 'def test_add():\n    assert add(2, 2) == 4\n    assert add(-1, 1) == 0\n';

/** A project with a source file and its test; a git checkout when `git` is set. */
function codebase(git: boolean) {
  const p = project();
  mkdirSync(join(p.cwd, 'tests'));
  writeFileSync(join(p.cwd, 'calc.py'), 'def add(a, b):\n    return a - b\n');
  writeFileSync(join(p.cwd, 'tests', 'test_calc.py'), TEST);
  if (git) {
    const run = (...args: string[]) => execFileSync('git', args, { cwd: p.cwd, stdio: 'ignore' });
    run('init', '-q');
    writeFileSync(join(p.cwd, '.gitignore'), 'bin/\ntools/\n.loops/\n');
    run('add', '.');
    run('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'start');
  }
  return p;
}

/** A host CLI whose agent "fixes" the bug by deleting the test, then prints Claude Code's envelope. */
function tamperingAgent(bin: string): string {
  const file = join(bin, 'tampering-agent');
  writeFileSync(
    file,
    '#!/bin/sh\ncat >/dev/null\nrm tests/test_calc.py\n' +
      'printf \'%s\\n\' \'{"type":"result","subtype":"success","is_error":false,"result":"All tests pass now."}\'\n',
  );
  chmodSync(file, 0o755);
  return file;
}

const fixLoop = (policy: string, action: Record<string, unknown>) =>
  definition({
    name: 'guarded-fix',
    initial: 'fix',
    tamper_guard: policy,
    states: {
      fix: { ...action, evaluate: { type: 'exit_code' }, on_yes: 'done', on_no: 'tampered', on_error: 'tampered' },
      done: { terminal: true },
      tampered: { terminal: true, failure: true },
    },
  });

const WEAKEN = { action: "sed -i 's/assert add(-1, 1) == 0/pass/' tests/test_calc.py" };

describe('tamper_guard', () => {
  it('fail: an agent that deletes a test fails the state, naming the file', async () => {
    const p = codebase(true);
    const agent = tamperingAgent(p.bin);
    const run = await runLoop(fixLoop('fail', { action: 'Make the tests pass', action_type: 'prompt' }), {
      cwd: p.cwd,
      env: toolEnv(p, { LL_HOST_CLI: agent }),
    });
    expect(existsSync(join(p.cwd, 'tests', 'test_calc.py'))).toBe(false);
    expect(run.result).toMatchObject({ final_state: 'tampered', failure: true });
    expect(run.events.find((e) => e.event === 'tamper_guard')).toMatchObject({
      state: 'fix',
      policy: 'fail',
      findings: ['deleted: tests/test_calc.py'],
    });
    expect(run.events.find((e) => e.event === 'action_error')).toMatchObject({
      error: expect.stringContaining('tamper_guard: fail: the action changed test files: tests/test_calc.py (deleted)'),
    });
  });

  it('warn: a weakened test is reported and the run goes on (not a git checkout)', async () => {
    const p = codebase(false);
    const run = await runLoop(fixLoop('warn', WEAKEN), { cwd: p.cwd, env: toolEnv(p) });
    expect(run.result).toMatchObject({ final_state: 'done', failure: false });
    expect(run.events.filter((e) => e.event === 'tamper_guard')).toEqual([
      expect.objectContaining({ state: 'fix', policy: 'warn', findings: ['modified: tests/test_calc.py'] }),
    ]);
    expect(run.events.some((e) => e.event === 'action_error')).toBe(false);
  });

  it('revert: the weakened test is put back and the run goes on', async () => {
    const p = codebase(true);
    const run = await runLoop(fixLoop('revert', WEAKEN), { cwd: p.cwd, env: toolEnv(p) });
    expect(run.result).toMatchObject({ final_state: 'done', failure: false });
    expect(readFileSync(join(p.cwd, 'tests', 'test_calc.py'), 'utf8')).toBe(TEST);
    expect(run.events.find((e) => e.event === 'tamper_guard')).toMatchObject({
      policy: 'revert',
      findings: ['modified: tests/test_calc.py'],
      reverted: ['tests/test_calc.py'],
    });
  });

  it('allow: nothing is checked or recorded', async () => {
    const p = codebase(true);
    const run = await runLoop(fixLoop('allow', { action: 'rm tests/test_calc.py' }), { cwd: p.cwd, env: toolEnv(p) });
    expect(run.result).toMatchObject({ final_state: 'done', failure: false });
    expect(run.events.some((e) => e.event === 'tamper_guard')).toBe(false);
  });

  it('fail: an action that fixes the code and leaves the tests alone passes', async () => {
    const p = codebase(true);
    const run = await runLoop(fixLoop('fail', { action: "sed -i 's/a - b/a + b/' calc.py" }), {
      cwd: p.cwd,
      env: toolEnv(p),
    });
    expect(run.result).toMatchObject({ final_state: 'done', failure: false });
    expect(run.events.some((e) => e.event === 'tamper_guard')).toBe(false);
  });
});
