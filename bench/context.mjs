// The bench's shared world (bench/run.mjs runs the parts): flags, a dedicated embedded Temporal
// dev server in a temporary directory (LL_TEMPORAL_PORT, LL_TEMPORAL_UI_PORT, LL_TEMPORAL_DATA_DIR)
// and its project, the report, measuring helpers, and the checkout worker a part may start.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, openSync, readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const PART_NAMES = [
  'cli',
  'transitions',
  'first-action',
  'follow',
  'background',
  'spawn',
  'llm',
  'concurrent',
  'parked',
  'ui',
  'parallel',
  'fanout10k',
  'cluster',
  'human',
  'mcp',
  'outcomes',
  'tracing',
  'cold',
];
export const DEFAULT_PARTS = 'cli,transitions,first-action,mcp,follow,background,spawn,llm,concurrent,cold';
const USAGE = `usage: npm run -s bench -- [--json] [--quick] [--only PARTS] [--loops N] [--first-runs N] [--parked N]
  --json          one JSON object on stdout (the figures and the goals they meet), progress on stderr
  --quick         development figures: 100 loops, 200 transitions, one follow pair (goals not judged)
  --only PARTS    comma-separated, of: ${PART_NAMES.join(', ')} (default: ${DEFAULT_PARTS})
  --loops N       concurrent loops (default 1000), or parked runs with --only parked
  --first-runs N  runs of \`ll-loop run\` per first-action and prompt figure (default 5)
  --parked N      also measure N runs parked on a timer
env: BENCH_TRANSITIONS, BENCH_SKIP_REMOTE, BENCH_FANOUT10K_ITEMS, BENCH_FANOUT10K_CHILDREN, BENCH_FOLLOW_STATES, BENCH_LONG=1, BENCH_KEEP=1, LL_TEMPORAL_CLI`;

/** A wrong flag ends the bench with the usage, not a stack trace. */
function usageError(message) {
  process.stderr.write(`bench: ${message}\n${USAGE}\n`);
  process.exit(2);
}

