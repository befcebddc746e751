/**
 * Build step: bundle the workflow code once (`npm run build`), so starting a worker does not
 * spend seconds in webpack on every `ll-loop run`.
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { createRequire } from 'node:module';
import { BUILD_STAMP, PACKAGE_ROOT, PREBUILT_BUNDLE, tracedBundle, TRACING_WORKFLOW_MODULE } from '../host/paths.js';
import { slimBundle } from './slim-bundle.js';

const workflowsPath = join(PACKAGE_ROOT, 'dist', 'workflows', 'index.js');
const logger = new DefaultLogger('WARN');
// The traced bundle (host/paths.ts tracedBundle) is made beside the plain one: a worker that does
// not trace loads nothing of OpenTelemetry.
const [{ code }, traced] = await Promise.all([
  bundleWorkflowCode({ workflowsPath, logger }),
  bundleWorkflowCode({
    workflowsPath,
    logger,
    workflowInterceptorModules: [createRequire(import.meta.url).resolve(TRACING_WORKFLOW_MODULE)],
  }),
]);
mkdirSync(dirname(PREBUILT_BUNDLE), { recursive: true });
writeFileSync(tracedBundle(PREBUILT_BUNDLE), slimBundle(traced.code));
const slim = slimBundle(code);
writeFileSync(PREBUILT_BUNDLE, slim);
const written = statSync(PREBUILT_BUNDLE);
console.log(`workflow bundle: ${PREBUILT_BUNDLE} (${(code.length / 1024).toFixed(0)} KiB)`);
// Every build is a new code id: a checkout's worker of an earlier build is replaced (build-info.ts).
// The bundle's hash with the size and time it was written, so that a command need not hash it
// again (build-info.ts buildInfo: it does when the file is not that one any more).
writeFileSync(
  BUILD_STAMP,
  JSON.stringify({
    code_id: randomUUID().slice(0, 8),
    built_at: new Date().toISOString(),
    bundle: {
      sha256_12: createHash('sha256').update(slim).digest('hex').slice(0, 12),
      size: written.size,
      mtime_ms: written.mtimeMs,
    },
  }),
);
