/**
 * Vitest globalSetup: bundle the workflow code from source ONCE per test run and hand the file to
 * every test worker (LL_WORKFLOW_BUNDLE), so each integration test file does not re-run webpack.
 * Several projects list this file; global setups run one project after another in the main
 * process, so the first bundles and the others reuse its file (a key on globalThis, because
 * each project loads this module afresh).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { slimBundle } from '../../worker/slim-bundle.js';

const SHARED = Symbol.for('ll-loop.test-workflow-bundle');
const shared = globalThis as { [SHARED]?: string };

export default async function setup(): Promise<() => void> {
  const bundled = shared[SHARED];
  if (bundled !== undefined) {
    process.env.LL_WORKFLOW_BUNDLE = bundled;
    return () => {};
  }
  const dir = mkdtempSync(join(tmpdir(), 'll-loop-bundle-'));
  const { code } = await bundleWorkflowCode({
    workflowsPath: join(import.meta.dirname, '..', '..', 'workflows', 'index.ts'),
    logger: new DefaultLogger('WARN'),
  });
  const path = join(dir, 'workflow-bundle.js');
  // As the build writes it (worker/slim-bundle.ts): every test worker and replayer loads it.
  writeFileSync(path, slimBundle(code));
  process.env.LL_WORKFLOW_BUNDLE = path;
  shared[SHARED] = path;
  return () => {
    delete shared[SHARED];
    rmSync(dir, { recursive: true, force: true });
  };
}
