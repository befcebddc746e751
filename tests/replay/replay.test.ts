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
import { describe, expect, it } from 'vitest';
import { installQuietRuntime } from '../../worker/create-worker.js';
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

  for (const { dir, manifest } of sets) {
    describe(`ll-loop ${manifest.version}`, () => {
      for (const scenario of manifest.scenarios) {
        it(`${scenario.name}: ${scenario.covers}`, async () => {
          installQuietRuntime('ERROR');
          for (const execution of scenario.executions) {
            const history = historyFromJSON(JSON.parse(readFileSync(join(dir, execution.file), 'utf8')));
            await expect(
              Worker.runReplayHistory(
                { workflowBundle: bundle(), sinks: quietSinks, replayName: `${manifest.version}/${execution.file}` },
                history,
                execution.workflowId,
              ),
              `${manifest.version}/${execution.file}`,
            ).resolves.toBeUndefined();
          }
        });
      }
    });
  }
});
