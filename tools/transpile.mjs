/**
 * Build step: every TypeScript module of the package to dist/, one JavaScript module per source
 * file at the same path, with its source map. esbuild transpiles and does not type-check: half a
 * second, where `tsc` took fifteen to emit the same modules.
 *
 * The type check is `npm run typecheck` (part of `npm test`). Transpiling file by file is exact
 * because tsconfig.json sets `verbatimModuleSyntax`: every import and export that is only a type
 * says so, so nothing about a module's output depends on another module's types, and `tsc`
 * rejects code for which that would not hold.
 */
import { readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The package's code: not the tests, the bench or the browser page (tools/bundle-ui.mjs). */
const SOURCES = [
  'fsm',
  'workflows',
  'loader',
  'activities',
  'worker',
  'host',
  'errors',
  'temporal',
  'reporters',
  'runs',
  'client',
  join('ui', 'server'),
];

function modulesUnder(dir) {
  const found = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...modulesUnder(path));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) found.push(path);
  }
  return found;
}

const entryPoints = SOURCES.flatMap((dir) => modulesUnder(join(root, dir)));
await build({
  entryPoints,
  outdir: join(root, 'dist'),
  outbase: root,
  bundle: false,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  tsconfig: join(root, 'tsconfig.json'),
  logLevel: 'warning',
});
console.log(`transpiled ${entryPoints.length} modules to ${join(root, 'dist')}`);