let parsed;
try {
  parsed = parseArgs({
    options: {
      json: { type: 'boolean', default: false },
      quick: { type: 'boolean', default: false },
      loops: { type: 'string' },
      only: { type: 'string' },
      'first-runs': { type: 'string' },
      parked: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
} catch (err) {
  usageError(err.message);
}
export const flags = parsed.values;
if (flags.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
export const QUICK = flags.quick;
export const LOOPS = Number(flags.loops ?? (QUICK ? 100 : 1000));
export const FIRST_RUNS = Number(flags['first-runs'] ?? 5);
export const TRANSITIONS = Number(process.env.BENCH_TRANSITIONS ?? (QUICK ? 200 : 1000));
export const PARTS = new Set((flags.only ?? DEFAULT_PARTS).split(',').map((s) => s.trim()));
for (const p of PARTS) if (!PART_NAMES.includes(p)) usageError(`--only: unknown part "${p}"`);
// Parked runs: only when asked for (--parked N, or --only parked with --loops N).
export const PARKED = flags.parked !== undefined ? Number(flags.parked) : PARTS.has('parked') ? LOOPS : 0;
if (!Number.isInteger(PARKED) || PARKED < 0) usageError(`--parked must be a number of loops, got ${flags.parked}`);
if (!Number.isInteger(LOOPS) || LOOPS < 1) usageError(`--loops must be a positive integer, got ${flags.loops}`);
if (!Number.isInteger(FIRST_RUNS) || FIRST_RUNS < 1)
  usageError(`--first-runs must be a positive integer, got ${flags['first-runs']}`);

/** Human output (stdout), or progress notes (stderr) when --json keeps stdout for the JSON. */
export const say = (line) => (flags.json ? process.stderr.write(`${line}\n`) : process.stdout.write(`${line}\n`));
export const note = (line) => process.stderr.write(`${line}\n`);

export const root = join(fileURLToPath(import.meta.url), '..', '..');
export const BIN = join(root, 'bin', 'll-loop.js');
export const PROBE = join(root, 'bench', 'first-action-probe.mjs');
export const wall = () => performance.timeOrigin + performance.now();

// The bench's own world: a project (a checkout: it has .loops/), its server's data, the state
// directory the runs leave their environment in. Set before anything reads them, so the checkout
// worker and every `ll-loop run` spawned below inherit them.
export const tmp = mkdtempSync(join(tmpdir(), 'll-loop-bench-'));
export const project = join(tmp, 'project');
mkdirSync(join(project, '.loops'), { recursive: true });
delete process.env.TEMPORAL_ADDRESS;
process.env.LL_TEMPORAL_DATA_DIR = join(tmp, 'temporal');
process.env.LL_TEMPORAL_PORT = String(await freePort());
process.env.LL_TEMPORAL_UI_PORT = String(await freePort());
process.env.LL_STATE_DIR = join(tmp, 'state');

export const dist = (p) => import(join(root, 'dist', p));
export const { resolveEndpoint, resolveTemporalTarget, connectClient } = await dist('temporal/connection.js');
export const { connectWorkerConnection } = await dist('temporal/worker-connection.js');
export const { embeddedServerOptions } = await dist('temporal/embedded.js');
export const { stopDevServer } = await dist('temporal/dev-server.js');
export const { createLoopWorker, installQuietRuntime } = await dist('worker/create-worker.js');
export const { validateLoop } = await dist('fsm/definition/validate.js');
export const { CURRENT_RUN_RULES } = await dist('workflows/run-rules.js');
export const { createActivities } = await dist('activities/index.js');

installQuietRuntime('ERROR');
export const serverOptions = embeddedServerOptions(project);
export const serverStarted = wall();
export const endpoint = await resolveEndpoint(resolveTemporalTarget(), serverOptions);
export const serverPid = Number(readFileSync(join(serverOptions.dataDir, 'server.pid'), 'utf8').trim());
/**
 * The machine's speed as this bench ran: ms for 1e9 turns of an optimised add loop in this
 * process (0.5 s on this 2-core machine's quick days). The same machine has run the same work 3 to
 * 5 times slower on other days (its cores' share of their host), and every figure moves with it,
 * so figures of different days are compared with it beside them.
 */
export function yardstickMs() {
  const t0 = performance.now();
  let odd = 0;
  for (let i = 0; i < 1e9; i += 1) odd += i & 1;
  if (odd !== 5e8) throw new Error('yardstick: wrong count');
  return Math.round(performance.now() - t0);
}

export const report = {
  machine: {
    cpus: cpus().length,
    loadavg_at_start: loadavg().map((l) => Number(l.toFixed(2))),
    yardstick_ms_at_start: yardstickMs(),
  },
  server: { address: endpoint.address, pid: serverPid, start_ms: Math.round(wall() - serverStarted) },
};
/** The checkout worker this bench started (stopped at the end). */
export const benchWorker = { pid: undefined };

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
export const round = (x, d = 0) => (x === undefined || Number.isNaN(x) ? undefined : Number(x.toFixed(d)));
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** /proc/<pid>/status fields in kB (VmHWM, VmRSS), or undefined when the process is gone. */
export function procStatus(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1]);
    return { hwm_kb: kb('VmHWM'), rss_kb: kb('VmRSS') };
  } catch {
    return undefined;
  }
}

/** CPU seconds (user + system) a process has used so far. */
export function cpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds of the children a process has waited for (cutime + cstime): for the action spawner,
 * the quick actions' own processes (`bash` and what it ran).
 */
export function childCpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return undefined;
  }
}

/** The worker's action spawner (activities/action-spawner.ts), found among its children; undefined when it has none now. */
export function spawnerOf(workerPid) {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) !== workerPid) continue;
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes('spawner-main')) return Number(name);
    } catch {
      // Gone while listed.
    }
  }
  return undefined;
}

/**
 * A worker's action spawner over a measurement: its CPU (`cpu`), its reaped children's (`actions`:
 * the actions' own processes) and its peak RSS, summed over every spawner `pidOf` names while
 * sampled — it exits when idle and comes back with the next action, so it is sampled, not read once.
 */
