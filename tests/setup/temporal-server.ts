/**
 * Vitest globalSetup: ONE throwaway Temporal dev server per test run.
 *
 * In-memory database, headless, on a free port, with ll-loop's search
 * attributes. Tests read its address from `inject('temporalAddress')` or
 * `process.env.TEMPORAL_TEST_ADDRESS`. When TEMPORAL_TEST_ADDRESS is already
 * set, that server is reused and nothing is started (a config listing this file
 * in more than one project then shares the first one's server: global setups
 * run one project after another in the same process).
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { checkoutWorkersOf, freePort } from '../support/processes.js';
import type { TestProject } from 'vitest/node';
import { devServerTuningFlags, probeTemporal } from '../../temporal/dev-server.js';
import { searchAttributeFlags } from '../../temporal/search-attributes.js';
import { findTemporalCli } from '../../temporal/temporal-cli.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** host:port of the run's Temporal dev server. */
    temporalAddress: string;
  }
}

const START_TIMEOUT_MS = 30_000;

/**
 * One partition per task queue instead of the server's four. Every test's worker polls task
 * queues of its own, and the server loads, stores and forwards between the partitions of each:
 * with one, the server spent 10% less CPU on the same integration files (19.7 s against 17.7 s,
 * and 1,071 task-queue partitions made against a few hundred). Safe here because this server
 * starts empty (in memory) every run; not for the embedded server, whose database outlives it:
 * reading fewer partitions than it wrote to strands the tasks in the others.
 */
const ONE_PARTITION = [
  '--dynamic-config-value',
  'matching.numTaskqueueReadPartitions=1',
  '--dynamic-config-value',
  'matching.numTaskqueueWritePartitions=1',
];

/** Start (or reuse) the run's server; the returned function stops it. */
export default async function setup({ provide }: Pick<TestProject, 'provide'>): Promise<() => Promise<void>> {
  // Test files run in forks of this process and inherit it: the checkout workers their commands
  // start carry it too, so teardown stops exactly those.
  process.env.LL_TEST_RUN_ID ??= randomUUID();
  const testRunId = process.env.LL_TEST_RUN_ID;
  const existing = process.env.TEMPORAL_TEST_ADDRESS;
  if (existing) {
    provide('temporalAddress', existing);
    return async () => stopCheckoutWorkers(testRunId);
  }

  const cli = await findTemporalCli({ install: true, log: (m) => console.log(`[temporal-server] ${m}`) });
  const port = await freePort();
  const address = `127.0.0.1:${port}`;
  const args = [
    'server',
    'start-dev',
    '--headless',
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--namespace',
    'default',
    '--log-level',
    'error',
    ...searchAttributeFlags(),
    ...devServerTuningFlags(),
    ...ONE_PARTITION,
  ];
  // Own process group so teardown can kill the server and anything it spawned.
  const child = spawn(cli.path, args, { detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4_000)));
  const exited = new Promise<string>((resolve) => {
    child.once('exit', (code, signal) => resolve(`exited (${signal ?? `code ${code}`})`));
    child.once('error', (err) => resolve(`could not spawn: ${err.message}`));
  });
  // An object, not a `let`: TS does not see closure assignments when narrowing.
  const state: { exitReason: string | null } = { exitReason: null };
  void exited.then((r) => (state.exitReason = r));

  const stop = async (): Promise<void> => {
    if (state.exitReason !== null || child.pid === undefined) return;
    signalGroup(child.pid, 'SIGTERM');
    const killed = await Promise.race([exited.then(() => true), delay(5_000).then(() => false)]);
    if (!killed) {
      signalGroup(child.pid, 'SIGKILL');
      await Promise.race([exited, delay(2_000)]);
    }
  };

  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (state.exitReason !== null) break;
    if ((await probeTemporal(address)).kind === 'temporal') break;
    if (Date.now() > deadline) break;
    await delay(100);
  }
  if (state.exitReason !== null || (await probeTemporal(address)).kind !== 'temporal') {
    await stop();
    throw new Error(
      `Test Temporal server did not come up on ${address} (${state.exitReason ?? `no answer within ${START_TIMEOUT_MS / 1000} s`}).\n` +
        `Command: ${cli.path} ${args.join(' ')}\nstderr: ${stderr.trim() || '(empty)'}\n` +
        'Fix: run the command by hand to see why, or set TEMPORAL_TEST_ADDRESS=host:port to use a running server.',
    );
  }

  process.env.TEMPORAL_TEST_ADDRESS = address;
  provide('temporalAddress', address);
  return async () => {
    await stopCheckoutWorkers(testRunId);
    await stop();
    delete process.env.TEMPORAL_TEST_ADDRESS;
  };
}

/** SIGKILL the checkout workers this test run's commands started (their runs are over). */
async function stopCheckoutWorkers(testRunId: string): Promise<void> {
  for (const pid of checkoutWorkersOf(testRunId)) signalGroup(pid, 'SIGKILL');
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
