/**
 * Build step: bundle the workflow code once (`npm run build`), so starting a worker does not
 * spend seconds in webpack on every `ll-loop run`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { PACKAGE_ROOT, PREBUILT_BUNDLE } from './paths.js';

const { code } = await bundleWorkflowCode({
  workflowsPath: join(PACKAGE_ROOT, 'dist', 'workflows', 'index.js'),
  logger: new DefaultLogger('WARN'),
});
mkdirSync(dirname(PREBUILT_BUNDLE), { recursive: true });
writeFileSync(PREBUILT_BUNDLE, code);
console.log(`workflow bundle: ${PREBUILT_BUNDLE} (${(code.length / 1024).toFixed(0)} KiB)`);
