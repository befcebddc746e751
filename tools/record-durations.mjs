/**
 * `node tools/record-durations.mjs`: write tests/setup/durations.json, the test files' durations
 * of the last `npm test` as vitest cached them (node_modules/.vite/vitest/<hash>/results.json),
 * for the order files start in on a machine with no such cache (a clean clone, CI:
 * tests/setup/sequencer.ts). Only files of a second or more are kept; the order only needs the
 * long ones, and what a file took on one machine is a guide, not a promise. Run it after a full
 * `npm test` of a change that made files much longer or shorter, and commit the file.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cacheRoot = join(root, 'node_modules', '.vite', 'vitest');
const out = join(root, 'tests', 'setup', 'durations.json');
const MIN_MS = 1_000;

const caches = existsSync(cacheRoot)
  ? readdirSync(cacheRoot)
      .map((d) => join(cacheRoot, d, 'results.json'))
      .filter(existsSync)
  : [];
if (caches.length === 0) {
  process.stderr.write(`error: no vitest results under ${cacheRoot}\nfix: run "npm test" first\n`);
  process.exit(1);
}
const durations = {};
for (const file of caches) {
  const { results } = JSON.parse(readFileSync(file, 'utf8'));
  for (const [key, { duration, failed }] of results) {
    if (failed || !(duration >= MIN_MS)) continue;
    durations[key] = Math.max(durations[key] ?? 0, Math.round(duration / 100) / 10);
  }
}
const sorted = Object.fromEntries(Object.entries(durations).sort((a, b) => b[1] - a[1]));
writeFileSync(out, `${JSON.stringify(sorted, null, 2)}\n`);
process.stdout.write(`wrote ${Object.keys(sorted).length} files' durations (seconds) to ${out}\n`);
