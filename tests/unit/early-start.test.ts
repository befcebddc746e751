/**
 * When the bin asks the checkout's worker for `run`'s start before loading the CLI
 * (runs/start/early-start.ts): only for a start (`run`, not a dry run nor help), only when a
 * worker of this build serves the checkout, and never with `LL_START_SOCKET=0`; and the stamp of the build names the workflow bundle's hash without the
 * command hashing it. No Temporal: the worker is a listener on the socket that answers as a
 * worker would, with a worker record (tests/support/dummy-worker.ts). The early start against a
 * real worker: tests/e2e/start-socket.test.ts.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { earlyStart, type EarlyStart } from '../../runs/start/early-start.js';
import { runCommand } from '../../runs/start/run-loop.js';
import { EXIT } from '../../errors/exit-codes.js';
import { startSocketDir, startSocketPath } from '../../host/worker-socket.js';
import { buildInfo, codeId } from '../../host/build-info.js';
import { BUILD_STAMP, PREBUILT_BUNDLE } from '../../host/paths.js';
import { hostId } from '../../host/checkout.js';
import { startDummyWorker, type DummyWorker } from '../support/dummy-worker.js';

const tmp = mkdtempSync(join(tmpdir(), 'll-early-'));
const servers: Server[] = [];
const dummies: DummyWorker[] = [];
afterAll(() => {
  for (const s of servers) s.close();
  for (const d of dummies) d.kill();
  rmSync(tmp, { recursive: true, force: true });
});

const ENV: NodeJS.ProcessEnv = { LL_TEMPORAL_PORT: '17999' };

/** A checkout whose worker (a dummy process with a record of this build) listens on the start socket; what it was sent. */
async function servedCheckout(name: string): Promise<{ dir: string; requests: object[] }> {
  const dir = join(tmp, name);
  mkdirSync(join(dir, '.loops'), { recursive: true });
  dummies.push(await startDummyWorker(dir, { host: hostId(), code_id: codeId(), address: '127.0.0.1:17999' }));
  mkdirSync(startSocketDir(dir), { recursive: true, mode: 0o700 });
  const requests: object[] = [];
  const server = createServer((socket) => {
    let text = '';
    socket.on('data', (d) => {
      text += d.toString();
      if (!text.includes('\n')) return;
      requests.push(JSON.parse(text.slice(0, text.indexOf('\n'))) as object);
      socket.end(`${JSON.stringify({ kind: 'refused', why: 'a test' })}\n`);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(startSocketPath(dir), resolve));
  return { dir, requests };
}

describe('the early start', () => {
  it('asks the worker of this build with the command line, the environment and the time in the command’s zone', async () => {
    const { dir, requests } = await servedCheckout('asked');
    const at = new Date(2026, 10, 29, 7, 5, 9);
    const early = earlyStart(['run', 'fix', '--json'], dir, { ...ENV, SECRET_FOR_RUN: 'x' }, at);
    expect(early).toBeDefined();
    await early!.sent;
    expect(await early!.reply).toEqual({ kind: 'refused', why: 'a test' });
    expect(requests).toEqual([
      expect.objectContaining({
        kind: 'start_argv',
        code_id: codeId(),
        address: '127.0.0.1:17999',
        root: dir,
        argv: ['run', 'fix', '--json'],
        cwd: dir,
        stamp: '20261129T070509',
        env: expect.objectContaining({ SECRET_FOR_RUN: 'x' }),
      }),
    ]);
    expect(early!.takeInterrupt()).toBe(false);
  });

  it('is not asked for another command, a dry run, help, or when switched off', async () => {
    const { dir, requests } = await servedCheckout('not-asked');
    for (const argv of [['list'], ['run', 'fix', '--dry-run'], ['run', '--help'], ['run', 'fix', '-h'], ['fix']])
      expect(earlyStart(argv, dir, ENV), argv.join(' ')).toBeUndefined();
    expect(earlyStart(['run', 'fix'], dir, { ...ENV, LL_START_SOCKET: '0' })).toBeUndefined();
    expect(earlyStart(['run', 'fix'], dir, { ...ENV, TEMPORAL_ADDRESS: 'elsewhere:7233' })).toBeUndefined();
    // Another server's worker is not this command's.
    expect(earlyStart(['run', 'fix'], dir, { LL_TEMPORAL_PORT: '17998' })).toBeUndefined();
    expect(requests).toEqual([]);
  });

  it('without a worker for the checkout, the command starts the run the ordinary way', () => {
    const dir = join(tmp, 'no-worker');
    mkdirSync(join(dir, '.loops'), { recursive: true });
    expect(earlyStart(['run', 'fix'], dir, ENV)).toBeUndefined();
  });
});

describe('the command with an early start', () => {
  it('a Ctrl-C while the worker refused the early start: nothing is started, exit 6', async () => {
    const dir = join(tmp, 'refused-interrupted');
    mkdirSync(join(dir, '.loops'), { recursive: true });
    writeFileSync(
      join(dir, '.loops', 'one.yaml'),
      'name: one\ndescription: d\ninitial: a\nstates:\n  a:\n    action: "true"\n    next: done\n  done:\n    terminal: true\n',
    );
    let err = '';
    const early: EarlyStart = {
      reply: Promise.resolve({ kind: 'refused', why: 'a test' }),
      sent: Promise.resolve(),
      worker: { pid: process.pid } as EarlyStart['worker'],
      takeInterrupt: () => true,
      printQueued: () => Promise.resolve(false),
    };
    const code = await runCommand({
      cwd: dir,
      target: 'one',
      context: [],
      dryRun: false,
      noLlm: false,
      json: true,
      early,
      out: () => undefined,
      err: (t) => (err += t),
    });
    expect(code).toBe(EXIT.cancelled);
    expect(err).toBe('');
    // Nothing reached for a worker either: none was started for the run.
    expect(existsSync(join(dir, '.loops', '.worker', 'worker.json'))).toBe(false);
  });
});

describe('the build stamp', () => {
  it.skipIf(!existsSync(BUILD_STAMP))('names the workflow bundle’s hash as it is, so commands need not hash it', () => {
    const stamp = JSON.parse(readFileSync(BUILD_STAMP, 'utf8')) as { bundle: { sha256_12: string } };
    const hash = createHash('sha256').update(readFileSync(PREBUILT_BUNDLE)).digest('hex').slice(0, 12);
    expect(stamp.bundle.sha256_12).toBe(hash);
    expect(buildInfo(PREBUILT_BUNDLE).build_id.endsWith(`+${hash}`)).toBe(true);
  });
});
