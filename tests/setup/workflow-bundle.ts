/**
 * Vitest globalSetup: bundle the workflow code from source ONCE per test run and hand the file to
 * every test worker (LL_WORKFLOW_BUNDLE), so each integration test file does not re-run webpack.
 * Several projects list this file; the first bundles and the others reuse its file
 * (once-per-run.ts).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { slimBundle } from '../../worker/slim-bundle.js';
import { oncePerRun } from './once-per-run.js';

export default function setup(): Promise<() => void> {
  return oncePerRun('workflow-bundle', 'LL_WORKFLOW_BUNDLE', async (dir) => {
    const { code } = await bundleWorkflowCode({
      workflowsPath: join(import.meta.dirname, '..', '..', 'workflows', 'index.ts'),
      logger: new DefaultLogger('WARN'),
    });
    const path = join(dir, 'workflow-bundle.js');
    // As the build writes it (worker/slim-bundle.ts): every test worker and replayer loads it.
    writeFileSync(path, slimBundle(code));
    return path;
  });
}
