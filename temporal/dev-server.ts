/**
 * ll-loop's embedded default Temporal server: `temporal server start-dev` with
 * an on-disk SQLite database under the project's `.loops/.temporal/`, started
 * on first use and left running (detached) for later `ll-loop` invocations.
 *
 * Invariants:
 *  - at most one server per data dir and port: check-and-start runs under the
 *    lock `<dataDir>/.start-lock`, and re-checks after acquiring it;
 *  - `<dataDir>/server.pid` names the process started here, if any;
 *  - every server returned has ll-loop's custom search attributes registered.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { ensureRuntimeDir } from '../loader/runtime-dir.js';
import type { Connection } from '@temporalio/client';
import { ensureSearchAttributes, searchAttributeFlags } from './search-attributes.js';
import { findTemporalCli } from './temporal-cli.js';
import { devServerTuningFlags, persistenceFlags } from './dev-server-flags.js';

export { devServerTuningFlags, persistenceFlags };
import { sleep, withDirLock } from './dir-lock.js';
import { readServerHome, recordServerHome, type ServerHome } from './server-home.js';
import { sdkAdmin, type NamespaceAdmin } from './namespace-admin.js';
import { wireAdmin } from './namespace-wire.js';
import { looksLikeDevServer, processAlive } from './server-pid.js';
import { probeTemporal, tcpOpen } from './grpc-probe.js';
import { killGroup, stopDevServer } from './stop-dev-server.js';

export { probeTemporal, stopDevServer, tcpOpen };

export { diedWithoutStop } from './server-pid.js';

/** Options for {@link ensureDevServer}. */
export interface DevServerOptions {
  /** Directory for the database, log and pid file, e.g. `<project>/.loops/.temporal`. */
  dataDir: string;
  /** gRPC frontend port (default 7233). */
  port?: number;
  /** Web UI port (default 8233). */
  uiPort?: number;
  log?: (msg: string) => void;
  /**
   * Hand the connection that checked a server already running to the caller
   * ({@link DevServer.connection}; the caller closes it) rather than closing it, so the caller
   * needs no connection of its own: one connection instead of two on `ll-loop run`'s way to
   * starting its workflow.
   */
  keepConnection?: boolean;
  /**
   * Called when the server already answering on the port is not this data directory's: another
   * project's (`home`), or one ll-loop did not start (`home` undefined). The runs go there anyway;
   * the caller decides how to tell the user (temporal/embedded.ts: once per project).
   */
  onForeignServer?: (found: { address: string; home: ServerHome | undefined; assumedUiUrl: string }) => void;
}

/** A dev server that answers on `address`. */
export interface DevServer {
  /** gRPC address, `127.0.0.1:<port>`. */
  address: string;
  /** Web UI URL (assumed to be on `uiPort` when an existing server was reused). */
  uiUrl: string;
  /** True when this call started the server, false when one was already answering. */
  started: boolean;
  /** Pid of the server process, when this call started it. */
  pid?: number;
  /** With `keepConnection`, when a running server was reused: the verified connection to it. */
  connection?: Connection;
  /**
   * True when the server answering is not this data directory's (another project's, or one
   * ll-loop did not start): nothing of this project may restart or stop it.
   */
  foreign?: boolean;
}

/** The dev server could not be started. */
export class DevServerStartError extends Error {
  override readonly name = 'DevServerStartError';
  /** Command line that was run ("" when nothing was started). */
  readonly command: string;
  /** Last lines of the server log ("" when nothing was started). */
  readonly logTail: string;
  constructor(reason: string, dataDir: string, started?: { command: string; logTail: string }) {
    const logPath = join(dataDir, 'server.log');
    super(
      `Could not start the embedded Temporal server: ${reason}.\n` +
        (started
          ? `Command: ${started.command}\nLast lines of ${logPath}:\n${started.logTail || '(empty)'}\n` +
            `Fix: read the log above; if another server uses this data dir, stop it (kill $(cat ${join(dataDir, 'server.pid')})); `
          : 'Fix: stop whatever listens on that port, or choose another port; ') +
        'or use an external server with TEMPORAL_ADDRESS=host:7233.',
    );
    this.command = started?.command ?? '';
    this.logTail = started?.logTail ?? '';
  }
}

/** The lock guards a start (≤ 30 s); a lock older than this is a crashed starter's. */
const START_LOCK_STALE_MS = 60_000;
const START_TIMEOUT_MS = 30_000;
const POLL_MS = 100;
/** How long an open-but-not-Temporal port may take to turn into a Temporal server. */
const OTHER_LISTENER_PATIENCE_MS = 5_000;
const NAMESPACE = 'default';

