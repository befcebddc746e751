/**
 * `npm test`: the build (`npm run build`, tools/build.mjs), then `vitest run` (with the arguments
 * given to `npm test`); and from the start, beside them, the static checks (`npm run lint` and
 * `npm run typecheck` in one process, tools/static-checks.mjs, which builds each TypeScript
 * program once for both) at the lowest CPU priority.
 *
 * Why beside and niced: the suite's tests often wait (on servers, deadlines and processes), and
 * the static checks are ~100 s of pure CPU. Run first, they held every test back by a minute;
 * niced beside the tests, they take the cores the tests leave idle and yield them whenever a test
 * wants them, so the tests see the same machine as before. They read the sources, not dist/, so
 * they start with the build, which leaves a core idle part of its time.
 *
 * Both start without NODE_EXTRA_CA_CERTS (see {@link testEnv}).
 *
 * Output: vitest's streams through as it runs; the checks' output is printed whole when they end.
 * The exit code is vitest's when it failed, else the checks', else 0.
 */
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The environment of the tests and the checks: this process's without NODE_EXTRA_CA_CERTS.
 *
 * Why: Node 20 reads and parses that file as each process starts, before any code runs
 * (nodejs/node#40524; OpenSSL 3 is slow at it): with Debian's bundle of ~140 certificates, as
 * machines that set it for a proxy often have, `node -e 0` takes 0.16 s of CPU instead of 0.04 s.
 * The suite starts some 900 Node processes (commands, workers, spawners, fake tools): ~100 s of
 * CPU on a 2-core machine, for certificates nothing in it uses: its servers are local and plain
 * (the Temporal dev server, the fake LLM and MCP servers on 127.0.0.1), and the cluster tier's TLS
 * tests pass their CA themselves. The one download a test run may need, the Temporal CLI, is
 * made here first, with this process's environment as the user set it ({@link ensureTemporalCli}).
 */
const { NODE_EXTRA_CA_CERTS: extraCaCerts, ...testEnv } = process.env;

/** Find (or install) the Temporal CLI before the tests run without the extra certificates. */
async function ensureTemporalCli() {
  const module = join(root, 'dist', 'temporal', 'temporal-cli.js');
  const { findTemporalCli } = await import(pathToFileURL(module).href);
  await findTemporalCli({ install: true, log: (m) => process.stdout.write(`[run-tests] ${m}\n`) });
}

/**
 * Run the static checks niced; resolve with their exit code once their output is printed.
 *
 * They stay in this process's session and process group (not `detached`): on Linux with
 * autogroups (`kernel.sched_autogroup_enabled`, the default of most distributions) the scheduler
 * shares the CPU between sessions first and applies nice values only inside a session. In a
 * session of their own the checks had an equal share beside the whole test run (the build took
 * 16 s instead of 8); with that session's own priority lowered (`/proc/<pid>/autogroup`) they
 * yielded to every other session too, and once the tests had ended beside other work on the
 * machine (two busy processes of another session) they crawled at ~1.5 % of a core for minutes
 * after vitest had ended. In this session, niced, they yield to the build and the tests
 * and keep this session's fair share against the rest of the machine once the tests are done.
 */
function staticChecks() {
  const name = 'lint and typecheck';
  return new Promise((resolve) => {
    // Niced by the checks themselves (`--low-priority`), before they start any tool.
    const child = spawn(process.execPath, [join(root, 'tools', 'static-checks.mjs'), '--low-priority'], {
      cwd: root,
      env: testEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
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
    running.add(child);
    child.on('close', () => running.delete(child));
  });
}

/**
 * `node <args>` with the terminal, in `cwd` with `env`; resolve with its exit code. `what` and
 * `fix` name it and its remedy should it not start.
 */
function inTerminal(args, { cwd, env, what, fix }) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd, stdio: 'inherit', env });
    running.add(child);
    child.on('close', () => running.delete(child));
    child.on('error', (err) => {
      process.stderr.write(`error: could not start ${what}: ${err.message}\n${fix ? `fix: ${fix}\n` : ''}`);
      resolve(1);
    });
    child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

/** `node tools/build.mjs`; resolve with its exit code. */
const build = () => inTerminal([join(root, 'tools', 'build.mjs')], { cwd: root, env: testEnv, what: 'the build' });

/**
 * `vitest run <args>` (through tools/vitest-swept.mjs, which then stops what the tests left
 * running: after a Ctrl-C, their servers and workers); resolve with its exit code.
 */
function vitest(args) {
  const bin = join(root, 'tools', 'vitest-swept.mjs');
  // `npm test` built dist/ from these sources a moment ago: the test setup takes the workflow
  // bundle from there instead of running webpack again (tests/setup/workflow-bundle.ts).
  const env = { ...testEnv, LL_TEST_FRESH_BUILD: '1' };
  return inTerminal([bin, 'run', ...args], { cwd: process.cwd(), env, what: 'vitest', fix: 'run "npm install"' });
}

/** Vitest and the checks while they run: a signal to this process is passed on. */
const running = new Set();
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    for (const child of running) child.kill(signal);
  });
}

const checks = staticChecks();
const built = await build();
// A failure here is left to the test setup, which reports it with its fix.
if (built === 0 && extraCaCerts !== undefined) await ensureTemporalCli().catch(() => undefined);
const testsCode = built === 0 ? await vitest(process.argv.slice(2)) : built;
const checked = await checks;
if (checked.status !== 0) process.stdout.write(`\nstatic checks failed: ${checked.name} (output above)\n`);
process.exitCode = testsCode !== 0 ? testsCode : checked.status;
