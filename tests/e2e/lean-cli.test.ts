/**
 * The lean CLI bundle (tools/bundle-cli.mjs): the commands whose code never loads the worker SDK
 * run from a bundle that carries the Temporal client SDK inside, so they load no `@temporalio/*`
 * module from node_modules (one copy of the SDK in the process, and ~0.15 s less module loading);
 * every other command keeps the main bundle and the SDK from node_modules.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/processes.js';

const root = join(import.meta.dirname, '..', '..');
const BIN = join(root, 'bin', 'll-loop.js');
const dir = mkdtempSync(join(tmpdir(), 'll-loop-lean-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The modules under node_modules/@temporalio/ that `ll-loop <argv…>` loaded, and its exit code. */
async function sdkModulesLoadedBy(argv: string[]): Promise<{ code: number; stderr: string; sdk: string[] }> {
  const out = join(dir, `loaded-${argv[0]}.json`);
  const preload = join(dir, 'preload.cjs');
  writeFileSync(
    preload,
    `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify(Object.keys(require.cache))));\n`,
  );
  // A server that is not there: the command loads what it needs to connect, then exits 7.
  const env = { ...process.env, TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}` };
  // Asynchronously: a test blocked in spawnSync cannot report to its runner.
  const child = spawn(process.execPath, ['--require', preload, BIN, ...argv], { cwd: dir, env });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? -1)));
  const loaded = JSON.parse(readFileSync(out, 'utf8')) as string[];
  return {
    code,
    stderr,
    sdk: loaded.filter((p) => /node_modules[\\/]@temporalio[\\/]/.test(p)),
  };
}

describe('the lean CLI bundle', () => {
  it('serves the commands that never load the worker SDK, and only those', () => {
    const lean = JSON.parse(readFileSync(join(root, 'dist', 'cli-lean', 'commands.json'), 'utf8')) as string[];
    for (const name of ['inbox', 'answer', 'list', 'stop', 'pause', 'unpause', 'steer']) expect(lean).toContain(name);
    // These host a worker, replay histories or run activities: the worker SDK's own copy of the client's.
    for (const name of ['run', 'worker', 'status', 'resume', 'history', 'logs', 'rerun', 'ui', 'test'])
      expect(lean).not.toContain(name);
  });

  it('runs `inbox` on the SDK inside the bundle, `status` on the SDK of node_modules', async () => {
    const inbox = await sdkModulesLoadedBy(['inbox']);
    expect(inbox.code, inbox.stderr).toBe(7);
    expect(inbox.stderr).toMatch(/^error: /);
    expect(inbox.sdk).toEqual([]);
    const status = await sdkModulesLoadedBy(['status', 'some-run']);
    expect(status.code, status.stderr).toBe(7);
    expect(status.sdk.some((p) => p.includes('@temporalio/client'))).toBe(true);
  });
});
