/**
 * `list`, `status` (and `--follow`), `stop` and `history` against the test run's real Temporal
 * server, called as functions with a project directory. Runs that must stay open are started on
 * a worker that runs in the background of this file (or on a task queue nobody polls: no worker).
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineSearchAttributeKey } from '@temporalio/common';
import { beforeAll, describe, expect, it } from 'vitest';
import { followCommand } from '../../client/commands/follow.js';
import { historyCommand } from '../../client/commands/history.js';
import { COMMANDS } from '../../client/commands/index.js';
import { listCommand } from '../../client/commands/list.js';
import { statusCommand } from '../../client/commands/status.js';
import { runStatus } from '../../runs/find/status-report.js';
import { stopCommand } from '../../client/commands/stop.js';
import { NoWorkerError } from '../../runs/control/stop-run.js';
import { InfrastructureError } from '../../errors/errors.js';
import { RunNotOpenError } from '../../runs/find/run-target.js';
import { AmbiguousRunError, findRuns, RunNotFoundError, settledRun } from '../../runs/find/find-runs.js';
import type { LoopDefinition } from '../../fsm/schema.js';
import type { ExecutionResult } from '../../fsm/types.js';
import { eventsPath } from '../../host/run-files.js';
import { LOOP_WORKFLOW_TYPE } from '../../workflows/definitions.js';
import { liveProcesses, until } from '../support/processes.js';
import { definition, temporal } from './harness.js';
import { useServedProject } from './served-project.js';

const QUEUE = `lifecycle-${randomUUID()}`;
const NOBODY = `nobody-${randomUUID()}`;
const served = useServedProject(QUEUE);
let cwd: string;
beforeAll(() => {
  cwd = served.cwd;
});

function output(): { out: (t: string) => void; text: () => string; json: <T>() => T } {
  const chunks: string[] = [];
  return {
    out: (t) => void chunks.push(t),
    text: () => chunks.join(''),
    json: <T>() => JSON.parse(chunks.join('')) as T,
  };
}

/** Start a loop as `ll-loop run` does (memo, LoopName), on the background worker or on no worker. */
async function start(def: LoopDefinition, taskQueue = QUEUE): Promise<string> {
  const { client } = await temporal();
  const id = `${def.name}-${randomUUID().slice(0, 8)}`;
  await client.workflow.start(LOOP_WORKFLOW_TYPE, {
    workflowId: id,
    taskQueue,
    args: [{ definition: def, options: { cwd, searchAttributes: true, closeAsOutcome: true } }],
    memo: { cwd, loop: def.name },
    typedSearchAttributes: [{ key: defineSearchAttributeKey('LoopName', 'KEYWORD'), value: def.name }],
  });
  return id;
}

const unique = () => randomUUID().slice(0, 6);

function sleeper(name: string, marker: string): LoopDefinition {
  return definition({
    name,
    initial: 'first',
    states: {
      first: { action: 'echo kept', capture: 'first', next: 'wait' },
      wait: { action: `sleep ${marker}`, on_yes: 'done' },
      done: { terminal: true },
    },
  });
}

describe('ll-loop list', () => {
  it('lists the loops in .loops/ with their metadata, filters, and skips an invalid file with a warning', async () => {
    const dir = join(cwd, '.loops');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'alpha.yaml'),
      'name: alpha\ndescription: First loop\ncategory: ci\nlabels: [fast, lint]\ninitial: a\nstates:\n  a:\n    terminal: true\n',
    );
    writeFileSync(join(dir, 'beta.yml'), 'name: beta\ncategory: docs\ninitial: a\nstates:\n  a:\n    terminal: true\n');
    writeFileSync(join(dir, 'broken.yaml'), 'name: broken\ninitial: nowhere\nstates:\n  a:\n    terminal: true\n');
    const all = output();
    await listCommand({ cwd, json: true, out: all.out });
    const loops =
      all.json<Array<{ name: string; valid: boolean; category?: string; labels: string[]; error?: string }>>();
    expect(loops.map((l) => l.name)).toEqual(['alpha', 'beta', 'broken']);
    expect(loops[0]).toMatchObject({
      valid: true,
      description: 'First loop',
      category: 'ci',
      labels: ['fast', 'lint'],
    });
    expect(loops[2]).toMatchObject({ valid: false });
    expect(loops[2]!.error).toContain('nowhere');
    const byCategory = output();
    await listCommand({ cwd, json: true, category: 'docs', out: byCategory.out });
    expect(byCategory.json<Array<{ name: string }>>().map((l) => l.name)).toEqual(['beta']);
    const byLabel = output();
    await listCommand({ cwd, json: true, labels: ['fast'], out: byLabel.out });
    expect(byLabel.json<Array<{ name: string }>>().map((l) => l.name)).toEqual(['alpha']);
    const text = output();
    const warnings = output();
    await listCommand({ cwd, json: false, out: text.out, err: warnings.out });
    expect(text.text()).toMatch(/alpha\s+ci\s+fast,lint\s+First loop/);
    expect(text.text()).not.toContain('broken');
    expect(warnings.text()).toMatch(/^warning: skipped .*broken\.yaml: .*nowhere.* \(ll-loop validate broken\)\n$/);
  });
});

