/**
 * The cluster of the cluster tier: PostgreSQL and a Temporal server on it, in a temporary
 * directory, on free ports. Started once per test run by tests/setup/cluster.ts; test files reach
 * it through the state file named by LL_CLUSTER_STATE (they run in forks) to inject faults:
 * SIGKILL the server and start it again, restart PostgreSQL.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, pidAlive, waitFor } from '../../support/processes.js';
import { initPostgres, startPostgres, stopPostgres, type PostgresInstance } from './postgres.js';
import {
  buildTemporalBinaries,
  setupSchemas,
  spawnServer,
  waitForServer,
  writeServerConfig,
  type ServerPorts,
} from './temporal-server.js';

export interface ClusterState {
  dir: string;
  /** host:port of the frontend: TEMPORAL_ADDRESS. */
  address: string;
  server: string;
  configFile: string;
  serverLog: string;
  serverPid: number;
  postgres: PostgresInstance;
}

const STATE_ENV = 'LL_CLUSTER_STATE';

async function ports(): Promise<ServerPorts> {
  const p = async () => freePort();
  return {
    frontend: await p(),
    frontendMembership: await p(),
    frontendHttp: await p(),
    history: await p(),
    historyMembership: await p(),
    matching: await p(),
    matchingMembership: await p(),
    worker: await p(),
    workerMembership: await p(),
  };
}

function save(state: ClusterState): void {
  writeFileSync(join(state.dir, 'cluster.json'), JSON.stringify(state, null, 2));
}

/** Build (once), initialise and start everything; the state is saved and named in the environment. */
export async function startCluster(log: (m: string) => void): Promise<ClusterState> {
  const binaries = buildTemporalBinaries(log);
  const dir = mkdtempSync(join(tmpdir(), 'll-loop-cluster-'));
  const postgres = initPostgres(dir, await freePort(), log);
  startPostgres(postgres);
  setupSchemas(binaries.sql, postgres.port);
  const serverPorts = await ports();
  const configFile = writeServerConfig(dir, serverPorts, postgres.port);
  const serverLog = join(dir, 'temporal.log');
  const address = `127.0.0.1:${serverPorts.frontend}`;
  const state: ClusterState = {
    dir,
    address,
    server: binaries.server,
    configFile,
    serverLog,
    serverPid: spawnServer(binaries.server, configFile, serverLog),
    postgres,
  };
  save(state);
  process.env[STATE_ENV] = join(dir, 'cluster.json');
  await waitForServer(address);
  log(`Temporal ${address} on PostgreSQL 127.0.0.1:${postgres.port} (${dir})`);
  return state;
}

/** The running cluster, from a test file. */
export function loadCluster(): ClusterState {
  const file = process.env[STATE_ENV];
  if (!file) throw new Error(`${STATE_ENV} is not set: run the cluster tier with npm run test:cluster`);
  return JSON.parse(readFileSync(file, 'utf8')) as ClusterState;
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/** SIGKILL the Temporal server (its whole process group) and wait until it is gone. */
export async function killServer(state: ClusterState): Promise<void> {
  signalGroup(state.serverPid, 'SIGKILL');
  await waitFor('the Temporal server to die', () => !pidAlive(state.serverPid), 10_000);
}

/**
 * Start the server again on the same config and database; waits until it answers. A start that
 * exits or does not answer within a minute is ended and tried again (twice at most); the error
 * after the last names each try's end and the server's last log lines, for the server's log is
 * gone with the cluster's directory when the run ends.
 */
export async function restartServer(state: ClusterState): Promise<void> {
  const tries: string[] = [];
  for (let attempt = 1; attempt <= 3; attempt += 1) {
    const logStart = logSize(state.serverLog);
    state.serverPid = spawnServer(state.server, state.configFile, state.serverLog);
    save(state);
    try {
      await waitForServer(state.address, 60_000, undefined, () => pidAlive(state.serverPid));
      return;
    } catch (err) {
      const alive = pidAlive(state.serverPid);
      tries.push(
        `try ${attempt}: ${(err as Error).message} (server ${alive ? 'running' : 'exited'}); its log: ${logTail(state.serverLog, logStart)}`,
      );
      signalGroup(state.serverPid, 'SIGKILL');
      await waitFor('the Temporal server to die', () => !pidAlive(state.serverPid), 10_000);
    }
  }
  throw new Error(`the Temporal server did not start again:\n${tries.join('\n')}`);
}

/**
 * Start PostgreSQL and the server again when they are down (a fault test that failed midway
 * leaves them so).
 */
export async function ensureServerUp(state: ClusterState): Promise<void> {
  if (!existsSync(join(state.postgres.dataDir, 'postmaster.pid'))) startPostgres(state.postgres);
  try {
    await waitForServer(state.address, 5_000);
  } catch {
    signalGroup(state.serverPid, 'SIGKILL');
    await waitFor('the Temporal server to die', () => !pidAlive(state.serverPid), 10_000);
    await restartServer(state);
  }
}

function logSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** The distinct messages (`msg: error`) of the server's JSON log written since `from`, the last 8. */
function logTail(file: string, from: number): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').slice(from);
  } catch {
    return '(no log)';
  }
  const seen = new Set<string>();
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    let entry: string;
    try {
      const j = JSON.parse(line) as { msg?: string; error?: string };
      entry = `${j.msg ?? ''}${j.error ? `: ${j.error}` : ''}`.slice(0, 200);
    } catch {
      entry = line.slice(0, 200);
    }
    seen.delete(entry);
    seen.add(entry);
  }
  return seen.size === 0 ? '(empty)' : [...seen].slice(-8).join(' | ');
}

/** Restart PostgreSQL under the running server (fast shutdown: its connections drop). */
export function restartPostgres(state: ClusterState): void {
  stopPostgres(state.postgres);
  startPostgres(state.postgres);
}

/** Stop the server (the pid in the state file: a test may have restarted it) and PostgreSQL. */
export async function stopCluster(state: ClusterState): Promise<void> {
  const current = JSON.parse(readFileSync(join(state.dir, 'cluster.json'), 'utf8')) as ClusterState;
  signalGroup(current.serverPid, 'SIGTERM');
  await waitFor('the Temporal server to stop', () => !pidAlive(current.serverPid), 15_000).catch(() =>
    signalGroup(current.serverPid, 'SIGKILL'),
  );
  stopPostgres(state.postgres);
  if (!process.env.LL_CLUSTER_KEEP) rmSync(state.dir, { recursive: true, force: true });
}
