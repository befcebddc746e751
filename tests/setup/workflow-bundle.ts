/**
 * Vitest globalSetup: bundle the workflow code from source ONCE per test run and hand the file to
 * every test worker (LL_WORKFLOW_BUNDLE), so each integration test file does not re-run webpack.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';

export default async function setup(): Promise<() => void> {
  const dir = mkdtempSync(join(tmpdir(), 'll-loop-bundle-'));
  const { code } = await bundleWorkflowCode({
    workflowsPath: join(import.meta.dirname, '..', '..', 'workflows', 'index.ts'),
    logger: new DefaultLogger('WARN'),
  });
  const path = join(dir, 'workflow-bundle.js');
  writeFileSync(path, code);
  process.env.LL_WORKFLOW_BUNDLE = path;
  return () => rmSync(dir, { recursive: true, force: true });
}
