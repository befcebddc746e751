// A test tier's TypeScript support module (tests/cluster/support/cluster.ts, tests/support/jaeger.ts),
// bundled for the bench's plain Node scripts into .cache/bench/ and imported.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Import `entry` (a path from the repository's root) bundled as `.cache/bench/<name>.mjs`. */
export async function importTestSupport(entry, name) {
  const source = join(root, entry);
  const outfile = join(root, '.cache', 'bench', `${name}.mjs`);
  await build({
    entryPoints: [source],
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    outfile,
    // Its modules find the repository (and .cache/) from where their source is, not the bundle.
    define: { 'import.meta.dirname': JSON.stringify(dirname(source)) },
    logLevel: 'warning',
  });
  return import(outfile);
}
