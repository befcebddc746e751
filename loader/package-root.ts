/** Where the package's own files are, whether running from source (tests) or from dist/. */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findPackageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'll-loop')
      return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the ll-loop package root from ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
}

/** The directory holding the package's `package.json` (and `loops/`, `dist/`). */
export const PACKAGE_ROOT = findPackageRoot();
