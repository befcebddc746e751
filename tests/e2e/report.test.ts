/**
 * `ll-loop report` and loop versions through the built binary, on a real Temporal server (the
 * project's embedded one): two versions of a loop (the first with a check that always errors),
 * each run twice; `report --json` groups the runs by version with their counts and suggestions,
 * `history` shows each run's version, and a loop without runs says so.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliBinary } from '../support/cli.js';
import { freePort, waitFor } from '../support/processes.js';

let cwd: string;
let env: NodeJS.ProcessEnv;
const cli = (args: string[]) => runCliBinary(args, { cwd, env });

/** The loop `flaky`, whose check exits with `exit`: 2 is an error verdict, 0 a success. */
function flaky(exit: number): void {
  writeFileSync(
    join(cwd, '.loops', 'flaky.yaml'),
    `name: flaky
description: a check that errors, until it is fixed
initial: prepare
max_iterations: 5
states:
  prepare:
    action: "true"
    next: check
  check:
    action: "exit ${exit}"
    on_yes: done
    on_no: failed
    on_error: failed
  done:
    terminal: true
  failed:
    terminal: true
    failure: true
`,
  );
}

interface Entry {
  id: string;
  loop_version: string;
}
interface Version {
  version: string;
  figures: { runs: number; succeeded: number; failed: number; states: Array<{ state: string; errors: number }> };
  suggestions: Array<{ rule: string; state?: string }>;
}

beforeAll(async () => {
  cwd = mkdtempSync(join(tmpdir(), 'll-loop-report-'));
  mkdirSync(join(cwd, '.loops'));
  const { TEMPORAL_ADDRESS: _drop, ...rest } = process.env;
  env = {
    ...rest,
    LL_TEMPORAL_PORT: String(await freePort()),
    LL_TEMPORAL_UI_PORT: String(await freePort()),
    NO_COLOR: '1',
  };
  writeFileSync(join(cwd, '.loops', 'idle.yaml'), 'name: idle\ninitial: done\nstates:\n  done:\n    terminal: true\n');
});

afterAll(async () => {
  await cli(['worker', 'stop']);
  await cli(['server', 'stop']);
  rmSync(cwd, { recursive: true, force: true });
});

describe('ll-loop report', () => {
  it('says a loop has no runs, and refuses a name that is no loop here', async () => {
    const none = await cli(['report', 'idle']);
    expect(none.stderr).toBe('');
    expect(none.code).toBe(0);
    expect(none.stdout).toContain('no runs of idle in this project: start one with ll-loop run idle');
    const unknown = await cli(['report', 'nosuch']);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('no loop matches "nosuch"');
    const flag = await cli(['report', 'idle', '--since', 'yesterday']);
    expect(flag.code).not.toBe(0);
    expect(flag.stderr).toContain('--since "yesterday" is not a duration');
  });

  it('groups the runs by loop version, with counts and suggestions; history shows each version', async () => {
    flaky(2);
    for (let i = 0; i < 2; i++) expect((await cli(['run', 'flaky'])).code).not.toBe(0);
    flaky(0);
    for (let i = 0; i < 2; i++) expect((await cli(['run', 'flaky'])).code).toBe(0);

    // The server's run list takes in a closed run a moment after it closed.
    let entries: Entry[] = [];
    await waitFor('four runs of flaky in history', async () => {
      const h = await cli(['history', 'flaky', '--json']);
      entries = h.code === 0 ? (JSON.parse(h.stdout) as Entry[]) : [];
      return entries.length === 4;
    });
    const [fixed, broken] = [entries[0]!.loop_version, entries[3]!.loop_version];
    expect(fixed).toMatch(/^[0-9a-f]{12}$/);
    expect(broken).toMatch(/^[0-9a-f]{12}$/);
    expect(fixed).not.toBe(broken);
    expect(entries.map((e) => e.loop_version)).toEqual([fixed, fixed, broken, broken]);

    const text = await cli(['history', 'flaky']);
    expect(text.stdout).toMatch(/\bVERSION\b/);
    expect(text.stdout).toContain(fixed);
    expect(text.stdout).toContain(broken);

    const r = await cli(['report', 'flaky', '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as {
      runs_found: number;
      runs_read: number;
      limit: number;
      all: { runs: number; succeeded: number; failed: number; success_rate: number };
      versions: Version[];
      comparison: { from: string; to: string; success_rate: [number, number] };
    };
    expect(report).toMatchObject({ runs_found: 4, runs_read: 4, limit: 50 });
    expect(report.all).toMatchObject({ runs: 4, succeeded: 2, failed: 2, success_rate: 0.5 });
    expect(report.versions.map((v) => [v.version, v.figures.runs, v.figures.succeeded, v.figures.failed])).toEqual([
      [fixed, 2, 2, 0],
      [broken, 2, 0, 2],
    ]);
    expect(report.versions[1]!.figures.states.find((s) => s.state === 'check')?.errors).toBe(2);
    expect(report.versions[1]!.suggestions.map((s) => `${s.rule}:${s.state ?? ''}`)).toEqual([
      'state_errors:check',
      'failures_end_in:failed',
    ]);
    expect(report.versions[0]!.suggestions).toEqual([]);
    expect(report.comparison).toEqual({
      from: broken,
      to: fixed,
      success_rate: [0, 1],
      median_iterations_to_success: [null, expect.any(Number)],
      median_duration_ms_to_success: [null, expect.any(Number)],
      cost_per_run: [null, null],
    });

    const limited = await cli(['report', 'flaky', '--limit', '2']);
    expect(limited.code).toBe(0);
    expect(limited.stdout).toContain('the newest 2 of 4 runs (--limit 2)');
    expect(limited.stdout).toContain(`version ${fixed}`);
    expect(limited.stdout).not.toContain(`version ${broken}`);
  });
});
