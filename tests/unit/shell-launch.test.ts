import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  INLINE_SCRIPT_BYTES,
  INLINE_VALUE_BYTES,
  prepareShell,
  sweepDeadActionDirs,
} from '../../activities/shell-launch.js';

const dir = mkdtempSync(join(tmpdir(), 'll-shell-launch-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sha = (s: string | Buffer): string => createHash('sha256').update(s).digest('hex');

/** Runs the launch as the activity does: bash with the args, the launch's env added. */
function run(script: string, values: Record<string, string>): { out: string; files: string[]; modes: number[] } {
  const launch = prepareShell(script, values, dir);
  const files = readdirSync(dir).flatMap((d) => readdirSync(join(dir, d)).map((f) => join(dir, d, f)));
  const modes = files.map((f) => statSync(f).mode & 0o777);
  try {
    const out = execFileSync('bash', launch.args, {
      env: { ...process.env, ...launch.env },
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    return { out, files, modes };
  } finally {
    launch.cleanup();
    for (const f of files) expect(existsSync(f)).toBe(false);
  }
}

describe('prepareShell', () => {
  it('keeps small values in the environment and the script in argv, as before', () => {
    const launch = prepareShell('echo "$LL_V1"', { LL_V1: 'x' }, dir);
    expect(launch).toMatchObject({ args: ['-c', 'echo "$LL_V1"'], env: { LL_V1: 'x' } });
    launch.cleanup();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('passes a 1 MB value byte for byte through a 0600 file (not argv or the environment)', () => {
    // Newlines, trailing newlines, backslashes, quotes, leading blanks and multi-byte characters.
    const big = '  \\n "quoted" \'single\' $(touch x) ünïcödé ✓ \t\r\n'.repeat(25_000) + '\n\n';
    expect(Buffer.byteLength(big)).toBeGreaterThan(1_000_000);
    const launch = prepareShell('printf %s "${LL_V1}"', { LL_V1: big, LL_V2: 'small' }, dir);
    expect(launch.env).toEqual({ LL_V2: 'small' });
    expect(launch.args.join(' ')).not.toContain('ünïcödé');
    launch.cleanup();
    const r = run('printf %s "${LL_V1}" | sha256sum; printf "%s" "$LL_V2"', { LL_V1: big, LL_V2: 'small' });
    expect(r.out).toBe(`${sha(big)}  -\nsmall`);
    expect(r.modes).toEqual([0o600]);
  });

  it('moves values to files once together they would overfill the environment', () => {
    const values: Record<string, string> = {};
    for (let i = 1; i <= 40; i++) values[`LL_V${i}`] = String(i % 10).repeat(INLINE_VALUE_BYTES - 100);
    const launch = prepareShell('true', values, dir);
    const inEnv = Object.values(launch.env).reduce((n, v) => n + v.length, 0);
    launch.cleanup();
    expect(inEnv).toBeLessThanOrEqual(256 * 1024);
    const r = run('for i in $(seq 1 40); do v=LL_V$i; printf "%s\\n" "${!v}"; done | sha256sum', values);
    expect(r.out).toBe(
      `${sha(
        Object.values(values)
          .map((v) => `${v}\n`)
          .join(''),
      )}  -\n`,
    );
  });

  it('sources a large script from a file', () => {
    const script = `x=1\n# ${'c'.repeat(INLINE_SCRIPT_BYTES)}\necho "$0 $x"`;
    const launch = prepareShell(script, {}, dir);
    expect(launch.args[1]).toMatch(/^\. '/);
    launch.cleanup();
    expect(run(script, {}).out).toBe('bash 1\n');
  });
});

describe('sweepDeadActionDirs', () => {
  it("removes the value files of a process that is gone, never a live one's, and a legacy directory only once a day old", () => {
    const tmp = mkdtempSync(join(tmpdir(), 'll-shell-sweep-'));
    try {
      // A process that has exited: its pid is free (a pid reused since would keep its directory).
      const dead = Number(execFileSync('bash', ['-c', 'echo $$'], { encoding: 'utf8' }).trim());
      const made = (name: string): string => {
        mkdirSync(join(tmp, name));
        writeFileSync(join(tmp, name, 'v1'), 'a secret value', { mode: 0o600 });
        return name;
      };
      const ofDead = made(`ll-loop-action-${dead}-AbC123`);
      const ofLive = made(`ll-loop-action-${process.ppid}-AbC123`);
      const legacyOld = made('ll-loop-action-Old123');
      const legacyNew = made('ll-loop-action-New123');
      const other = made(`ll-loop-other-${dead}-AbC123`);
      const dayAgo = (Date.now() - 25 * 3600_000) / 1000;
      utimesSync(join(tmp, legacyOld), dayAgo, dayAgo);
      // One this process made itself, while its action runs.
      const launch = prepareShell('true', { LL_V1: 'x'.repeat(INLINE_VALUE_BYTES + 1) }, tmp);
      const own = readdirSync(tmp).find((n) => n.startsWith(`ll-loop-action-${process.pid}-`));
      expect(own).toBeDefined();

      expect(sweepDeadActionDirs(tmp).sort()).toEqual([legacyOld, ofDead].sort());
      expect(readdirSync(tmp).sort()).toEqual([legacyNew, ofLive, other, own!].sort());
      launch.cleanup();
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
