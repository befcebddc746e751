/**
 * An older build never replaces a newer checkout worker: the order of builds (version, then
 * build time), and a command of this build in a checkout whose worker (a dummy process with a
 * worker record, tests/support/dummy-worker.ts) is a newer ll-loop's. No Temporal.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  ensureCheckoutWorker,
  NewerWorkerServesError,
  reviveCheckoutWorker,
} from '../../runs/workers/checkout-worker.js';
import { buildInfo, compareVersions, isNewerBuild } from '../../host/build-info.js';
import { claimDir } from '../../host/checkout-claim.js';
import { hostId, workerLogPath, workerRecordPath, type WorkerRecord } from '../../host/checkout.js';
import { startDummyWorker, type DummyWorker } from '../support/dummy-worker.js';
import { pidAlive } from '../support/processes.js';

const tmp = mkdtempSync(join(tmpdir(), 'll-newer-worker-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const dummies: DummyWorker[] = [];
afterEach(() => dummies.splice(0).forEach((d) => d.kill()));

describe('the order of builds', () => {
  it.each([
    ['1.2.0', '1.1.9', true],
    ['1.10.0', '1.9.0', true],
    ['2.0.0', '10.0.0', false],
    ['1.0.0', '1.0.0-rc.1', true],
    ['1.0.0-rc.2', '1.0.0-rc.10', false],
    ['1.0.0-beta', '1.0.0-alpha', true],
    ['0.4.0', '0.4.0', false],
  ])('%s is newer than %s: %s', (a, b, newer) => {
    expect(compareVersions(a, b) > 0).toBe(newer);
    expect(isNewerBuild({ version: a }, { version: b })).toBe(newer);
  });

  it('one version: a later build is newer; without both build times, neither is', () => {
    expect(
      isNewerBuild(
        { version: '1.0.0', built_at: '2026-01-02T00:00:00Z' },
        { version: '1.0.0', built_at: '2026-01-01T00:00:00Z' },
      ),
    ).toBe(true);
    expect(
      isNewerBuild(
        { version: '1.0.0', built_at: '2026-01-01T00:00:00Z' },
        { version: '1.0.0', built_at: '2026-01-02T00:00:00Z' },
      ),
    ).toBe(false);
    expect(isNewerBuild({ version: '1.0.0', built_at: '2026-01-02T00:00:00Z' }, { version: '1.0.0' })).toBe(false);
  });
});

describe('a checkout served by a newer ll-loop', () => {
  async function newerWorker(): Promise<{ root: string; dummy: DummyWorker }> {
    const root = mkdtempSync(join(tmp, 'project-'));
    mkdirSync(join(root, '.loops'));
    const dummy = await startDummyWorker(root, {
      host: hostId(),
      version: '99.0.0',
      build_id: '99.0.0+abcdef012345',
      code_id: '99.0.0+abcdef012345/newer',
    });
    dummies.push(dummy);
    return { root, dummy };
  }

  it('a command that needs the worker says which version serves the checkout and how to proceed, and leaves the worker alone', async () => {
    const { root, dummy } = await newerWorker();
    const err = await ensureCheckoutWorker(root, '127.0.0.1:0').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NewerWorkerServesError);
    const e = err as NewerWorkerServesError;
    expect(e.message).toContain(`ll-loop 99.0.0 (worker pid ${dummy.pid}, build 99.0.0+abcdef012345) serves ${root}`);
    expect(e.message).toContain(`this ll-loop is ${buildInfo().version}`);
    expect(e.fix).toContain('run the newer ll-loop');
    expect(e.fix).toContain('ll-loop worker stop');
    // Nothing was started to replace it: no claim, no worker log, the record is still the newer worker's.
    expect(existsSync(claimDir(root))).toBe(false);
    expect(existsSync(workerLogPath(root))).toBe(false);
    expect((JSON.parse(readFileSync(workerRecordPath(root), 'utf8')) as WorkerRecord).pid).toBe(dummy.pid);
    expect(pidAlive(dummy.pid)).toBe(true);
  });

  it('reviving the checkout keeps the newer worker', async () => {
    const { root, dummy } = await newerWorker();
    reviveCheckoutWorker(root);
    expect(existsSync(claimDir(root))).toBe(false);
    expect(existsSync(workerLogPath(root))).toBe(false);
    expect(pidAlive(dummy.pid)).toBe(true);
  });
});