export class SpawnerMeter {
  cpu = 0;
  actions = 0;
  peakKb = 0;
  #at;

  constructor(pidOf) {
    this.pidOf = pidOf;
  }

  /** `before`: the first sample, the baseline (a spawner seen then counts from then; a later one, from its start). */
  sample(before = false) {
    const pid = this.pidOf();
    const s = pid === undefined ? undefined : cpuSeconds(pid);
    const c = pid === undefined ? undefined : childCpuSeconds(pid);
    if (pid === undefined || s === undefined || c === undefined) return;
    if (!before) this.cpu += this.#at?.pid === pid ? s - this.#at.s : s;
    if (!before) this.actions += this.#at?.pid === pid ? c - this.#at.c : c;
    this.#at = { pid, s, c };
    this.peakKb = Math.max(this.peakKb, procStatus(pid)?.hwm_kb ?? 0);
  }
}

/** Busy and total jiffies of the whole machine (first line of /proc/stat). */
export function machineJiffies() {
  const [, ...f] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const n = f.map(Number);
  const idle = n[3] + n[4];
  const total = n.reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}

/** A Temporal timestamp ({seconds: Long, nanos}) in ms. */
export const tsMs = (t) => Number(String(t.seconds)) * 1000 + (t.nanos ?? 0) / 1e6;

/**
 * BENCH_WORKER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/p" (options Node refuses in NODE_OPTIONS):
 * start the checkout's worker here with them, before a command would start a plain one.
 */
export function spawnProfiledWorker() {
  const extra = process.env.BENCH_WORKER_NODE_ARGS?.split(/\s+/).filter(Boolean);
  if (!extra?.length || benchWorker.pid) return;
  mkdirSync(join(project, '.loops', '.worker'), { recursive: true });
  const log = openSync(join(project, '.loops', '.worker', 'worker.log'), 'a');
  const child = spawn(process.execPath, [...extra, BIN, 'worker'], {
    cwd: project,
    detached: true,
    stdio: ['ignore', log, log],
    env: { ...process.env, LL_WORKER_STARTED_BY: 'on-demand' },
  });
  child.unref();
  benchWorker.pid = child.pid;
}

export async function stopBenchWorker() {
  await stopWorker(benchWorker.pid);
}

/** Stop a worker this bench started, by its pid: SIGTERM, then SIGKILL after 15 s. */
export async function stopWorker(pid) {
  if (!pid) return;
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline && procStatus(pid)) {
    if (/State:\s+Z/.test(readFileSync(`/proc/${pid}/status`, 'utf8'))) break;
    await sleep(100);
  }
  if (procStatus(pid)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}

/**
 * Start `count` runs of a loaded loop on the project's checkout queue, 20 starts in flight (the
 * start path is one RPC each; more only queues on the server). Returns their ids, `<prefix>-00000`….
 */
export async function startRuns(client, loaded, count, prefix) {
  const { checkoutAt } = await dist('host/checkout.js');
  const { startLoopRun } = await dist('runs/start/start-run.js');
  let next = 0;
  const ids = [];
  const one = async () => {
    for (let i = next++; i < count; i = next++) {
      const workflowId = `${prefix}-${String(i).padStart(5, '0')}`;
      await startLoopRun({
        client,
        definition: loaded.definition,
        file: loaded.file,
        cwd: project,
        taskQueue: checkoutAt(project).queue,
        searchAttributes: true,
        started: new Date(),
        workflowId,
      });
      ids.push(workflowId);
    }
  };
  await Promise.all(Array.from({ length: Math.min(20, count) }, one));
  return ids;
}

/**
 * The run's result once it ended at its `max_steps`, how the bench's loops end: a run closes as its
 * outcome, and a step limit is a failed workflow whose details are the result.
 */
export async function ended(handle) {
  return handle.result().catch((err) => {
    const details = err?.cause?.details?.[0];
    if (err?.cause?.type === 'LoopFailed' && details?.terminated_by === 'max_steps') return details;
    throw err;
  });
}
