/**
 * `npm run build`: the package's build steps, each its own Node process, side by side where
 * one does not need another's output:
 *
 *   transpile (dist/ from the sources) ─┬─ workflow bundles (webpack: plain and traced, worker/build-bundle.ts)
 *                                       └─ usage text ── CLI bundles
 *   UI page bundle (from ui/page/, needs nothing of dist/)
 *
 * One after another they took 10.6 s on two cores, most of it one core busy and the other idle
 * (the workflow bundle alone is 4 s of webpack); side by side, 7.4 s.
 *
 * Output: each step's output whole when it ends (so that two steps' lines never interleave).
 * Exit code: 1 when a step failed (its output says why), after the steps already running ended.
 */
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Run `node <script>` from the package root; resolve true when it exited 0. */
function step(script) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(root, script)], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks = [];
    child.stdout.on('data', (d) => chunks.push(d));
    child.stderr.on('data', (d) => chunks.push(d));
    child.on('error', (err) => chunks.push(Buffer.from(`${err.message}\n`)));
    child.on('close', (code, signal) => {
      process.stdout.write(Buffer.concat(chunks));
      const ok = code === 0;
      if (!ok) process.stderr.write(`build: ${script} failed (exit ${code ?? signal})\n`);
      resolve(ok);
    });
  });
}

/** Each step in turn, stopping at the first that fails. */
async function inTurn(...scripts) {
  for (const script of scripts) if (!(await step(script))) return false;
  return true;
}

const page = step('tools/bundle-ui.mjs');
const built = (await step('tools/transpile.mjs'))
  ? await Promise.all([
      step('dist/worker/build-bundle.js'),
      inTurn('dist/client/commands/write-usage.js', 'tools/bundle-cli.mjs'),
    ])
  : [false];
const ok = [...built, await page].every(Boolean);
process.exitCode = ok ? 0 : 1;
