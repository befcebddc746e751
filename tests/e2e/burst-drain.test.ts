/**
 * A drained burst (activities/burst-loop.ts BurstControl.drain: a person's pause or steer reached
 * the run while the actions after an action ran, activities/burst-after.ts): the running action
 * ends as it would, its fact is the burst's last, and no action starts after it — in the worker's
 * action spawner (the drain crosses its channel) as in the worker. Runs the built package (dist/).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { BurstControl as Control } from '../../activities/burst-loop.js';
import type { BurstFact } from '../../fsm/run/burst.js';
import type { RunBurstInput } from '../../workflows/activity-types.js';
import { ActionSpawner, BurstControl, DIST, burstInWorker, burstInputOf } from '../support/dist-burst.js';
import { waitFor } from '../support/processes.js';

const dir = mkdtempSync(join(tmpdir(), 'll-burst-drain-'));
const spawner = new ActionSpawner(join(DIST, 'activities', 'spawner-main.js'));
afterAll(() => {
  spawner.close();
  rmSync(dir, { recursive: true, force: true });
});

/** a → b → c → done, each appending its name to `log`; a waits for the file `go` before it ends. */
function burstInput(log: string, go: string): RunBurstInput {
  return burstInputOf(
    {
      name: 'burst-drain',
      description: 'a burst drained while its first action runs',
      initial: 'a',
      default_timeout: 20,
      states: {
        a: { action: `echo a >> ${log}; while [ ! -f ${go} ]; do sleep 0.02; done; echo ran-a`, next: 'b' },
        b: { action: `echo b >> ${log}`, next: 'c' },
        c: { action: `echo c >> ${log}`, next: 'done' },
        done: { terminal: true },
      },
    },
    { instanceId: 'burst-drain-test', cwd: dir },
  );
}

type Run = (
  input: RunBurstInput,
  control: Control,
  onFact: (fact: BurstFact, state: string) => void,
) => Promise<unknown>;

const inSpawner: Run = (input, control, onFact) =>
  spawner.burst(input, { PATH: process.env.PATH ?? '' }, control, onFact);
const inWorker: Run = burstInWorker;

const ran = (log: string): string[] => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : []);

describe('a burst drained while an action runs', () => {
  it.each([
    ['in the spawner', inSpawner],
    ['in the worker', inWorker],
  ])('%s: ends after that action, with its fact, and starts none after it', async (_, run) => {
    const name = Math.random().toString(36).slice(2);
    const log = join(dir, `ran-${name}.log`);
    const go = join(dir, `go-${name}`);
    const control = new BurstControl();
    const facts: Array<[string, string]> = [];
    const ended = run(burstInput(log, go), control, (f, state) => facts.push([state, f.result.output]));
    // Drained while a runs (it has begun: its line is in the log); then a may end.
    await waitFor('the first action to start', () => ran(log).includes('a'), 20_000, 20);
    control.drain();
    writeFileSync(go, '');
    expect(await ended).toEqual({ ended: 'done' });
    expect(facts).toEqual([['a', 'ran-a\n']]);
    expect(ran(log)).toEqual(['a']);
  });

  it.each([
    ['in the spawner', inSpawner],
    ['in the worker', inWorker],
  ])('%s: undrained, runs the whole chain', async (_, run) => {
    const name = Math.random().toString(36).slice(2);
    const log = join(dir, `ran-${name}.log`);
    const go = join(dir, `go-${name}`);
    writeFileSync(go, '');
    const facts: string[] = [];
    expect(await run(burstInput(log, go), new BurstControl(), (_f, state) => facts.push(state))).toEqual({
      ended: 'done',
    });
    expect(facts).toEqual(['a', 'b', 'c']);
    expect(ran(log)).toEqual(['a', 'b', 'c']);
  });
});
