/**
 * No completed action runs again when its completion is lost (activities/action-journal.ts):
 * the action itself SIGKILLs this file's own dev server (on-disk persistence) right after doing
 * its work, so its result cannot be reported; once the worker has given the completion up, the
 * test restarts the server on the same database,
 * and the run must finish with the action's work done exactly once — for a quick action (a local
 * activity of its own, as under a budget: its workflow task completion is lost), quick actions run
 * back to back in one burst (one local activity: the same), a fan-out's quick items in the parent's
 * lanes (bursts side by side: the same) and a slow one (a remote activity: its completion RPC is lost).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { IllegalStateError } from '@temporalio/common';
import { DefaultLogger, NativeConnection, Runtime, type LogEntry } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findTemporalCli } from '../../temporal/temporal-cli.js';
import { devServerTuningFlags, persistenceFlags, probeTemporal } from '../../temporal/dev-server.js';
import { searchAttributeFlags } from '../../temporal/search-attributes.js';
import { createLoopWorker } from '../../worker/create-worker.js';
import { LOOP_WORKFLOW_TYPE, type LoopRunResult, type LoopWorkflowInput } from '../../workflows/definitions.js';
import { freePort, pidAlive, waitFor } from '../support/processes.js';
import { definition } from './harness.js';

let dir: string;
let port: number;
let cliPath: string;
let server: ChildProcess | undefined;
/** What the SDK and its core logged (a lost completion is known by what they say). */
const sdkLog: string[] = [];
const connections: Array<{ close(): Promise<void> }> = [];

/** A dev server on `port` keeping its state in `dir` (so a restart finds the runs again). */
async function startServer(): Promise<ChildProcess> {
  const child = spawn(
    cliPath,
    [
      'server',
      'start-dev',
      '--headless',
      '--ip',
      '127.0.0.1',
      '--port',
      String(port),
      '--namespace',
      'default',
      ...persistenceFlags(join(dir, 'temporal.db')),
      '--log-level',
      'error',
      ...searchAttributeFlags(),
      ...devServerTuningFlags(),
    ],
    { stdio: 'ignore' },
  );
  await waitFor(
    'the dev server to answer',
    async () => (await probeTemporal(`127.0.0.1:${port}`)).kind === 'temporal',
    60_000,
    100,
  );
  return child;
}

beforeAll(async () => {
  // A fork runs many files in one process: an earlier file's runtime closes with its last
  // connection, and only then can this file's be installed.
  await waitFor('the runtime of the files before this one to close', () => {
    try {
      Runtime.install({
        // Kept, not printed: the test waits for the core to give a completion up.
        logger: new DefaultLogger('WARN', (entry: LogEntry) => sdkLog.push(entry.message)),
        telemetryOptions: { logging: { forward: {}, filter: { core: 'WARN', other: 'ERROR' } } },
      });
      return true;
    } catch (err) {
      if (err instanceof IllegalStateError) return false;
      throw err;
    }
  });
  dir = mkdtempSync(join(tmpdir(), 'll-loop-journal-'));
  port = await freePort();
  cliPath = (await findTemporalCli({ install: true, log: () => undefined })).path;
});

afterAll(async () => {
  for (const c of connections) await c.close().catch(() => undefined);
  server?.kill('SIGKILL');
});

/**
 * Run a loop whose states `loop(killed)` gives (one of them kills the server `killed` once, after
 * its work), restarting the server after the kill; returns the run's result, the lines its actions
 * appended to `ran.log`, its journal and the action results its history holds.
 */