describe('a running loop: list --running, status, stop, status of the finished run', () => {
  it('shows the live state, stops it (its process is killed, captured values kept), then reports the result', async () => {
    const marker = `37.${Date.now() % 100000}`;
    const name = `lc-sleeper-${unique()}`;
    const id = await start(sleeper(name, marker));
    const live = await until('the run to be in its action', async () => {
      const report = await runStatus(cwd, id);
      return report.live?.state === 'wait' && report.live.phase === 'action' ? report : undefined;
    });
    expect(live).toMatchObject({
      id,
      loop: name,
      open: true,
      worker: true,
      live: { iteration: 1, steps: 2, captured: ['first'] },
    });
    // The run says it is in its action once the action is handed to the worker; its process
    // follows a moment later (the worker's spawner starts it).
    await until('the action process to run', async () => (liveProcesses(marker) === 1 ? true : undefined));
    expect(liveProcesses(marker)).toBe(1);
    // The elapsed time goes on during a long action (the workflow's own clock stands still there).
    await new Promise((r) => setTimeout(r, 1_200));
    const later = await runStatus(cwd, id);
    expect((later.live?.elapsed_ms ?? 0) - (live.live?.elapsed_ms ?? 0)).toBeGreaterThanOrEqual(1_000);

    const listed = output();
    await listCommand({ cwd, json: true, running: true, out: listed.out });
    const mine = listed.json<Array<{ id: string }>>().find((r) => r.id === id);
    expect(mine).toMatchObject({ loop: name, worker: true, state: 'wait', phase: 'action', iteration: 1 });

    const text = output();
    await statusCommand({ cwd, target: name, json: false, out: text.out });
    expect(text.text()).toContain('wait (action running)');
    expect(text.text()).toContain('1/50');

    // Past the first heartbeats (the server has recorded two): a stop must not wait for the SDK's
    // heartbeat throttle (by default 24 s with a 30 s heartbeat timeout) to reach the running action.
    const { client } = await temporal();
    const beats = new Set<string>();
    await until(
      'two heartbeats of the action to reach the server',
      async () => {
        const at = (await client.workflow.getHandle(id).describe()).raw.pendingActivities?.[0]?.lastHeartbeatTime;
        if (at) beats.add(`${String(at.seconds)}.${at.nanos ?? 0}`);
        return beats.size >= 2 ? true : undefined;
      },
      30_000,
      100,
    );
    const stopped = output();
    const stopStarted = Date.now();
    expect(await stopCommand({ cwd, target: name, force: false, json: true, out: stopped.out })).toBe(0);
    expect(Date.now() - stopStarted).toBeLessThan(6000);
    const report = stopped.json<{ outcome: string; result: ExecutionResult }>();
    expect(report.outcome).toBe('cancelled');
    expect(report.result).toMatchObject({ terminated_by: 'cancelled', final_state: 'wait' });
    expect(report.result.captured.first?.output).toBe('kept');
    expect(liveProcesses(marker)).toBe(0);

    const after = output();
    await statusCommand({ cwd, target: name, json: false, out: after.out });
    // Headed by its outcome in the outcome words (its workflow is Canceled: `--json`'s status says that).
    expect(after.text()).toMatch(new RegExp(`^run ${id} · stopped \\(`));
    expect(after.text()).toContain('Loop stopped in state wait');
    expect((await runStatus(cwd, id)).result?.terminated_by).toBe('cancelled');

    await expect(
      stopCommand({ cwd, target: id, force: false, json: false, out: () => undefined }),
    ).rejects.toBeInstanceOf(RunNotOpenError);
    await expect(
      stopCommand({ cwd, target: name, force: false, json: false, out: () => undefined }),
    ).rejects.toBeInstanceOf(RunNotOpenError);
    await expect(
      stopCommand({ cwd, target: `no-such-loop-${unique()}`, force: false, json: false, out: () => undefined }),
    ).rejects.toBeInstanceOf(RunNotFoundError);
  });
});

