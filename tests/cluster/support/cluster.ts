/**
 * The cluster of the cluster tier: PostgreSQL and a Temporal server on it, in a temporary
 * directory, on free ports. Started once per test run by tests/setup/cluster.ts; test files reach
 * it through the state file named by LL_CLUSTER_STATE (they run in forks) to inject faults:
 * SIGKILL the server and start it again, restart PostgreSQL.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

/** Start the server again on the same config and database; waits until it answers. */
export async function restartServer(state: ClusterState): Promise<void> {
  state.serverPid = spawnServer(state.server, state.configFile, state.serverLog);
  save(state);
  await waitForServer(state.address);
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
