/**
 * The gate of a shell action as bash's own start-up file (activities/spawn-gate.ts `gatedSpawn`):
 * bash is started directly, without an `sh` before it, and the action starts exactly as it did
 * behind the `sh` gate — same variables, same `$_`, no BASH_ENV and no fd 3 left to it, same exit
 * codes, signals and messages — and never runs when the gate closes unopened. Anything that
 * changes bash's start-up (a BASH_ENV of the user's, posix mode) keeps the `sh` gate. Real processes.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { GATE_CLOSED_EXIT, GATE_SHELL, gateArgs, gatedSpawn, openGate } from '../../activities/spawn-gate.js';
import { runProcess } from '../../activities/process.js';

const dir = mkdtempSync(join(tmpdir(), 'll-bash-gate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Ran {
  out: string;
  err: string;
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Runs `file args` with fd 3 as the gate: opened (a line written) or closed unopened. */
function run(
  plan: { file: string; args: string[]; env: Record<string, string | undefined> },
  open: boolean,
): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(plan.file, plan.args, {
      cwd: dir,
      env: plan.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ out, err, code, signal }));
    const gate = child.stdio[3] as unknown as Writable;
    if (open) openGate(gate);
    else gate.end();
  });
}

const env = { ...process.env, LL_V1: 'a value', _: '/usr/bin/node' };
const throughSh = (script: string) => ({ file: GATE_SHELL, args: gateArgs('bash', ['-c', script]), env });

describe('a shell action behind its gate', () => {
  it('starts bash itself, the gate its start-up file', () => {
    const plan = gatedSpawn('bash', ['-c', 'true'], env);
    expect(plan.file).toBe('bash');
    expect(plan.args).toEqual(['-c', 'true']);
    expect(plan.env.BASH_ENV).toMatch(/gate\.bash$/);
    // Any other program is started by the `sh` gate, as before.
    expect(gatedSpawn('claude', ['-p'], env).file).toBe(GATE_SHELL);
  });

  it.each([
    ['variables, $_, $0, SHLVL, flags and options', 'echo "[$_] $0 $SHLVL $- $? $LINENO"; set -o | tr -s " \\t" " "'],
    ['no BASH_ENV and no fd 3 in the action or its children', 'env | grep -c -e ^BASH_ENV= -e ^LL_V1=; ls /proc/$$/fd'],
    ['the environment its children see', 'env | grep -v -e "^_=" | sort'],
    ['an exit code', 'echo out; echo err >&2; exit 7'],
    ['a death by a signal', 'kill -TERM $$'],
    ['a syntax error and its message', 'echo a; if then'],
    ['an unbound variable under set -u', 'set -u; echo "$nope"'],
    ['BASH_SOURCE and caller in a function', 'f() { caller; echo "${BASH_SOURCE[@]}|${BASH_LINENO[@]}"; }; f'],
  ])('runs as it ran behind the sh gate: %s', async (_what, script) => {
    const direct = await run(gatedSpawn('bash', ['-c', script], env), true);
    expect(direct).toEqual(await run(throughSh(script), true));
  });

  it('never runs the action when the gate closes unopened', async () => {
    const marker = join(dir, 'ran');
    const ran = await run(gatedSpawn('bash', ['-c', `touch ${marker}`], env), false);
    expect(ran.code).toBe(GATE_CLOSED_EXIT);
    expect(existsSync(marker)).toBe(false);
  });

  it.each([
    ['a BASH_ENV of the user’s (still read by the action)', { BASH_ENV: join(dir, 'user-env.bash') }],
    ['posix mode', { POSIXLY_CORRECT: '1' } as Record<string, string>],
    ['SHELLOPTS', { SHELLOPTS: 'braceexpand:hashall' } as Record<string, string>],
  ])('keeps the sh gate with %s', async (_what, extra) => {
    writeFileSync(join(dir, 'user-env.bash'), 'echo from-user-bash-env\n');
    const plan = gatedSpawn('bash', ['-c', 'echo action'], { ...env, ...extra });
    expect(plan.file).toBe(GATE_SHELL);
    const ran = await run(plan, true);
    expect(ran.out).toBe(extra.BASH_ENV ? 'from-user-bash-env\naction\n' : 'action\n');
  });

  it('runProcess gives a bash action the gate file, and a rewritten one if it was removed', async () => {
    const first = await runProcess({
      file: 'bash',
      args: ['-c', 'echo "$BASH_ENV|$_"'],
      cwd: dir,
      env: {},
      timeoutMs: 10_000,
      logPath: join(dir, 'a.log'),
    });
    expect(first).toMatchObject({ exit_code: 0, output: '|\n' });
    const gate = gatedSpawn('bash', [], env).env.BASH_ENV!;
    rmSync(gate);
    const again = await runProcess({
      file: 'bash',
      args: ['-c', 'echo again'],
      cwd: dir,
      env: {},
      timeoutMs: 10_000,
      logPath: join(dir, 'b.log'),
    });
    expect(again).toMatchObject({ exit_code: 0, output: 'again\n' });
    expect(existsSync(gate)).toBe(true);
  });

  it('fails to start bash as the sh gate did: not on PATH, not executable, no working directory', async () => {
    const base = { args: ['-c', 'true'], timeoutMs: 10_000, logPath: join(dir, 'c.log') };
    const noExec = join(dir, 'no-exec');
    mkdirSync(noExec, { recursive: true });
    writeFileSync(join(noExec, 'bash'), '#!/bin/sh\n', { mode: 0o644 });
    const failures = await Promise.all([
      runProcess({ ...base, file: 'bash', cwd: dir, env: { PATH: join(dir, 'nowhere') } }).catch((e: unknown) => e),
      runProcess({ ...base, file: 'bash', cwd: dir, env: { PATH: noExec } }).catch((e: unknown) => e),
      runProcess({ ...base, file: 'bash', cwd: join(dir, 'gone'), env: {} }).catch((e: unknown) => e),
    ]);
    expect(failures).toMatchObject([
      { name: 'SpawnError', reason: 'not_found', code: 'ENOENT' },
      { name: 'SpawnError', reason: 'other', code: 'EACCES' },
      { name: 'SpawnError', reason: 'cwd' },
    ]);
  });
});
