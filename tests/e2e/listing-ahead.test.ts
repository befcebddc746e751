/**
 * The guard's listing made ahead (activities/listing-ahead.ts) with the real action spawner and
 * git: after a guarded action, a check's burst ends and the spawner lists the checkout at once; the
 * next guarded action takes that listing and lists only after its agent, and still finds the test
 * it deleted and the one it added. Anything of the worker that runs between drops the listing.
 * Runs the built package (dist/): the spawner's entry is compiled JavaScript.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunActionInput } from '../../fsm/types.js';
import type { RunBurstInput } from '../../workflows/activity-types.js';
import { DIST, burstInputOf, fromDist } from '../support/dist-burst.js';

const { ActionSpawner } =
  await fromDist<typeof import('../../activities/action-spawner.js')>('activities/action-spawner.js');
const { makeRunAction } = await fromDist<typeof import('../../activities/run-action.js')>('activities/run-action.js');
const { burstRunner: makeRunBurst } =
  await fromDist<typeof import('../../activities/run-burst.js')>('activities/run-burst.js');
const { ListingAhead } =
  await fromDist<typeof import('../../activities/listing-ahead.js')>('activities/listing-ahead.js');
const ENTRY = join(DIST, 'activities', 'spawner-main.js');

const dir = mkdtempSync(join(tmpdir(), 'll-listing-ahead-'));
const repo = join(dir, 'repo');
/** Each `git` the spawner or this process starts notes itself here (a wrapper first on PATH). */
const calls = join(dir, 'git-calls');
const path = process.env.PATH;
const spawner = new ActionSpawner(ENTRY);

beforeAll(() => {
  mkdirSync(join(repo, 'tests'), { recursive: true });
  const git = (...args: string[]) => spawnSync('git', args, { cwd: repo, stdio: 'ignore' });
  git('init', '-q');
  writeFileSync(join(repo, 'calc.py'), 'def add(a, b):\n    return a - b\n');
  writeFileSync(join(repo, 'tests', 'test_calc.py'), 'def test_add():\n    assert add(2, 2) == 4\n');
  git('add', '.');
  const bin = join(dir, 'git-bin');
  mkdirSync(bin);
  const realGit = spawnSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).stdout.trim();
  writeFileSync(join(bin, 'git'), `#!/bin/sh\necho "$*" >> ${calls}\nexec ${realGit} "$@"\n`, { mode: 0o755 });
  // Before the spawner starts: it takes this PATH with it.
  process.env.PATH = `${bin}:${path}`;
});

afterAll(() => {
  spawner.close();
  process.env.PATH = path;
  rmSync(dir, { recursive: true, force: true });
});

/** The listings git made so far. */
const listings = (): number =>
  readFileSync(calls, 'utf8')
    .split('\n')
    .filter((line) => line.includes('ls-files')).length;

const env = { PATH: `${join(dir, 'git-bin')}:${path}`, HOME: process.env.HOME ?? dir };

/** A guarded shell action (the agent's part) running `script` in the checkout. */
const guarded = (script: string, step: number): RunActionInput =>
  ({
    kind: 'shell',
    state: 'fix',
    step,
    instanceId: 'listing-ahead',
    cwd: repo,
    timeout_s: 30,
    tamper_guard: 'fail',
    shell: { script, vars: {}, env: {} },
  }) as unknown as RunActionInput;

/** A burst of the loop's check (`true`) in the checkout. */
const checkBurst = (): RunBurstInput =>
  burstInputOf(
    {
      name: 'check',
      initial: 'check',
      states: { check: { action: 'true', timeout: 10, next: 'done' }, done: { terminal: true } },
    },
    { instanceId: 'listing-ahead', cwd: repo },
  );

describe('a guarded action after a check', () => {
  it('takes the listing the check left, lists once after its agent, and still finds what it changed', async () => {
    // Up first: a listing is made ahead only by the spawner.
    expect(
      (
        await spawner.launch({
          file: 'true',
          args: [],
          cwd: repo,
          env,
          timeoutMs: 5000,
          logPath: join(dir, 'l'),
          tailBytes: 64,
        })
      ).exit_code,
    ).toBe(0);
    expect(spawner.up).toBe(true);
    const ahead = new ListingAhead((cwd) => (spawner.up ? spawner.listFiles(cwd) : undefined));
    const runAction = makeRunAction({ env }, spawner.launchWhenReady, spawner.listFiles, () => spawner.hold(), ahead);
    const runBurst = makeRunBurst({ env }, { spawner }, ahead);
    writeFileSync(calls, '');

    // Pass 1: the agent changes only the code; nothing was listed ahead, so it lists before and after.
    const honest = await runAction(guarded('sed -i s/a - b/a + b/ calc.py', 1));
    expect(honest.tamper).toEqual({ findings: [] });
    expect(listings()).toBe(2);

    // The check's end lists the checkout for the guarded action that may come next.
    await runBurst(checkBurst());

    // Pass 2: the agent deletes the test and adds a conftest.py. It took the listing made ahead
    // (awaited before its agent ran) and listed once after it: four listings in all, not five.
    const cheat = await runAction(guarded('rm tests/test_calc.py; echo "collect_ignore = []" > conftest.py', 2));
    expect(cheat.tamper?.findings).toEqual([
      { path: 'conftest.py', kind: 'added' },
      { path: 'tests/test_calc.py', kind: 'deleted' },
    ]);
    expect(listings()).toBe(4);
  });

  it('lists for itself when anything else of the worker ran after the check', async () => {
    const ahead = new ListingAhead((cwd) => (spawner.up ? spawner.listFiles(cwd) : undefined));
    const runAction = makeRunAction({ env }, spawner.launchWhenReady, spawner.listFiles, () => spawner.hold(), ahead);
    const runBurst = makeRunBurst({ env }, { spawner }, ahead);
    const hook = ahead.around(async () => {
      writeFileSync(join(repo, 'tests', 'test_hook.py'), 'def test_hook():\n    pass\n');
    });
    writeFileSync(calls, '');
    await runAction(guarded('true', 1));
    await runBurst(checkBurst());
    // A notification hook (say) that writes a test file after the listing was made.
    await hook();
    const removed = await runAction(guarded('rm tests/test_hook.py', 2));
    // Its own listing before the agent saw the new file; the listing made ahead had not.
    expect(removed.tamper?.findings).toEqual([{ path: 'tests/test_hook.py', kind: 'deleted' }]);
    // Two listings each guarded action, and the one made ahead that was dropped.
    expect(listings()).toBe(5);
  });
});
