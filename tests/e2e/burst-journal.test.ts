/**
 * A burst given its journaled first actions (activities/burst-loop.ts, `journaled`): those are
 * delivered again, marked `redelivered`, and only the rest run — in the worker's action spawner
 * (the journal crosses its channel) as in the worker. The run-level promise (a burst whose
 * completion was lost runs no completed action again) is tests/integration/action-journal.test.ts.
 * Runs the built package (dist/): the spawner's entry is compiled JavaScript.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { BurstFact } from '../../fsm/run/burst.js';
import type { ActionResult } from '../../fsm/types.js';
import type { JournaledAction } from '../../activities/action-journal.js';
import type { RunBurstInput } from '../../workflows/activity-types.js';
import { ActionSpawner, BurstControl, DIST, burstInWorker, burstInputOf } from '../support/dist-burst.js';

const dir = mkdtempSync(join(tmpdir(), 'll-burst-journal-'));
const spawner = new ActionSpawner(join(DIST, 'activities', 'spawner-main.js'));
afterAll(() => {
  spawner.close();
  rmSync(dir, { recursive: true, force: true });
});

/** a → b → c → done, each appending its name to `log`; a and b capture their output. */
function burstInput(log: string): RunBurstInput {
  return burstInputOf(
    {
      name: 'burst-journal',
      description: 'a burst retried',
      initial: 'a',
      default_timeout: 10,
      states: {
        a: { action: `echo a >> ${log}; echo ran-a`, capture: 'a', next: 'b' },
        b: { action: `echo b >> ${log}; echo "ran-b after \${captured.a.output}"`, next: 'c' },
        c: { action: `echo c >> ${log}; echo "ran-c after \${captured.a.output}"`, next: 'done' },
        done: { terminal: true },
      },
    },
    { instanceId: 'burst-journal-test', cwd: dir },
  );
}

const done = (output: string): ActionResult => ({ output, stderr: '', exit_code: 0, duration_ms: 5 });

type Run = (
  input: RunBurstInput,
  onFact: (fact: BurstFact, state: string) => void,
  journaled: JournaledAction[],
) => Promise<unknown>;

const inSpawner: Run = (input, onFact, journaled) =>
  spawner.burst(input, { PATH: process.env.PATH ?? '' }, new BurstControl(), onFact, journaled);
const inWorker: Run = (input, onFact, journaled) => burstInWorker(input, new BurstControl(), onFact, journaled);

/** The burst's facts as (state, output, redelivered), and the actions it ran. */
async function burst(
  run: Run,
  journaled: JournaledAction[],
): Promise<{ facts: Array<[string, string, boolean]>; ran: string[] }> {
  const log = join(dir, `ran-${Math.random().toString(36).slice(2)}.log`);
  const facts: Array<[string, string, boolean]> = [];
  await run(
    burstInput(log),
    (f, state) => facts.push([state, f.result.output, f.result.redelivered === true]),
    journaled,
  );
  return { facts, ran: existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : [] };
}

describe('a burst given its journaled first actions', () => {
  it.each([
    ['in the spawner', inSpawner],
    ['in the worker', inWorker],
  ])('%s: delivers them again (redelivered), routes on them, and runs only the rest', async (_, run) => {
    const journaled = [
      { state: 'a', result: done('journaled-a\n') },
      { state: 'b', result: done('journaled-b\n') },
    ];
    expect(await burst(run, journaled)).toEqual({
      facts: [
        ['a', 'journaled-a\n', true],
        ['b', 'journaled-b\n', true],
        // c sees what a's journaled result captured: the run goes on from the results it was given.
        ['c', 'ran-c after journaled-a\n', false],
      ],
      ran: ['c'],
    });
  });

  it.each([
    ['in the spawner', inSpawner],
    ['in the worker', inWorker],
  ])('%s: a journal whose actions are not the ones the burst comes to is not used from there on', async (_, run) => {
    const journaled = [
      { state: 'a', result: done('journaled-a\n') },
      { state: 'x', result: done('journaled-x\n') },
      { state: 'c', result: done('journaled-c\n') },
    ];
    expect(await burst(run, journaled)).toEqual({
      facts: [
        ['a', 'journaled-a\n', true],
        ['b', 'ran-b after journaled-a\n', false],
        ['c', 'ran-c after journaled-a\n', false],
      ],
      ran: ['b', 'c'],
    });
  });
});
