/**
 * Scope locks through `ll-loop` itself (in process, against the test run's server): a busy run
 * exits 8 naming the holder and the flag to wait; `--queue` waits, `status` says for whom,
 * `queue list` shows holders and waiters in order, `queue remove` ends a waiter with exit 8,
 * `--queue-timeout` gives up with exit 8, `--no-lock` runs regardless. The checkout's worker
 * (started on demand) serves the runs and the checkout's lock queue.
 */
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { EXIT } from '../../errors/exit-codes.js';
import type { LockQueueReport } from '../../runs/scopes/scope-queues.js';
import { runCliInProcess, type CliResult } from '../support/cli.js';
import { settle, waitFor } from '../support/processes.js';
import { closeTemporal, project } from './harness.js';
import { runEnvDir } from '../../host/run-env.js';

let saved: string | undefined;
let savedState: string | undefined;
beforeAll(() => {
  saved = process.env.TEMPORAL_ADDRESS;
  process.env.TEMPORAL_ADDRESS = inject('temporalAddress');
  // The runs' environment files (host/run-env.ts) in a directory of this test's own.
  savedState = process.env.LL_STATE_DIR;
  process.env.LL_STATE_DIR = mkdtempSync(join(tmpdir(), 'll-scope-lock-state-'));
});
afterAll(async () => {
  if (saved === undefined) delete process.env.TEMPORAL_ADDRESS;
  else process.env.TEMPORAL_ADDRESS = saved;
  if (savedState === undefined) delete process.env.LL_STATE_DIR;
  else process.env.LL_STATE_DIR = savedState;
  await closeTemporal();
});

/** Whether the environment a run's command left (the caller's variables, secrets included) is on disk. */
const envFileOf = (runId: string): boolean => existsSync(join(runEnvDir(), `${encodeURIComponent(runId)}.json`));

/** A project with loops that hold their scope until `release-<name>` exists. */
function checkout(): string {
  const { cwd } = project();
  mkdirSync(join(cwd, '.loops'));
  const loop = (name: string, scope: string) =>
    writeFileSync(
      join(cwd, '.loops', `${name}.yaml`),
      `name: ${name}\ninitial: work\n${scope}states:\n  work:\n    action: "for i in $(seq 600); do [ -f release-${name} ] && exit 0; sleep 0.1; done; exit 1"\n    on_yes: done\n    on_no: failed\n  done: { terminal: true }\n  failed: { terminal: true, failure: true }\n`,
    );
  loop('whole', '');
  loop('api', 'scope:\n  - src/api/\n');
  loop('waiter', 'scope: ["src"]\n');
  loop('patient', 'scope: ["src/api/v2"]\n');
  loop('docs', 'scope: ["docs"]\n');
  return cwd;
}

const cli = (cwd: string, ...args: string[]) => runCliInProcess(args, { cwd });

async function queues(cwd: string): Promise<LockQueueReport[]> {
  const r = await cli(cwd, 'queue', 'list', '--json');
  expect(r.code, r.stderr).toBe(EXIT.ok);
  return JSON.parse(r.stdout) as LockQueueReport[];
}

/** The queue of this checkout (its domain ends with its path). */
async function queueOf(cwd: string): Promise<LockQueueReport | undefined> {
  return (await queues(cwd)).find((q) => q.domain.endsWith(`:${cwd}`));
}

async function holderId(cwd: string, loop: string): Promise<string> {
  return settle(
    async () => (await queueOf(cwd))?.holders.find((h) => h.run.startsWith(`${loop}-`))?.run ?? '',
    (id) => id !== '',
    20_000,
  );
}

const release = (cwd: string, name: string) => writeFileSync(join(cwd, `release-${name}`), '');

