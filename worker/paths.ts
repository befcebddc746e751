/** Where the package's own files are, whether running from source (tests) or from dist/. */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findPackageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'll-loop') return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the ll-loop package root from ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
}

export const PACKAGE_ROOT = findPackageRoot();

/** The prebuilt workflow bundle written by `npm run build`. */
export const PREBUILT_BUNDLE = join(PACKAGE_ROOT, 'dist', 'workflow-bundle.js');

/** The workflows' entry point: compiled JS when running from dist/, the TS source otherwise. */
export function workflowsEntry(): string {
  const compiled = join(PACKAGE_ROOT, 'dist', 'workflows', 'index.js');
  const fromDist = fileURLToPath(import.meta.url).includes(`${join(PACKAGE_ROOT, 'dist')}`);
  return fromDist && existsSync(compiled) ? compiled : join(PACKAGE_ROOT, 'workflows', 'index.ts');
}
