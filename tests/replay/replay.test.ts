/**
 * Every committed history (tests/fixtures/histories/<version>/) replays through today's workflow
 * bundle without a server. A change to the workflow or the core that alters the commands an
 * earlier release recorded — without a version gate — fails here with Temporal's
 * non-determinism error, naming the scenario and the file.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker } from '@temporalio/worker';
import { beforeAll, describe, expect, it } from 'vitest';
import { installQuietRuntime } from '../../worker/create-worker.js';
import { withoutWorkflowStackTraces } from '../../worker/workflow-stack-traces.js';
import { committedSets } from './histories.js';

function bundle(): { codePath: string } {
  const codePath = process.env.LL_WORKFLOW_BUNDLE;
  if (!codePath || !existsSync(codePath))
    throw new Error('LL_WORKFLOW_BUNDLE is not set by the global setup (tests/setup/workflow-bundle.ts)');
  return { codePath };
}

const sets = committedSets();

/** The workflow's sinks, answered (events are checked elsewhere; this checks determinism). */
const quietSinks = { loopEvents: { emit: { fn: () => undefined }, state: { fn: () => undefined } } };

/** One execution of a committed set, named `<version>/<file>`. */
interface Execution {
  name: string;
  path: string;
  workflowId: string;
}

const executions: Execution[] = sets.flatMap(({ dir, manifest }) =>
  manifest.scenarios.flatMap((scenario) =>
    scenario.executions.map((e) => ({
      name: `${manifest.version}/${e.file}`,
      path: join(dir, e.file),
      workflowId: e.workflowId,
    })),
  ),
);

/**
 * What each execution's replay ended with (undefined: it replayed), by name. One replay worker
 * replays them all in turn (the SDK replays one history at a time and yields its result in the
 * order given), so the bundle is loaded once instead of once per execution.
 */
const outcomes = new Map<string, Error | undefined>();

beforeAll(async () => {
  installQuietRuntime('ERROR');
  // As ll-loop's own replayers and workers run (worker/workflow-stack-traces.ts).
  withoutWorkflowStackTraces();
  async function* histories() {
    for (const e of executions)
      yield { workflowId: e.workflowId, history: historyFromJSON(JSON.parse(readFileSync(e.path, 'utf8'))) };
  }
  const replayed = Worker.runReplayHistories(
    { workflowBundle: bundle(), sinks: quietSinks, replayName: 'committed histories' },
    histories(),
  );
  let i = 0;
  for await (const result of replayed) {
    const e = executions[i++]!;
    expect(result.workflowId, e.name).toBe(e.workflowId);
    outcomes.set(e.name, result.error);
  }
  expect(i, 'every committed execution replayed').toBe(executions.length);
}, 300_000);

describe('committed histories replay with today’s code', () => {
  it('at least one set is committed, with every loop shape', () => {
    expect(sets.length).toBeGreaterThan(0);
    for (const { manifest } of sets) {
      expect(manifest.scenarios.map((s) => s.name)).toEqual(
        expect.arrayContaining([
          'shell',
          'shell-local',
          'prompt',
          'llm-structured',
          'subloop',
          'retry',
          'maintain',
          'continue-as-new',
          'cancel',
          'timeout',
        ]),
      );
    }
  });

  for (const { manifest } of sets) {
    describe(`ll-loop ${manifest.version}`, () => {
      for (const scenario of manifest.scenarios) {
        it(`${scenario.name}: ${scenario.covers}`, () => {
          for (const execution of scenario.executions) {
            const name = `${manifest.version}/${execution.file}`;
            expect(outcomes.has(name), `${name} was replayed`).toBe(true);
            expect(outcomes.get(name), name).toBeUndefined();
          }
        });
      }
    });
  }
});
