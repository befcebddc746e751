/**
 * The gate directories a killed worker or spawner leaves in the temporary directory are removed
 * by the next process that makes one (activities/spawn-gate.ts `sweepDeadGateDirs`): only those of
 * processes that are gone, never a live process's or anything else there. Real processes.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { gatedSpawn, sweepDeadGateDirs } from '../../activities/spawn-gate.js';

const dir = mkdtempSync(join(tmpdir(), 'll-gate-sweep-'));
const live = spawn('sleep', ['60'], { stdio: 'ignore' });
afterAll(() => {
  live.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

it("removes a gone process's gate directory, and keeps a live one's and everything else", () => {
  const deadPid = spawnSync('true').pid!;
  const made = (name: string) => {
    mkdirSync(join(dir, name));
    writeFileSync(join(dir, name, 'gate.bash'), ':\n');
    return name;
  };
  const dead = made(`ll-loop-gate-${deadPid}-aB3dE9`);
  const kept = [
    made(`ll-loop-gate-${live.pid}-Zz9Yy8`),
    made(`ll-loop-gate-${process.pid}-Qq1Ww2`),
    made('ll-loop-gate-Xk2m9P'), // an earlier release's, whose process cannot be told
    made(`ll-loop-gate-${deadPid}-abc`), // not a name the gate makes
    made('something-else'),
  ];
  sweepDeadGateDirs(dir);
  expect(existsSync(join(dir, dead))).toBe(false);
  for (const name of kept) expect(existsSync(join(dir, name)), name).toBe(true);
});

it("names this process's own gate directory by its pid", () => {
  const plan = gatedSpawn('bash', ['-c', 'true'], {});
  expect(plan.env.BASH_ENV).toMatch(new RegExp(`/ll-loop-gate-${process.pid}-[A-Za-z0-9]{6}/gate\\.bash$`));
});