describe('a run that has just started or closed', () => {
  it('is found as the server holds it, while the listing (visibility) may still show it otherwise', async () => {
    const { client } = await temporal();
    // Started a moment ago: the listing records a start in the background, the run is found all the same.
    const open = await start(sleeper(`lc-open-${unique()}`, `38.${Date.now() % 100000}`), NOBODY);
    const [found] = await findRuns(client, open);
    expect(found).toMatchObject({ id: open, open: true, status: 'RUNNING' });
    // A run still open is returned as listed, without a second look changing it.
    expect(await settledRun(client, found!)).toEqual(found);
    await client.workflow.getHandle(open).terminate('test over');

    const name = `lc-quick-${unique()}`;
    const id = await start(
      definition({ name, initial: 'a', states: { a: { action: 'true', next: 'done' }, done: { terminal: true } } }),
    );
    await client.workflow.getHandle(id).result();
    // Closed a moment ago: the listing records the close in the background too.
    const [closed] = await findRuns(client, id);
    expect(closed).toMatchObject({ id, loop: name, open: false, status: 'COMPLETED' });
    // A run listed as still open is taken as the server has it.
    const stale = { ...closed!, open: true, status: 'RUNNING' };
    delete stale.closeTime;
    const settled = await settledRun(client, stale);
    expect(settled).toMatchObject({ id, loop: name, open: false, status: 'COMPLETED' });
    expect(settled.closeTime).toBeInstanceOf(Date);
    // And `status` reports the closed run with its result.
    expect((await runStatus(cwd, id)).result).toMatchObject({ terminated_by: 'terminal', final_state: 'done' });
  });
});

