/**
 * `npm test` after the build: `vitest run` (with the arguments given to `npm test`) and, beside it,
 * the static checks (`npm run lint`, `npm run typecheck`) at the lowest CPU priority.
 *
 * Why beside and niced: the suite keeps two cores busy only part of the time (its tests wait on
 * servers, deadlines and processes: about 1.4 of 2 cores on average), and the static checks are
 * ~130 s of pure CPU. Run first, they held every test back by a minute; niced beside the tests,
 * they take the cores the tests leave idle and yield them whenever a test wants them, so the tests
 * see the same machine as before.
 *
 * Output: vitest's streams through as it runs; each check's output is printed whole when the check
 * ends. The exit code is vitest's when it failed, else the first failing check's, else 0.
 */
import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const LOWEST_PRIORITY = 19;
const STATIC_CHECKS = ['lint', 'typecheck'];

/** Run `npm run -s <name>` niced; resolve with its exit code once its output is printed. */
function staticCheck(name) {
  return new Promise((resolve) => {
    // A process group of its own, so that a signal reaches the tools npm starts (npm does not pass
    // it on to them); and since Ctrl-C then reaches only vitest, this process passes it on.
    const child = spawn(npm, ['run', '-s', name], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    // Before npm has started its own children, which inherit the priority.
    try {
      if (child.pid !== undefined) setPriority(child.pid, LOWEST_PRIORITY);
    } catch {
      // a platform that refuses: the check runs at normal priority, only slower for the tests
    }
    const chunks = [];
    child.stdout.on('data', (d) => chunks.push(d));
    child.stderr.on('data', (d) => chunks.push(d));
    child.on('error', (err) => chunks.push(Buffer.from(`${err.message}\n`)));
    child.on('close', (code, signal) => {
      const status = code ?? (signal ? 1 : 0);
      process.stdout.write(`\n> ${name}: ${status === 0 ? 'ok' : `failed (exit ${code ?? signal})`}\n`);
      process.stdout.write(Buffer.concat(chunks));
      resolve({ name, status });
    });
    groups.add(child);
    child.on('close', () => groups.delete(child));
  });
}

/** `vitest run <args>` with the terminal; resolve with its exit code. */
function vitest(args) {
  return new Promise((resolve) => {
    const bin = join(root, 'node_modules', 'vitest', 'vitest.mjs');
    const child = spawn(process.execPath, [bin, 'run', ...args], { cwd: process.cwd(), stdio: 'inherit' });
    running.add(child);
    child.on('close', () => running.delete(child));
    child.on('error', (err) => {
      process.stderr.write(`error: could not start vitest: ${err.message}\nfix: run "npm install"\n`);
      resolve(1);
    });
    child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

/** Vitest and the checks' process groups while they run: a signal to this process is passed on. */
const running = new Set();
const groups = new Set();
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    for (const child of running) child.kill(signal);
    for (const child of groups) {
      try {
        process.kill(-child.pid, signal);
      } catch {
        // the group has ended
      }
    }
  });
}

const checks = Promise.all(STATIC_CHECKS.map(staticCheck));
const testsCode = await vitest(process.argv.slice(2));
const results = await checks;
const failed = results.filter((r) => r.status !== 0);
if (failed.length > 0) {
  process.stdout.write(`\nstatic checks failed: ${failed.map((r) => r.name).join(', ')} (output above)\n`);
}
process.exitCode = testsCode !== 0 ? testsCode : (failed[0]?.status ?? 0);
