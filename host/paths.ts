/** Where the worker's own files are, whether running from source (tests) or from dist/. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PACKAGE_ROOT } from '../loader/package-root.js';

export { PACKAGE_ROOT };

/** The prebuilt workflow bundle written by `npm run build`. */
export const PREBUILT_BUNDLE = join(PACKAGE_ROOT, 'dist', 'workflow-bundle.js');

/**
 * The same workflows with Temporal's OpenTelemetry workflow interceptors, which a worker that
 * traces runs (worker/tracing.ts): beside a bundle, its name with `-traced` before `.js`.
 */
export function tracedBundle(bundle: string): string {
  return bundle.replace(/(\.js)?$/, '-traced.js');
}

/** The module of Temporal's OpenTelemetry workflow interceptors that a traced bundle includes. */
export const TRACING_WORKFLOW_MODULE = '@temporalio/interceptors-opentelemetry/lib/workflow-interceptors';

/** Written by every `npm run build`: which build of the whole code (not only the bundle) this is. */
export const BUILD_STAMP = join(PACKAGE_ROOT, 'dist', 'build-stamp.json');

/** The workflows' entry point: compiled JS when running from dist/, the TS source otherwise. */
export function workflowsEntry(): string {
  const compiled = join(PACKAGE_ROOT, 'dist', 'workflows', 'index.js');
  const fromDist = fileURLToPath(import.meta.url).includes(`${join(PACKAGE_ROOT, 'dist')}`);
  return fromDist && existsSync(compiled) ? compiled : join(PACKAGE_ROOT, 'workflows', 'index.ts');
}