describe('runs without a worker', () => {
  it('list --running and status say "no worker"; stop says so and --force terminates', async () => {
    const id = await start(sleeper(`lc-orphan-${unique()}`, '38.1'), NOBODY);
    const listed = output();
    await until('the run to be visible', async () => {
      const all = output();
      await listCommand({ cwd, json: true, running: true, out: all.out });
      return all.json<Array<{ id: string }>>().some((r) => r.id === id) ? true : undefined;
    });
    await listCommand({ cwd, json: false, running: true, out: listed.out });
    expect(listed.text()).toMatch(new RegExp(`${id}\\s+\\S+\\s+no worker`));
    const status = await runStatus(cwd, id);
    expect(status).toMatchObject({ open: true, worker: false, busy: false });

    const started = Date.now();
    const refused = await stopCommand({
      cwd,
      target: id,
      force: false,
      waitS: 2,
      json: false,
      out: () => undefined,
    }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(NoWorkerError);
    expect((refused as NoWorkerError).fix).toContain(
      "once a worker serves it again (its checkout's worker comes back with any ll-loop command there",
    );
    expect((refused as NoWorkerError).fix).toContain('--force');
    expect(Date.now() - started).toBeLessThan(10_000);

    const forced = output();
    expect(await stopCommand({ cwd, target: id, force: true, json: false, out: forced.out })).toBe(0);
    expect(forced.text()).toContain(`terminated ${id}`);
    const after = await until('the run to be closed', async () => {
      const r = await runStatus(cwd, id);
      return r.open ? undefined : r;
    });
    expect(after.status).toBe('terminated');
  });

  it('a name with two open runs is ambiguous, and the error lists both', async () => {
    const name = `lc-twins-${unique()}`;
    const a = await start(sleeper(name, '39.1'), NOBODY);
    const b = await start(sleeper(name, '39.1'), NOBODY);
    const error = await until('both runs to be visible', async () => {
      const e = await statusCommand({ cwd, target: name, json: true, out: () => undefined }).catch((x: unknown) => x);
      return e instanceof AmbiguousRunError ? e : undefined;
    });
    expect(error.message).toContain(a);
    expect(error.message).toContain(b);
    await expect(
      stopCommand({ cwd, target: name, force: true, json: false, out: () => undefined }),
    ).rejects.toBeInstanceOf(AmbiguousRunError);
    for (const id of [a, b]) await stopCommand({ cwd, target: id, force: true, json: false, out: () => undefined });
  });
});

describe('ll-loop history and status --follow', () => {
  it("follows a run to its end, then lists the loop runs and one run's events (filtered, rewritten to the events file)", async () => {
    const name = `lc-counter-${unique()}`;
    const def = definition({
      name,
      initial: 'count',
      backoff: 0.3,
      states: {
        count: {
          action: 'echo ${state.iteration}',
          capture: 'n',
          evaluate: { type: 'output_numeric', operator: 'ge', target: 3 },
          on_yes: 'done',
          on_no: 'count',
        },
        done: { terminal: true },
      },
    });
    const id = await start(def);
    await until('the run to be visible', async () => ((await runStatus(cwd, id)).id === id ? true : undefined));
    const followed = output();
    expect(await followCommand({ cwd, target: id, json: false, out: followed.out, err: () => undefined })).toBe(0);
    expect(followed.text()).toContain('[1/50] count → echo 1');
    expect(followed.text()).toContain('✓ yes (value: 3)');
    expect(followed.text()).toContain('Loop completed: done (3 iterations');
    expect(COMMANDS.monitor).toBeDefined();

    const runs = output();
    await historyCommand({ cwd, loop: name, json: true, out: runs.out });
    expect(runs.json<unknown[]>()).toEqual([
      expect.objectContaining({
        id,
        status: 'completed',
        iterations: 3,
        terminated_by: 'terminal',
        final_state: 'done',
        duration_ms: expect.any(Number),
      }),
    ]);
    const table = output();
    await historyCommand({ cwd, loop: name, json: false, out: table.out });
    expect(table.text()).toMatch(new RegExp(`${id}\\s+completed\\s+.*\\s+3\\s+.*terminal \\(done\\)`));

    const evaluations = output();
    await historyCommand({
      cwd,
      loop: name,
      runId: id,
      json: true,
      events: ['evaluate'],
      state: 'count',
      out: evaluations.out,
    });
    const report = evaluations.json<{ events: Array<{ event: string; verdict: string }> }>();
    expect(report.events.map((e) => [e.event, e.verdict])).toEqual([
      ['evaluate', 'no'],
      ['evaluate', 'no'],
      ['evaluate', 'yes'],
    ]);

    // The worker wrote the live events file; --write replaces it with the rebuild: same events.
    const file = eventsPath(cwd, id);
    const strip = (text: string) =>
      text
        .trim()
        .split('\n')
        .map((l) => ({ ...JSON.parse(l), ts: undefined }));
    await until('the events file', async () =>
      readFileSync(file, 'utf8').includes('loop_complete') ? true : undefined,
    );
    const liveEvents = strip(readFileSync(file, 'utf8'));
    const written = output();
    await historyCommand({ cwd, loop: name, runId: id, json: false, write: true, out: written.out });
    expect(written.text()).toContain(`wrote ${file}`);
    expect(written.text()).toMatch(/loop_complete\s+final_state=done/);
    expect(strip(readFileSync(file, 'utf8'))).toEqual(liveEvents);

    await expect(
      historyCommand({ cwd, loop: 'other-loop', runId: id, json: true, out: () => undefined }),
    ).rejects.toThrow(/is a run of loop/);
    await expect(
      historyCommand({ cwd, loop: `nothing-${unique()}`, json: true, out: () => undefined }),
    ).rejects.toBeInstanceOf(RunNotFoundError);
  });
});

describe('a server that is down', () => {
  it('fails with an infrastructure error within a few seconds', async () => {
    const saved = process.env.TEMPORAL_ADDRESS;
    process.env.TEMPORAL_ADDRESS = '127.0.0.1:1';
    try {
      const started = Date.now();
      await expect(
        statusCommand({ cwd, target: 'anything', json: false, out: () => undefined }),
      ).rejects.toBeInstanceOf(InfrastructureError);
      await expect(listCommand({ cwd, json: false, running: true, out: () => undefined })).rejects.toBeInstanceOf(
        InfrastructureError,
      );
      expect(Date.now() - started).toBeLessThan(15_000);
    } finally {
      process.env.TEMPORAL_ADDRESS = saved;
    }
  });
});