describe('ll-loop run with scope locks', () => {
  it('busy → exit 8 naming the holder; --no-lock runs anyway; non-overlapping runs at once', async () => {
    const cwd = checkout();
    const whole = cli(cwd, 'run', 'whole', '--json');
    const holder = await holderId(cwd, 'whole');

    const busy = await cli(cwd, 'run', 'api');
    expect(busy.code).toBe(EXIT.scopeBusy);
    expect(busy.stderr).toContain(`scope src/api is busy: held by ${holder} (scope .)`);
    expect(busy.stderr).toContain('nothing was started');
    expect(busy.stderr).toMatch(/fix: .*--queue/);

    // --no-lock bypasses the lock: it runs (and finishes) while `whole` holds everything.
    release(cwd, 'docs');
    const unlocked = await cli(cwd, 'run', 'docs', '--no-lock', '--json');
    expect(unlocked.code, unlocked.stderr).toBe(EXIT.ok);

    release(cwd, 'whole');
    expect((await whole).code).toBe(EXIT.ok);
  });

  it('--queue waits in order (status and queue list say so); queue remove and --queue-timeout end waiters with exit 8', async () => {
    const cwd = checkout();
    const api = cli(cwd, 'run', 'api', '--json');
    const holder = await holderId(cwd, 'api');

    const waiter = cli(cwd, 'run', 'waiter', '--queue', '--json');
    await waitFor('waiter to queue', async () => ((await queueOf(cwd))?.waiters.length ?? 0) === 1, 20_000);
    const patient = cli(cwd, 'run', 'patient', '--queue', '--json');
    await waitFor('patient to queue', async () => ((await queueOf(cwd))?.waiters.length ?? 0) === 2, 20_000);

    const q = (await queueOf(cwd))!;
    expect(q.holders.map((h) => [h.run, h.scopes])).toEqual([[holder, ['src/api']]]);
    expect(q.waiters.map((w) => [w.run.split('-')[0], w.scopes, w.position])).toEqual([
      ['waiter', ['src'], 1],
      ['patient', ['src/api/v2'], 2],
    ]);
    const [waiterId, patientId] = q.waiters.map((w) => w.run) as [string, string];
    expect(envFileOf(waiterId)).toBe(true);

    const human = await cli(cwd, 'queue', 'list');
    expect(human.stdout).toMatch(new RegExp(`holds +${holder} +src/api`));
    expect(human.stdout).toMatch(new RegExp(`waits #1 +${waiterId}`));

    const status = await settle(
      () => cli(cwd, 'status', waiterId),
      (r: CliResult) => r.stdout.includes('behind'),
      20_000,
    );
    expect(status.stdout).toMatch(new RegExp(`scope lock: +waiting for src behind ${holder}`));
    expect(status.stdout).toContain('nothing has run yet: it starts in state work once it holds its scopes');

    // Remove the first waiter: it ends as a busy run; the second moves up.
    const removed = await cli(cwd, 'queue', 'remove', waiterId);
    expect(removed.code, removed.stderr).toBe(EXIT.ok);
    const waiterEnd = await waiter;
    expect(waiterEnd.code).toBe(EXIT.scopeBusy);
    expect(waiterEnd.stderr).toContain(`note: waiting for scope src behind ${holder} (--queue)`);
    expect(waiterEnd.stderr).toContain(
      `run ${waiterId} did not start: scope src is busy: removed from the queue (ll-loop queue remove) while it waited; it was held by ${holder}`,
    );
    // A run that never starts leaves no copy of its caller's environment behind.
    expect(envFileOf(waiterId)).toBe(false);
    expect((await queueOf(cwd))!.waiters.map((w) => [w.run, w.position])).toEqual([[patientId, 1]]);

    // A holder cannot be removed; an unknown run is not in any queue.
    expect((await cli(cwd, 'queue', 'remove', holder)).stderr).toContain('holds its scopes');
    expect((await cli(cwd, 'queue', 'remove', 'nobody-123')).code).toBe(EXIT.usage);

    // Out of patience: gives up with exit 8.
    const hasty = await cli(cwd, 'run', 'waiter', '--queue-timeout', '1s');
    expect(hasty.code).toBe(EXIT.scopeBusy);
    expect(hasty.stderr).toMatch(
      /scope src is busy: gave up waiting after \d+ s \(--queue-timeout\); it was held by api-/,
    );
    // Its fix names the holder and the next steps, not the same --queue-timeout again.
    expect(hasty.stderr).toContain(`fix: ${holder} holds scope src/api: run this again once it has ended`);
    expect(hasty.stderr).toContain(`stop it with ll-loop stop ${holder}`);
    expect(hasty.stderr).toMatch(/a --queue-timeout longer than the \d+ s it waited/);
    expect(hasty.stderr).not.toContain('--queue-timeout 10m');
    const hastyId = /run (\S+) did not start/.exec(hasty.stderr)?.[1] ?? '';
    expect(hastyId).toMatch(/^waiter-/);
    expect(envFileOf(hastyId)).toBe(false);

    release(cwd, 'api');
    release(cwd, 'patient');
    expect((await api).code).toBe(EXIT.ok);
    expect((await patient).code).toBe(EXIT.ok);
    // The worker removes the files of runs that ended.
    await waitFor('the ended runs’ environment files to go', () => !envFileOf(holder) && !envFileOf(patientId), 20_000);
  });
});
