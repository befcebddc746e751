/**
 * A run's environment file (host/run-env.ts) never outlives its run where a command sees the
 * end: `endOfRun` removes it for a run refused its scopes (exit 8) or closed otherwise. (A
 * worker's sweep of the rest is tests/integration/run-env-sweep.test.ts; `queue remove` is in
 * tests/integration/scope-lock-cli.test.ts.)
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { endOfRun } from '../../runs/follow/follow-run.js';
import { EXIT } from '../../errors/exit-codes.js';
import { runEnvDir, runEnvFor, writeRunEnv } from '../../host/run-env.js';
import { SCOPE_BUSY } from '../../workflows/scope-lock-definitions.js';
import type { RunInfo } from '../../reporters/reporter.js';

let saved: string | undefined;
beforeEach(() => {
  saved = process.env.LL_STATE_DIR;
  process.env.LL_STATE_DIR = mkdtempSync(join(tmpdir(), 'll-run-env-'));
});
afterEach(() => {
  if (saved === undefined) delete process.env.LL_STATE_DIR;
  else process.env.LL_STATE_DIR = saved;
});

const fileOf = (id: string) => join(runEnvDir(), `${encodeURIComponent(id)}.json`);
const info = (instanceId: string) => ({ instanceId }) as RunInfo;

describe('a run’s environment file', () => {
  it('is removed when the followed run was refused its scopes (exit 8)', () => {
    writeRunEnv('busy-1', { SECRET: 's3cret' }, { server: '127.0.0.1:7233/default' });
    expect(runEnvFor('busy-1')?.SECRET).toBe('s3cret');
    const code = endOfRun(
      {
        workflowId: 'busy-1',
        events: [],
        input: undefined,
        warnings: [],
        end: {
          status: 'failed',
          reason: 'busy',
          failure: {
            type: SCOPE_BUSY,
            message: 'scope src is busy',
            details: { scopes: ['src'], blockers: [] },
          } as never,
        },
      },
      undefined,
      info('busy-1'),
      () => undefined,
    );
    expect(code).toBe(EXIT.scopeBusy);
    expect(existsSync(fileOf('busy-1'))).toBe(false);
  });

  it('is removed when the followed run was terminated, and kept while it has not ended', () => {
    writeRunEnv('gone-1', { SECRET: 's3cret' });
    expect(
      endOfRun(
        {
          workflowId: 'gone-1',
          events: [],
          input: undefined,
          warnings: [],
          end: { status: 'terminated', reason: 'by hand' },
        },
        undefined,
        info('gone-1'),
        () => undefined,
      ),
    ).toBe(EXIT.runError);
    expect(existsSync(fileOf('gone-1'))).toBe(false);
    writeRunEnv('open-1', { SECRET: 's3cret' });
    expect(
      endOfRun(
        { workflowId: 'open-1', events: [], input: undefined, warnings: [], end: undefined },
        undefined,
        info('open-1'),
        () => undefined,
      ),
    ).toBe(EXIT.runError);
    expect(existsSync(fileOf('open-1'))).toBe(true);
  });

  it("reaches the runs under a run: its sub-loops, its fan-out's items, and theirs, but no other run", () => {
    writeRunEnv('fan-20261129T010203', { SECRET: 'of-the-command' });
    // A sub-loop: `.<state>.<step>`; a fan-out item: `.<state>.<step>.<index>`; nested either way.
    for (const id of [
      'fan-20261129T010203.review.3',
      'fan-20261129T010203.each.2.0',
      'fan-20261129T010203.each.2.11.fix.4',
      'fan-20261129T010203.each.2.1.inner.5.7',
    ])
      expect(runEnvFor(id)?.SECRET, id).toBe('of-the-command');
    expect(runEnvFor('fan-20261129T010204.each.2.0')).toBeUndefined();
    expect(runEnvFor('other-20261129T010203')).toBeUndefined();
  });
});
