/**
 * A scheduled run's id is the schedule's action id plus the time Temporal appends
 * (`<loop>-2026-11-24T03:00:00Z`): its files under `.loops/.running/` are named without the `:`
 * (host/run-files.ts `runFileStem`), and that name is accepted as the run id.
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runFileStem } from '../../host/run-files.js';
import { runCliInProcess } from '../support/cli.js';
import { temporal } from './harness.js';
import { useServedProject } from './served-project.js';

const suffix = randomUUID().slice(0, 8);
const taskQueue = `ll-loop-scheduled-files-${suffix}`;
const served = useServedProject(taskQueue);

it("a schedule-started run's files have no ':' in their names, and that name finds the run", async () => {
  const name = `nightly-${suffix}`;
  writeFileSync(
    join(served.cwd, '.loops', `${name}.yaml`),
    `name: ${name}\ninitial: a\nstates:\n  a:\n    action: "echo tick"\n    next: done\n  done:\n    terminal: true\n`,
  );
  const cli = (...args: string[]) => runCliInProcess(args, { cwd: served.cwd });
  expect((await cli('schedule', name, '--every', '1h', '--task-queue', taskQueue)).code).toBe(0);
  try {
    const triggered = await cli('schedule', 'trigger', name, '--json');
    expect(triggered.code, triggered.stderr).toBe(0);
    const { run } = JSON.parse(triggered.stdout) as { run: string };
    expect(run).toMatch(new RegExp(`^${name}-\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z$`)); // Temporal's id, as it is
    const { client } = await temporal();
    await client.workflow.getHandle(run).result();
    const files = readdirSync(join(served.cwd, '.loops', '.running'));
    expect(files.filter((f) => f.startsWith(name)).sort()).toEqual([
      `${runFileStem(run)}.events.jsonl`,
      `${runFileStem(run)}.state.json`,
    ]);
    expect(files.some((f) => f.includes(':'))).toBe(false);
    const status = await cli('status', runFileStem(run));
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain(`run ${run}`);
  } finally {
    await cli('schedule', 'delete', name);
  }
}, 60_000);
