/**
 * The CLI bundle (tools/bundle-cli.mjs) carries the Temporal SDK inside, worker and client alike:
 * no command loads an `@temporalio/*` module from node_modules (one copy of each package in the
 * process), a command loads only the parts of the SDK it uses (`inbox` the client, never the
 * worker), and a worker finds the native core in its package. The compiled modules (dist/client/,
 * which the bundle is made of), run directly, load the SDK from node_modules, which shows the
 * probe sees both.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliBinary, type CliResult } from '../support/cli.js';
import { freePort } from '../support/processes.js';
import { sdkProbe } from '../support/sdk-probe.js';

const dir = mkdtempSync(join(tmpdir(), 'll-loop-bundle-'));
mkdirSync(join(dir, '.loops'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  // A server that is not there: each command loads what it needs to connect, then exits 7.
  env = { ...process.env, TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}` };
});
const probed = sdkProbe(dir, (cwd, args, extraEnv = {}) => runCliBinary(args, { cwd, env: { ...env, ...extraEnv } }));

/** The compiled CLI module (dist/client/cli.js) run directly, not through the bin and its bundle. */
const COMPILED = join(import.meta.dirname, '..', '..', 'dist', 'client', 'cli.js');
const probedCompiled = sdkProbe(
  dir,
  (cwd, args, extraEnv = {}) =>
    new Promise<CliResult>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `(await import(process.argv[1])).runCli(process.argv.slice(2))`,
          COMPILED,
          ...args,
        ],
        { cwd, env: { ...env, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    }),
);

describe('the CLI bundle', () => {
  it('runs `inbox` on the client inside the bundle, without the worker SDK', async () => {
    const inbox = await probed(dir, ['inbox']);
    expect(inbox.code, inbox.stderr).toBe(7);
    expect(inbox.stderr).toMatch(/^error: /);
    expect(inbox.sdk).toContain('@temporalio/client (bundled)');
    expect(inbox.sdk.filter((p) => !p.endsWith('(bundled)'))).toEqual([]);
    expect(inbox.sdk).not.toContain('@temporalio/worker (bundled)');
    expect(inbox.native).toEqual([]);
  });

  it('runs `status` on the client inside the bundle', async () => {
    const status = await probed(dir, ['status', 'some-run']);
    expect(status.code, status.stderr).toBe(7);
    expect(status.sdk).toContain('@temporalio/client (bundled)');
    expect(status.sdk.filter((p) => !p.endsWith('(bundled)'))).toEqual([]);
  });

  it('runs a worker on the worker SDK inside the bundle, with the native core of its package', async () => {
    const worker = await probed(dir, ['worker']);
    expect(worker.code, worker.stderr).toBe(7);
    expect(worker.stderr).toContain(env.TEMPORAL_ADDRESS);
    expect(worker.sdk).toEqual(
      expect.arrayContaining(['@temporalio/worker (bundled)', '@temporalio/client (bundled)']),
    );
    expect(worker.sdk.filter((p) => !p.endsWith('(bundled)'))).toEqual([]);
    expect(worker.native).toEqual(['@temporalio/core-bridge']);
  });

  it('the compiled modules, run directly, load the SDK from node_modules', async () => {
    const status = await probedCompiled(dir, ['status', 'some-run']);
    expect(status.code, status.stderr).toBe(7);
    expect(status.sdk).toContain('@temporalio/client');
    expect(status.sdk.filter((p) => p.endsWith('(bundled)'))).toEqual([]);
  });
});