async function runAcrossServerKill(
  name: string,
  opts: {
    localMaxS: number;
    loop: (killed: number) => Record<string, unknown>;
    env?: NodeJS.ProcessEnv;
    /** Loop files the run reads (`.loops/<name>.yaml`), by name. */
    loops?: (killed: number) => Record<string, string>;
    rules?: { laneItems?: true };
  },
): Promise<{ result: LoopRunResult; lines: string[]; journal: string; delivered: string[] }> {
  sdkLog.length = 0;
  server = await startServer();
  const killed = server.pid!;
  const cwd = mkdtempSync(join(dir, `${name}-`));
  const journal = join(cwd, 'journal');
  if (opts.loops) mkdirSync(join(cwd, '.loops'));
  for (const [loop, text] of Object.entries(opts.loops?.(killed) ?? {}))
    writeFileSync(join(cwd, '.loops', `${loop}.yaml`), text);
  const native = await NativeConnection.connect({ address: `127.0.0.1:${port}` });
  connections.push(native);
  const taskQueue = `journal-${randomUUID()}`;
  const { worker } = await createLoopWorker({
    connection: native,
    taskQueue,
    activityDeps: { journalDir: journal, ...(opts.env ? { env: opts.env } : {}) },
  });
  const running = worker.run();
  const def = definition({ name, ...opts.loop(killed) });
  const input: LoopWorkflowInput = {
    definition: def,
    options: {
      cwd,
      searchAttributes: false,
      localActivityMaxTimeoutS: opts.localMaxS,
      // The remote action's lost attempt is retried after its heartbeat timeout: 8 s, not 30.
      heartbeatTimeoutS: 8,
      closeAsOutcome: true,
      actionCallKeys: true,
      ...opts.rules,
    },
  };
  const workflowId = `${name}-${randomUUID().slice(0, 8)}`;
  const first = new Client({ connection: await Connection.connect({ address: `127.0.0.1:${port}` }) });
  connections.push(first.connection);
  await first.workflow.start(LOOP_WORKFLOW_TYPE, { workflowId, taskQueue, args: [input] });
  // The action kills the server after its work: its result cannot be reported.
  await waitFor('the action to kill the server', () => !pidAlive(killed), 60_000);
  // The core retries a completion for a while, then gives it up (and says so): only then is it lost.
  await waitFor(
    'the worker to give the completion up',
    () => sdkLog.some((m) => /error while completing (workflow activation|activity)/i.test(m)),
    90_000,
  );
  server = await startServer();
  const again = new Client({ connection: await Connection.connect({ address: `127.0.0.1:${port}` }) });
  connections.push(again.connection);
  const handle = again.workflow.getHandle(workflowId);
  const result = (await handle.result()) as LoopRunResult;
  // The results the run received, as its history holds them (a local activity's in its marker).
  const delivered = (await handle.fetchHistory())
    .events!.flatMap((e) => [
      ...(e.activityTaskCompletedEventAttributes?.result?.payloads ?? []),
      ...Object.values(e.markerRecordedEventAttributes?.details ?? {}).flatMap((d) => d.payloads ?? []),
    ])
    .map((p) => Buffer.from(p.data ?? new Uint8Array()).toString('utf8'));
  worker.shutdown();
  await running;
  server.kill('SIGKILL');
  await waitFor('the server to stop', () => !pidAlive(server!.pid!), 30_000);
  const log = join(cwd, 'ran.log');
  return {
    result,
    lines: existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : [],
    journal,
    delivered,
  };
}

/** `a` (appends a line to `ran.log`, then kills the server once) → `b`; `a` times out after `timeoutS`. */
const killInA =
  (timeoutS: number) =>
  (killed: number): Record<string, unknown> => ({
    initial: 'a',
    // Under a budget a quick action runs as a local activity of its own, not in a burst
    // (fsm/run/burst.ts mayBurst).
    budget: { max_cost_usd: 100 },
    states: {
      a: {
        action: `echo ran >> ran.log; if [ ! -e killed ]; then touch killed; kill -9 ${killed}; fi; echo done-a`,
        timeout: timeoutS,
        capture: 'a',
        next: 'b',
      },
      b: { action: 'echo "b saw ${captured.a.output}"', terminal: true },
    },
  });

