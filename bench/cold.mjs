// `npm run bench -- --only cold` (last of the default parts: it stops the bench's server): what
// a user waits for when nothing is up. A one-state loop from `ll-loop run` to the shell prompt
// (spawn → exit), N times each:
//   - worker down: the checkout's worker had exited (as it does after LL_WORKER_IDLE_S), the
//     server up — the command starts the worker and its run;
//   - nothing up: the worker and the embedded server both stopped (after a reboot) — the command
//     starts the server from its data on disk (every run the bench made so far), then the worker.
// Only what the bench started is stopped: its checkout worker (by the pid its record names) and
// its own server (by its data directory).
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  BIN,
  FIRST_RUNS,
  benchWorker,
  median,
  project,
  round,
  serverOptions,
  stopDevServer,
  stopWorker,
  wall,
} from './context.mjs';

function writeLoop() {
  writeFileSync(
    join(project, '.loops', 'cold-one.yaml'),
    'name: cold-one\ndescription: from nothing to the prompt\ninitial: go\ndefault_timeout: 10\nstates:\n  go:\n    action: "true"\n    next: done\n  done:\n    terminal: true\n',
  );
}

/** Wall ms of `ll-loop run cold-one` from spawn to exit; fails on a non-zero exit. */
function runToPrompt() {
  return new Promise((resolve, reject) => {
    const t0 = wall();
    const child = spawn(process.execPath, [BIN, 'run', 'cold-one', '--no-lock'], {
      cwd: project,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.on('exit', (code) => {
      const ms = wall() - t0;
      if (code !== 0) reject(new Error(`ll-loop run cold-one exited ${code}: ${err.slice(-500)}`));
      else resolve(ms);
    });
  });
}

function checkoutWorkerPid() {
  try {
    return JSON.parse(readFileSync(join(project, '.loops', '.worker', 'worker.json'), 'utf8')).pid;
  } catch {
    return undefined;
  }
}

async function timed(prepare) {
  const runs = [];
  for (let i = 0; i < FIRST_RUNS; i += 1) {
    await stopWorker(checkoutWorkerPid());
    await prepare();
    runs.push(await runToPrompt());
  }
  return { runs_ms: runs.map((m) => round(m)), median_ms: round(median(runs)) };
}

export async function coldStarts() {
  writeLoop();
  await runToPrompt(); // the worker up, the loop's first run behind it
  const out = {
    worker_down: await timed(async () => undefined),
    nothing_up: await timed(() => stopDevServer(serverOptions.dataDir)),
  };
  // The worker the last run started is the bench's to stop at the end.
  benchWorker.pid = checkoutWorkerPid();
  return out;
}
