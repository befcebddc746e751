/**
 * Vitest globalSetup: bundle the workflow code from source ONCE per test run and hand the file to
 * every test worker (LL_WORKFLOW_BUNDLE), so each integration test file does not re-run webpack.
 * Several projects list this file; the first bundles and the others reuse its file
 * (once-per-run.ts).
 *
 * Under `npm test` (LL_TEST_FRESH_BUILD=1, set by tools/run-tests.mjs) the build has just bundled
 * the same sources into dist/workflow-bundle.js: that file is the run's bundle, and the ~6 s of
 * webpack before any server test could start are not spent twice. Run alone (`npx vitest`,
 * `npm run test:integration`), dist/ may be older than the sources, so the setup bundles them.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { PREBUILT_BUNDLE } from '../../host/paths.js';
import { slimBundle } from '../../worker/slim-bundle.js';
import { oncePerRun } from './once-per-run.js';

export default function setup(): Promise<() => void> {
  return oncePerRun('workflow-bundle', 'LL_WORKFLOW_BUNDLE', async (dir) => {
    if (process.env.LL_TEST_FRESH_BUILD === '1' && existsSync(PREBUILT_BUNDLE)) return PREBUILT_BUNDLE;
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