/**
 * Reuse the Temporal server answering on `127.0.0.1:<port>`, or start the
 * embedded dev server there with its database in `dataDir`.
 *
 * @throws DevServerStartError when the server dies, does not answer within
 *   30 s, or the port is held by something that is not Temporal
 * @throws TemporalCliNotFoundError when no CLI can be found or installed
 */
export async function ensureDevServer(opts: DevServerOptions): Promise<DevServer> {
  const port = opts.port ?? 7233;
  const uiPort = opts.uiPort ?? 8233;
  const address = `127.0.0.1:${port}`;
  const uiUrl = `http://127.0.0.1:${uiPort}`;
  const log = opts.log ?? (() => {});
  // Absolute: the server runs with cwd = dataDir, so a relative --db-filename would double up.
  const dataDir = resolve(opts.dataDir);
  // Git-ignored when it is ll-loop's own: made here, or the project's `.loops/.temporal/`.
  const ours = !existsSync(dataDir) || (basename(dataDir) === '.temporal' && basename(dirname(dataDir)) === '.loops');
  if (ours) ensureRuntimeDir(dataDir);
  else await mkdir(dataDir, { recursive: true });

  // Called once the server answered the probe: its namespace over plain gRPC, no SDK.
  const reuse = async (): Promise<DevServer> => {
    const admin = wireAdmin(address);
    await ensureSearchAttributes(admin, NAMESPACE);
    const home = await whoseServer(admin, dataDir, address, uiUrl, opts);
    return {
      address,
      uiUrl: home?.uiUrl ?? uiUrl,
      started: false,
      ...(isForeign(home, dataDir) ? { foreign: true } : {}),
    };
  };

  // Fast path without the lock: a server that answers as Temporal is checked and reused (on the
  // SDK connection the caller keeps, else without the SDK). A port that is open but not (yet)
  // answering may be a server another process is still starting: decide under the lock.
  if (opts.keepConnection === true) {
    const running = await reuseRunning(address, uiUrl, dataDir, (admin) =>
      whoseServer(admin, dataDir, address, uiUrl, opts),
    );
    if (running) return running;
  } else if ((await probeTemporal(address)).kind === 'temporal') return reuse();

  // Find (maybe install) the CLI before taking the start lock: an install can
  // take minutes and has its own lock; the start lock only covers the start.
  const cli = await findTemporalCli({ log });

  return withDirLock(
    join(dataDir, '.start-lock'),
    { staleMs: START_LOCK_STALE_MS, timeoutMs: 2 * START_LOCK_STALE_MS, log },
    async () => {
      let probe = await probeTemporal(address);
      // Give a server started outside our lock (e.g. by hand) a moment to come up.
      const patience = Date.now() + OTHER_LISTENER_PATIENCE_MS;
      while (probe.kind === 'other' && Date.now() < patience) {
        await sleep(POLL_MS * 2);
        probe = await probeTemporal(address);
      }
      if (probe.kind === 'temporal') return reuse();
      if (probe.kind === 'other') {
        throw new DevServerStartError(
          `port ${port} is in use by something that does not answer as Temporal (${probe.reason})`,
          dataDir,
        );
      }
      return startDevServer({ cliPath: cli.path, dataDir, port, uiPort, address, uiUrl, log });
    },
  );
}

async function startDevServer(o: {
  cliPath: string;
  dataDir: string;
  port: number;
  uiPort: number;
  address: string;
  uiUrl: string;
  log: (m: string) => void;
}): Promise<DevServer> {
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(o.port),
    '--ui-port',
    String(o.uiPort),
    ...persistenceFlags(join(o.dataDir, 'temporal.db')),
    '--namespace',
    NAMESPACE,
    '--log-level',
    'warn',
    ...searchAttributeFlags(),
    ...devServerTuningFlags(),
  ];
  const command = [o.cliPath, ...args].map(shellQuote).join(' ');
  const logPath = join(o.dataDir, 'server.log');
  const pidPath = join(o.dataDir, 'server.pid');
  o.log(`starting embedded Temporal server: ${command}`);

  // Detached, own process group, output to a file, unref'd: the server must
  // outlive this process and must not be killed by a Ctrl-C aimed at it.
  const fd = openSync(logPath, 'w');
  // An object, not a `let`: TS does not see closure assignments when narrowing.
  const state: { exited: string | null } = { exited: null };
  const child = spawn(o.cliPath, args, { detached: true, stdio: ['ignore', fd, fd], cwd: o.dataDir });
  closeSync(fd); // the child holds its own copy
  child.on('error', (err) => (state.exited = `could not spawn: ${err.message}`));
  child.on('exit', (code, signal) => (state.exited = `it exited (${signal ?? `code ${code}`})`));
  child.unref();
  if (child.pid !== undefined) await writeFile(pidPath, `${child.pid}\n`);

  const fail = async (reason: string): Promise<never> => {
    if (child.pid !== undefined && state.exited === null) killGroup(child.pid, 'SIGKILL');
    await rm(pidPath, { force: true });
    throw new DevServerStartError(reason, o.dataDir, { command, logTail: await logTail(logPath) });
  };

  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (state.exited !== null) return fail(state.exited);
    const probe = await probeTemporal(o.address);
    if (probe.kind === 'temporal') break;
    if (Date.now() > deadline) return fail(`it did not answer on ${o.address} within ${START_TIMEOUT_MS / 1000} s`);
    await sleep(POLL_MS);
  }
  // Registered by the flags already; harmless, and covers an older CLI that ignored them. The
  // server's home is recorded in it, for other projects that find it on this port.
  const admin = wireAdmin(o.address);
  await ensureSearchAttributes(admin, NAMESPACE);
  await recordServerHome(admin, NAMESPACE, { dataDir: o.dataDir, uiUrl: o.uiUrl });
  o.log(`embedded Temporal server ready at ${o.address} (UI ${o.uiUrl}), pid ${child.pid}`);
  return { address: o.address, uiUrl: o.uiUrl, started: true, ...(child.pid !== undefined ? { pid: child.pid } : {}) };
}

