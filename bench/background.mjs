// `npm run bench` part `background`: 100 `ll-loop run <loop> --background` commands, one spawned
// every 0.1 s (as a script starting a batch does) while the checkout's worker is up: how long each
// command takes from spawn to exit (p50, p95, max; goal ≤ 1 s), and the time from the first spawn
// until every run has started (its workflow exists on the server). Beside them, what the same
// pattern costs with `node -e 0` in place of the command (Node's own start on this machine under
// that load), the commands' CPU and the worker's, to say where the time goes.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  BIN,
  benchWorker,
  connectClient,
  cpuSeconds,
  endpoint,
  median,
  project,
  round,
  sleep,
  wall,
} from './context.mjs';

const COUNT = Number(process.env.BENCH_BACKGROUND_RUNS ?? 100);
const EVERY_MS = 100;
export const BACKGROUND_GOAL_MS = 1000;

function writeLoop() {
  writeFileSync(
    join(project, '.loops', 'bg-one.yaml'),
    'name: bg-one\ndescription: one quick state, started in the background\ninitial: go\ndefault_timeout: 10\nstates:\n  go:\n    action: "true"\n    next: done\n  done:\n    terminal: true\n',
  );
}

/** Spawn `args` (node's), resolve with ms from spawn to exit and its stdout; rejects on a non-zero exit. */
function timed(args) {
  return new Promise((resolve, reject) => {
    const t0 = wall();
    const child = spawn(process.execPath, args, { cwd: project, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    // 'close', not 'exit': a command that writes and exits at once can exit before its stdout is read.
    child.on('close', (code) => {
      const ms = wall() - t0;
      if (code !== 0) reject(new Error(`${args.slice(1).join(' ')} exited ${code}: ${err.slice(-500)}`));
      else if (args.includes('--json') && out.trim() === '')
        reject(
          new Error(`${args.slice(1).join(' ')} exited 0 and printed nothing on stdout; stderr: ${err.slice(-500)}`),
        );
      else resolve({ ms, out, spawnedAt: t0 });
    });
  });
}

/** CPU seconds of this process's reaped children (the commands: cutime + cstime). */
function reapedChildrenCpu() {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[13]) + Number(f[14])) / 100;
}

/** `args` spawned `COUNT` times, one every EVERY_MS; every result once all have exited. */
async function batch(args) {
  const started = wall();
  const runs = [];
  for (let i = 0; i < COUNT; i += 1) {
    await sleep(Math.max(0, started + i * EVERY_MS - wall()));
    runs.push(timed(args));
  }
  return { started, results: await Promise.all(runs) };
}

function spread(ms) {
  const s = [...ms].sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
  return { p50_ms: round(median(s)), p95_ms: round(at(0.95)), max_ms: round(s[s.length - 1]) };
}

function checkoutWorkerPid() {
  try {
    return JSON.parse(readFileSync(join(project, '.loops', '.worker', 'worker.json'), 'utf8')).pid;
  } catch {
    return undefined;
  }
}

export async function backgroundStarts() {
  writeLoop();
  // The worker up and warm (the loop run once), as when a user starts a batch.
  await timed([BIN, 'run', 'bg-one', '--no-lock']);
  benchWorker.pid ??= checkoutWorkerPid();
  const workerPid = checkoutWorkerPid();

  const bareCpuBefore = reapedChildrenCpu();
  const bare = await batch(['-e', '0']);
  const nodeAlone = {
    ...spread(bare.results.map((r) => r.ms)),
    cpu_ms: round(((reapedChildrenCpu() - bareCpuBefore) / COUNT) * 1000),
  };

  const cpuBefore = reapedChildrenCpu();
  const workerCpuBefore = cpuSeconds(workerPid) ?? 0;
  const { started, results } = await batch([BIN, 'run', 'bg-one', '--background', '--no-lock', '--json']);
  const commandsCpu = reapedChildrenCpu() - cpuBefore;
  const ids = results.map((r) => JSON.parse(r.out).instance_id);

  // Every run's workflow as the server holds it: when it started (its execution's start time).
  const { client, connection } = await connectClient(endpoint);
  const startTimes = [];
  try {
    const deadline = wall() + 300_000;
    for (const id of ids) {
      for (;;) {
        try {
          const d = await client.workflow.getHandle(id).describe();
          startTimes.push(d.startTime.getTime());
          break;
        } catch (err) {
          if (wall() > deadline) throw new Error(`run ${id} never started: ${err.message}`);
          await sleep(200);
        }
      }
    }
    // The runs to their end before the next part (they are quick).
    for (const id of ids) await client.workflow.getHandle(id).result();
  } finally {
    await connection.close();
  }
  const workerCpu = (cpuSeconds(workerPid) ?? 0) - workerCpuBefore;
  const commands = spread(results.map((r) => r.ms));
  return {
    runs: COUNT,
    every_ms: EVERY_MS,
    goal_ms: BACKGROUND_GOAL_MS,
    command: commands,
    within_goal: commands.max_ms <= BACKGROUND_GOAL_MS,
    all_started_s: round((Math.max(...startTimes) - started) / 1000, 1),
    last_command_exit_s: round((Math.max(...results.map((r) => r.spawnedAt + r.ms)) - started) / 1000, 1),
    node_alone: nodeAlone,
    cpu_s: {
      commands: round(commandsCpu, 1),
      per_command_ms: round((commandsCpu / COUNT) * 1000),
      worker: round(workerCpu, 1),
    },
  };
}
