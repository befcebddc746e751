/**
 * A server without the namespace ll-loop is told to use (TEMPORAL_NAMESPACE), through the built
 * binary: each command says so in one line with the fix (exit 7), and the checkout worker that
 * each command starts writes one line naming the namespace and the fix to its log — once, not a
 * gRPC status dump per command.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { runCliBinary } from '../support/cli.js';
import { pidsUnder, waitFor } from '../support/processes.js';
import { workerLog } from '../support/worker-files.js';

const cwd = mkdtempSync(join(tmpdir(), 'll-loop-e2e-no-namespace-'));
const namespace = `ll-missing-${randomBytes(3).toString('hex')}`;

afterAll(() => rmSync(cwd, { recursive: true, force: true }));

/** `ll-loop <args…>`, then the wait for the checkout worker it started to have exited. */
async function cli(args: string[]) {
  const { TEMPORAL_ADDRESS: _drop, ...rest } = process.env;
  const r = await runCliBinary(args, {
    cwd,
    env: { ...rest, TEMPORAL_ADDRESS: inject('temporalAddress'), TEMPORAL_NAMESPACE: namespace, NO_COLOR: '1' },
  });
  await waitFor('the checkout worker to exit', () => pidsUnder(cwd).length === 0, 60_000);
  return r;
}

describe('a namespace the server does not have', () => {
  it('each command says so in one line; the worker log says it once, with the fix', async () => {
    mkdirSync(join(cwd, '.loops'));
    writeFileSync(
      join(cwd, '.loops', 'hello.yaml'),
      'name: hello\ninitial: say\nstates:\n  say:\n    action: "echo hi"\n    next: done\n  done:\n    terminal: true\n',
    );
    for (const args of [
      ['run', 'hello'],
      ['status', 'hello'],
      ['run', 'hello'],
    ]) {
      const r = await cli(args);
      expect(r.code, r.stderr).toBe(7);
      expect(r.stderr).toMatch(new RegExp(`^error: Temporal namespace "${namespace}" does not exist on this server`));
    }
    const lines = workerLog(cwd).trimEnd().split('\n');
    expect(lines, workerLog(cwd)).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(
        `^\\S+Z cannot serve ${cwd}: Temporal namespace "${namespace}" does not exist on this server .*; fix: run \`ll-loop cluster setup\``,
      ),
    );
    expect(workerLog(cwd)).not.toContain('Status {');
  }, 240_000);
});
