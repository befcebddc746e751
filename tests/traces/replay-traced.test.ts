/**
 * The traced bundle (dist/workflow-bundle-traced.js: Temporal's OpenTelemetry workflow
 * interceptors and ll-loop's spans live) replays every committed history, recorded by untraced
 * workers: a run moves from an untraced worker to a traced one. And a replay exports no span: the
 * `exporter` sink is never called while the histories replay.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { PREBUILT_BUNDLE, tracedBundle } from '../../host/paths.js';
import { committedSets } from '../replay/histories.js';

describe('the traced bundle', () => {
  it('replays every committed history, exporting nothing', async () => {
    const codePath = tracedBundle(PREBUILT_BUNDLE);
    expect(existsSync(codePath), `${codePath} (npm run build)`).toBe(true);
    try {
      Runtime.install({ logger: new DefaultLogger('WARN') });
    } catch {
      // installed already
    }
    let exported = 0;
    let replayed = 0;
    const sets = committedSets();
    expect(sets.length).toBeGreaterThan(0);
    for (const { dir, manifest } of sets)
      for (const execution of manifest.scenarios.flatMap((s) => s.executions)) {
        const history = historyFromJSON(JSON.parse(readFileSync(join(dir, execution.file), 'utf8')));
        await Worker.runReplayHistory(
          {
            workflowBundle: { codePath },
            sinks: {
              exporter: { export: { fn: () => void (exported += 1) } },
              loopEvents: { emit: { fn: () => undefined }, state: { fn: () => undefined } },
            },
          },
          history,
          execution.workflowId,
        );
        replayed += 1;
      }
    expect(replayed).toBeGreaterThan(50);
    expect(exported).toBe(0);
  });
});