/**
 * For a caller that keeps the connection (`keepConnection`): the server answering as Temporal on
 * `address`, with ll-loop's search attributes ensured, all on the SDK connection it is handed
 * (what {@link probeTemporal} and then `reuse` check without the SDK); undefined when the port is
 * closed or does not answer as Temporal.
 */
async function reuseRunning(
  address: string,
  uiUrl: string,
  dataDir: string,
  whose: (admin: NamespaceAdmin) => Promise<ServerHome | undefined>,
): Promise<DevServer | undefined> {
  if (!(await tcpOpen(address, 1_000))) return undefined;
  const connection = await lazyConnection(address);
  let kept = false;
  try {
    try {
      await connection.ensureConnected();
      await connection.withDeadline(Date.now() + 2_000, () => connection.workflowService.getSystemInfo({}));
    } catch {
      return undefined;
    }
    const admin = sdkAdmin(connection);
    await ensureSearchAttributes(admin, NAMESPACE);
    const home = await whose(admin);
    kept = true;
    return {
      address,
      uiUrl: home?.uiUrl ?? uiUrl,
      started: false,
      ...(isForeign(home, dataDir) ? { foreign: true } : {}),
      connection,
    };
  } finally {
    if (!kept) await connection.close();
  }
}

/**
 * The home of the server `admin` reaches, telling `opts.onForeignServer` when it is not `dataDir`.
 * A server without a recorded home whose pid is in `dataDir/server.pid` is this directory's,
 * started by an ll-loop that did not record homes yet: its home is recorded now.
 */
async function whoseServer(
  admin: NamespaceAdmin,
  dataDir: string,
  address: string,
  uiUrl: string,
  opts: DevServerOptions,
): Promise<ServerHome | undefined> {
  let home: ServerHome | undefined;
  try {
    home = await readServerHome(admin, NAMESPACE);
  } catch {
    return undefined; // cannot tell (no permission to describe the namespace): say nothing
  }
  if (home === undefined && startedHere(dataDir)) {
    home = { dataDir, uiUrl };
    await recordServerHome(admin, NAMESPACE, home).catch(() => undefined);
  }
  if (home === undefined || resolve(home.dataDir) !== dataDir)
    opts.onForeignServer?.({ address, home, assumedUiUrl: uiUrl });
  return home;
}

/** Whether a server whose home is `home` (undefined: unknown) is not `dataDir`'s. */
function isForeign(home: ServerHome | undefined, dataDir: string): boolean {
  return home === undefined || resolve(home.dataDir) !== dataDir;
}

/** Whether `dataDir/server.pid` names a live dev server (one started from this directory). */
function startedHere(dataDir: string): boolean {
  try {
    const pid = Number(readFileSync(join(dataDir, 'server.pid'), 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 && processAlive(pid) && looksLikeDevServer(pid);
  } catch {
    return false;
  }
}

/**
 * A connection made on first use, the SDK's client loaded only now: only a caller that keeps the
 * connection needs it (`server status`, `server stop`, the probes and the namespace calls of a
 * start go without: grpc-probe.ts, namespace-wire.ts). Lazy + ensureConnected (rather than connect) so
 * that a failed attempt's channel is closed too.
 */
async function lazyConnection(address: string): Promise<Connection> {
  // `.default`, the package's module.exports: the SDK is CommonJS, and a bundle's dynamic import
  // of CommonJS (tools/bundle-cli.mjs) gives only that.
  const { Connection } = (await import('@temporalio/client')).default;
  return Connection.lazy({ address, connectTimeout: '2s' });
}

async function logTail(path: string, lines = 20): Promise<string> {
  try {
    return (await readFile(path, 'utf8')).trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