describe('a completed action whose completion was lost', () => {
  it('a quick action of a run that names its calls (actionCallKeys) is journaled by its call and not run again', async () => {
    const { result, lines, journal, delivered } = await runAcrossServerKill('journal-calls', {
      localMaxS: 60,
      loop: killInA(10),
    });
    expect(result.final_state).toBe('b');
    expect(lines).toEqual(['ran']);
    expect(delivered.filter((d) => d.includes('"output":"done-a'))).toEqual([
      expect.stringContaining('"redelivered":true'),
    ]);
    const [run] = readdirSync(journal);
    expect(readdirSync(join(journal, run!)).sort()).toEqual(['call-1.0.json', 'call-2.0.json']);
  }, 180_000);

  it('a slow action (remote activity) is not run again when its completion cannot reach the server', async () => {
    const { result, lines, delivered } = await runAcrossServerKill('journal-remote', {
      localMaxS: 0,
      loop: killInA(600),
    });
    expect(result.final_state).toBe('b');
    expect(lines).toEqual(['ran']);
    expect(delivered.filter((d) => d.includes('"output":"done-a'))).toEqual([
      expect.stringContaining('"redelivered":true'),
    ]);
    expect(result.captured.a?.output).toBe('done-a');
  }, 180_000);

  it("a burst's quick actions are journaled and not run again when the burst's workflow task completion is lost", async () => {
    // No budget: a, b and c run as one burst (one local activity); d, the terminal, alone after it.
    // b kills the server after its work, and c runs before the burst's completion is lost. a's
    // output holds a secret, which the journal holds masked, as the history does.
    const { result, lines, journal, delivered } = await runAcrossServerKill('journal-burst', {
      localMaxS: 60,
      env: { ...process.env, LL_JOURNAL_SECRET: 'the-journal-secret' },
      loop: (killed) => ({
        initial: 'a',
        states: {
          a: { action: 'echo a >> ran.log; echo "done-a ${env.LL_JOURNAL_SECRET}"', timeout: 10, next: 'b' },
          b: {
            action: `echo b >> ran.log; if [ ! -e killed ]; then touch killed; kill -9 ${killed}; fi; echo done-b`,
            timeout: 10,
            capture: 'b',
            next: 'c',
          },
          c: { action: 'echo c >> ran.log; echo done-c', timeout: 10, next: 'd' },
          d: { action: 'echo d >> ran.log; echo "d saw ${captured.b.output}"', terminal: true },
        },
      }),
    });
    expect(result.final_state).toBe('d');
    expect(result.captured.b?.output).toBe('done-b');
    expect(lines).toEqual(['a', 'b', 'c', 'd']);
    // One burst marker, holding the three results as the journal delivered them again.
    const bursts = delivered.filter((d) => d.includes('"output":"done-a'));
    expect(bursts).toHaveLength(1);
    const facts = (JSON.parse(bursts[0]!) as { facts: Array<{ result: { output: string; redelivered?: boolean } }> })
      .facts;
    expect(facts.map((f) => [f.result.output.trim(), f.result.redelivered])).toEqual([
      ['done-a ***', true],
      ['done-b', true],
      ['done-c', true],
    ]);
    const [run] = readdirSync(journal);
    const entries = readdirSync(join(journal, run!));
    expect(entries.filter((e) => e.startsWith('burst-'))).toHaveLength(3);
    for (const e of entries) {
      expect(statSync(join(journal, run!, e)).mode & 0o777).toBe(0o600);
      expect(readFileSync(join(journal, run!, e), 'utf8')).not.toContain('the-journal-secret');
    }
  }, 180_000);

  it("a fan-out's quick items in lanes are journaled and not run again when their workflow task completion is lost", async () => {
    // Three items side by side, each one burst; b kills the server after its work, a and c end
    // beside it: none of the three bursts' markers reaches the history, and the task is run again.
    const { result, lines, delivered } = await runAcrossServerKill('journal-lanes', {
      localMaxS: 60,
      rules: { laneItems: true },
      loops: (killed) => ({
        item: `name: item
description: one item
initial: run
parameters:
  name: { type: string, required: true }
states:
  run:
    action: |
      echo \${context.name} >> ran.log
      if [ \${context.name} = b ] && [ ! -e killed ]; then touch killed; kill -9 ${killed}; fi
      echo done-\${context.name}
    timeout: 10
    next: done
  done: { terminal: true }
`,
      }),
      loop: () => ({
        initial: 'fan',
        states: {
          fan: {
            parallel: { items: ['a', 'b', 'c'], loop: 'item', with: { name: '${item}' }, max_workers: 3 },
            on_yes: 'kill',
            on_no: 'kill',
          },
          kill: { action: 'echo joined', timeout: 10, terminal: true },
        },
      }),
    });
    expect(result.final_state).toBe('kill');
    expect((result.captured.fan as unknown as { succeeded: number }).succeeded).toBe(3);
    expect([...lines].sort()).toEqual(['a', 'b', 'c']);
    // Every item's burst was delivered again from the journal once the history had lost it.
    const bursts = delivered.filter((d) => d.includes('"facts"') && d.includes('done-'));
    expect(bursts).toHaveLength(3);
    expect(bursts.every((b) => b.includes('"redelivered":true'))).toBe(true);
  }, 180_000);
});
