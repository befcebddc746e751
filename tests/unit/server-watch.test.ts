/**
 * The worker's watch over its Temporal server (temporal/server-watch.ts) against a real
 * TCP listener the test opens and closes: an outage is one line when it begins, one per reminder
 * while it lasts and one when it ends; a server stopped on purpose (no pid file) is not started.
 * Also the pid-file reading (server-pid.ts) and which errors a command waits out (server-settle.ts).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { watchServer } from '../../temporal/server-watch.js';
import { diedWithoutStop, startedWithin } from '../../temporal/server-pid.js';
import { isTransientServerError } from '../../runs/find/server-settle.js';
import { isNoPoller } from '../../runs/find/run-target.js';
import { freePort, waitFor } from '../support/processes.js';

const tmp = mkdtempSync(join(tmpdir(), 'll-server-watch-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function listen(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer((socket) => socket.destroy());
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

const close = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid!;
}

describe('the server watch', () => {
  it('logs an outage once when it begins, once per reminder, and once when it ends', async () => {
    const port = await freePort();
    let server = await listen(port);
    const lines: string[] = [];
    const watch = watchServer({
      address: `127.0.0.1:${port}`,
      log: (l) => lines.push(l),
      intervalMs: 20,
      reminderMs: 300,
    });
    try {
      await close(server);
      await waitFor('the outage line', () => lines.some((l) => l.includes('does not answer')), 5_000, 10);
      await waitFor('a reminder', () => lines.some((l) => l.includes('is still down')), 5_000, 10);
      server = await listen(port);
      await waitFor('the end of the outage', () => lines.some((l) => l.includes('answers again after')), 5_000, 10);
    } finally {
      await watch.stop();
      await close(server);
    }
    // Dozens of checks failed; the log has one line for the start and the end, and few reminders.
    expect(lines.filter((l) => l.includes('does not answer'))).toEqual([
      `the Temporal server at 127.0.0.1:${port} does not answer: nothing runs until it is back`,
    ]);
    expect(lines.filter((l) => l.includes('answers again after'))).toHaveLength(1);
    expect(lines.length).toBeLessThan(10);
  });

  it('does not start an embedded server that was stopped on purpose (no pid file), and says so once', async () => {
    const port = await freePort();
    const dataDir = join(tmp, 'stopped');
    mkdirSync(dataDir, { recursive: true });
    const lines: string[] = [];
    const watch = watchServer({
      address: `127.0.0.1:${port}`,
      embedded: { dataDir, port, uiPort: await freePort() },
      log: (l) => lines.push(l),
      intervalMs: 20,
    });
    try {
      await waitFor('the note', () => lines.some((l) => l.includes('stopped on purpose')), 5_000, 10);
      await waitFor('more checks', () => lines.length >= 2, 5_000, 10);
    } finally {
      await watch.stop();
    }
    expect(lines.filter((l) => l.includes('stopped on purpose'))).toHaveLength(1);
    expect(lines[0]).toContain('does not answer: nothing runs until it is back');
    expect(lines.join('\n')).not.toMatch(/: restarting it|restarted|could not restart/);
  });
});

describe('the embedded server pid file', () => {
  it('tells a server that died (pid file left, process gone) from one stopped on purpose (no pid file)', async () => {
    const dataDir = join(tmp, 'pids');
    mkdirSync(dataDir, { recursive: true });
    expect(diedWithoutStop(dataDir)).toBe(false);
    writeFileSync(join(dataDir, 'server.pid'), `${await deadPid()}\n`);
    expect(diedWithoutStop(dataDir)).toBe(true);
    // A live process that is not a dev server (a reused pid): not ours, so died too.
    writeFileSync(join(dataDir, 'server.pid'), `${process.pid}\n`);
    expect(diedWithoutStop(dataDir)).toBe(true);
  });

  it('knows a recent (re)start by the pid file age', () => {
    const dataDir = join(tmp, 'age');
    mkdirSync(dataDir, { recursive: true });
    expect(startedWithin(dataDir, 20_000)).toBe(false);
    writeFileSync(join(dataDir, 'server.pid'), '1\n');
    expect(startedWithin(dataDir, 20_000)).toBe(true);
    const old = new Date(Date.now() - 60_000);
    utimesSync(join(dataDir, 'server.pid'), old, old);
    expect(startedWithin(dataDir, 20_000)).toBe(false);
  });
});

describe('errors a command waits out after a restart', () => {
  it('takes UNAVAILABLE and a namespace not found (also wrapped) as transient, nothing else', () => {
    expect(isTransientServerError({ code: 14, message: 'tcp connect error' })).toBe(true);
    expect(isTransientServerError(Object.assign(new Error('Failed to query Workflow'), { cause: { code: 14 } }))).toBe(
      true,
    );
    expect(isTransientServerError({ code: 5, message: 'Namespace default is not found.' })).toBe(true);
    expect(isTransientServerError({ code: 5, message: 'workflow not found' })).toBe(false);
    expect(isTransientServerError({ code: 3, message: 'invalid argument' })).toBe(false);
    expect(isTransientServerError(new Error('boom'))).toBe(false);
  });

  it('reads a query refused for want of a poller (also wrapped) as no worker answering, nothing else', () => {
    const refused = { code: 9, message: 'no poller seen for task queue recently, worker may be down' };
    expect(isNoPoller(refused)).toBe(true);
    expect(isNoPoller(Object.assign(new Error('Failed to query Workflow: x'), { cause: refused }))).toBe(true);
    expect(isNoPoller({ code: 9, message: 'workflow is closed' })).toBe(false);
    expect(isNoPoller(new Error('boom'))).toBe(false);
  });
});
