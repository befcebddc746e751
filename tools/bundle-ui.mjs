/**
 * Build step: the `ll-loop ui` page (ui/page/) as one browser bundle with its stylesheet, in
 * dist/ui/page/. The graph layout library (dagre) is bundled in: the page needs no network.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'dist', 'ui', 'page');
mkdirSync(outdir, { recursive: true });
await build({
  entryPoints: [join(root, 'ui', 'page', 'main.ts')],
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: ['chrome110', 'firefox110', 'safari16'],
  outfile: join(outdir, 'app.js'),
  minify: true,
  sourcemap: false,
  legalComments: 'none',
  logLevel: 'warning',
});
copyFileSync(join(root, 'ui', 'page', 'app.css'), join(outdir, 'app.css'));
console.log(`ui bundle: ${join(outdir, 'app.js')}`);
