/**
 * A loop name means the runs of the project the command runs in: two project directories on one
 * server, each with a loop of the same name. By name, stop/status/logs/history/resume/pause/
 * unpause/steer/answer in B do not see A's run; by run id every one of them does; `list --running` shows a project's own runs, `--all-projects`
 * every project's with a PROJECT column. Runs of earlier releases (no LoopCheckout) belong to
 * the directory in their memo.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineSearchAttributeKey } from '@temporalio/common';
import { beforeAll, describe, expect, it } from 'vitest';
import { historyCommand } from '../../client/commands/history.js';
import { controlCommand } from '../../client/commands/control-command.js';
import { answerRun } from '../../runs/human/answer-run.js';
import { listCommand } from '../../client/commands/list.js';
import { logsCommand } from '../../client/commands/logs.js';
import { resumeCommand } from '../../client/commands/resume.js';
import { SharedQueueRunError } from '../../runs/resume/resume-run.js';
import { statusCommand } from '../../client/commands/status.js';
import { runStatus } from '../../runs/find/status-report.js';
import { stopCommand } from '../../client/commands/stop.js';
import { projectScope, RunNotFoundError } from '../../runs/find/find-runs.js';
import type { Connection } from '@temporalio/client';
import { startLoopRun } from '../../runs/start/start-run.js';
import type { LoopDefinition } from '../../fsm/schema.js';
import { LOOP_WORKFLOW_TYPE, statusQuery } from '../../workflows/definitions.js';
import { until } from '../support/processes.js';
import { definition, temporal } from './harness.js';
import { useServedProjects } from './served-project.js';

const QUEUE = `project-scope-${randomUUID()}`;
const served = useServedProjects(QUEUE, 2);
let a: string;
let b: string;

beforeAll(() => {
  a = served.cwd(0);
  b = served.cwd(1);
});

function output(): { out: (t: string) => void; text: () => string; json: <T>() => T } {
  const chunks: string[] = [];
  return {
    out: (t) => void chunks.push(t),
    text: () => chunks.join(''),
    json: <T>() => JSON.parse(chunks.join('')) as T,
  };
}

/** A loop that sleeps in its first action (until stopped), written to the project's `.loops/`. */
function slowLoop(cwd: string, name: string): { def: LoopDefinition; file: string } {
  const raw = {
    name,
    initial: 'wait',
    states: { wait: { action: 'sleep 60', next: 'done' }, done: { terminal: true } },
  };
  mkdirSync(join(cwd, '.loops'), { recursive: true });
  const file = join(cwd, '.loops', `${name}.yaml`);
  writeFileSync(file, JSON.stringify(raw));
  return { def: definition(raw), file };
}

/** Start the loop in `cwd` exactly as `ll-loop run --background` does (memo, search attributes). */
async function startIn(cwd: string, name: string): Promise<string> {
  const { client } = await temporal();
  const { def, file } = slowLoop(cwd, name);
  const { instanceId } = await startLoopRun({
    client,
    definition: def,
    file,
    cwd,
    taskQueue: QUEUE,
    searchAttributes: true,
    started: new Date(),
  });
  return instanceId;
}

/** `cwd`'s `list --running` (every project's with `allProjects`), once it shows run `id`. */
async function listedRunning(
  cwd: string,
  id: string,
  allProjects = false,
): Promise<Array<{ id: string; cwd?: string }>> {
  return until(`run ${id} in list --running of ${cwd}`, async () => {
    const listed = output();
    await listCommand({ cwd, json: true, running: true, allProjects, out: listed.out });
    const runs = listed.json<Array<{ id: string; cwd?: string }>>();
    return runs.some((r) => r.id === id) ? runs : undefined;
  });
}

const unique = () => randomUUID().slice(0, 6);
const ignore = () => undefined;

describe('a loop name in another project', () => {
  it("does not reach that project's run; its run id does; list --running is per project unless --all-projects", async () => {
    const name = `slow-${unique()}`;
    const inA = await startIn(a, name);
    slowLoop(b, name); // B has a loop of the same name, never run.
    await listedRunning(a, inA);

    // By name from B: none of B's runs, and the error names A's run and the way to reach it.
    const stopped = await stopCommand({ cwd: b, target: name, force: false, json: false, out: ignore }).catch(
      (e: unknown) => e,
    );
    expect(stopped).toBeInstanceOf(RunNotFoundError);
    expect((stopped as RunNotFoundError).message).toContain(`no run of this project matches "${name}"`);
    expect((stopped as RunNotFoundError).message).toContain(inA);
    expect((stopped as RunNotFoundError).fix).toContain('run id');
    expect((stopped as RunNotFoundError).fix).toContain('--all-projects');
    await expect(statusCommand({ cwd: b, target: name, json: true, out: ignore })).rejects.toBeInstanceOf(
      RunNotFoundError,
    );
    await expect(
      logsCommand({ cwd: b, target: name, follow: false, json: true, out: ignore, err: ignore }),
    ).rejects.toBeInstanceOf(RunNotFoundError);
    await expect(
      resumeCommand({ cwd: b, target: name, context: [], json: true, out: ignore, err: ignore }),
    ).rejects.toBeInstanceOf(RunNotFoundError);
    const history = output();
    await historyCommand({ cwd: b, loop: name, json: true, out: history.out });
    expect(history.json<unknown[]>()).toEqual([]);
    // A's run is untouched by all that.
    expect((await runStatus(a, inA)).open).toBe(true);

    // By name from A: its own run.
    expect((await runStatus(a, name)).id).toBe(inA);
    const historyA = output();
    await historyCommand({ cwd: a, loop: name, json: true, out: historyA.out });
    expect(historyA.json<Array<{ id: string }>>().map((r) => r.id)).toEqual([inA]);

    // By run id from B: A's run, from anywhere.
    expect((await runStatus(b, inA)).id).toBe(inA);
    const byIdHistory = output();
    await historyCommand({ cwd: b, loop: inA, json: true, out: byIdHistory.out });
    expect(byIdHistory.json<{ id: string }>().id).toBe(inA);
    await expect(
      logsCommand({ cwd: b, target: inA, follow: false, json: true, out: ignore, err: ignore }),
    ).resolves.toBe(0);
    // Found by its id (then refused only because a test worker's queue serves it, not a checkout).
    await expect(
      resumeCommand({ cwd: b, target: inA, context: [], json: true, out: ignore, err: ignore }),
    ).rejects.toBeInstanceOf(SharedQueueRunError);

    // list --running: each project its own runs; --all-projects both, with a PROJECT column.
    const inB = await startIn(b, name);
    expect((await listedRunning(b, inB)).map((r) => r.id)).not.toContain(inA);
    expect((await listedRunning(a, inA)).map((r) => r.id)).not.toContain(inB);
    const all = await listedRunning(b, inA, true);
    expect(all.map((r) => r.id)).toEqual(expect.arrayContaining([inA, inB]));
    const table = output();
    await listCommand({ cwd: b, json: false, running: true, allProjects: true, out: table.out });
    expect(table.text()).toMatch(/^RUN ID\s+LOOP\s+PROJECT\s+STATE/);
    expect(table.text()).toMatch(new RegExp(`${inA}\\s+${name}\\s+${a}\\s`));
    expect(table.text()).toMatch(new RegExp(`${inB}\\s+${name}\\s+${b}\\s`));
    const own = output();
    await listCommand({ cwd: b, json: false, running: true, out: own.out });
    expect(own.text()).not.toContain('PROJECT');
    // A's id as a whole word: B's run, started in the same second, may be A's id with `-2`.
    expect(own.text()).not.toMatch(new RegExp(`(^|\\s)${inA}\\s`, 'm'));
    expect(own.text()).toMatch(new RegExp(`(^|\\s)${inB}\\s`, 'm'));

    // Stop by name in B stops B's run only; by run id from B, A's.
    const stopB = output();
    expect(await stopCommand({ cwd: b, target: name, force: false, json: true, out: stopB.out })).toBe(0);
    expect(stopB.json<{ id: string }>().id).toBe(inB);
    expect((await runStatus(a, inA)).open).toBe(true);
    const stopA = output();
    expect(await stopCommand({ cwd: b, target: inA, force: false, json: true, out: stopA.out })).toBe(0);
    expect(stopA.json<{ id: string; outcome: string }>()).toMatchObject({ id: inA, outcome: 'cancelled' });
  });

  it('pause, unpause, steer and answer: one rule with stop and status, a run id from any project, a name only in its own', async () => {
    const { client } = await temporal();
    const name = `asks-${unique()}`;
    const raw = {
      name,
      initial: 'wait',
      states: {
        wait: { action: `while [ ! -f ${name}.go ]; do sleep 0.05; done`, next: 'review' },
        review: { action_type: 'human', prompt: 'Ship it?', timeout: 3600, on_yes: 'done', on_no: 'done' },
        done: { terminal: true },
      },
    };
    mkdirSync(join(a, '.loops'), { recursive: true });
    const file = join(a, '.loops', `${name}.yaml`);
    writeFileSync(file, JSON.stringify(raw));
    const { handle, instanceId: inA } = await startLoopRun({
      client,
      definition: definition(raw),
      file,
      cwd: a,
      taskQueue: QUEUE,
      searchAttributes: true,
      started: new Date(),
    });
    await listedRunning(a, inA);
    const control = (target: string, req: Parameters<typeof controlCommand>[1]) => {
      const out = output();
      return controlCommand({ cwd: b, target, json: true, out: out.out, by: 'bo@b' }, req).then((code) => ({
        code,
        answer: out.json<{ id: string; action: string; state: string }>(),
      }));
    };
    const session = { client, connection: client.connection as Connection };

    // By name from B: not B's run, for every command alike.
    for (const req of [{ kind: 'pause' }, { kind: 'unpause' }, { kind: 'steer', to: 'review' }] as const)
      await expect(control(name, req)).rejects.toBeInstanceOf(RunNotFoundError);
    await expect(answerRun(session, name, { kind: 'yes' }, projectScope(b))).rejects.toBeInstanceOf(RunNotFoundError);

    // By run id from B: A's run takes each of them.
    expect(await control(inA, { kind: 'pause' })).toMatchObject({ code: 0, answer: { id: inA, action: 'pause' } });
    expect(await control(inA, { kind: 'unpause' })).toMatchObject({ code: 0, answer: { id: inA, action: 'unpause' } });
    expect(await control(inA, { kind: 'steer', to: 'review' })).toMatchObject({
      code: 0,
      answer: { id: inA, action: 'steer' },
    });
    writeFileSync(join(a, `${name}.go`), '');
    await until('the run to wait in review', async () =>
      (await handle.query(statusQuery)).human?.state === 'review' ? true : undefined,
    );
    expect(await answerRun(session, inA, { kind: 'yes' }, projectScope(b))).toMatchObject({
      run: inA,
      state: 'review',
      verdict: 'yes',
    });
    await handle.result();
  });

  it('an empty run id or loop name is a usage error, never a raw Temporal refusal', async () => {
    for (const target of ['', '  ']) {
      await expect(statusCommand({ cwd: b, target, json: true, out: ignore })).rejects.toThrow(
        /^the run id or loop name is empty/,
      );
      // Each command the fix names runs as written (`ll-loop history` alone needs a loop name).
      await expect(statusCommand({ cwd: b, target, json: true, out: ignore })).rejects.toMatchObject({
        fix: expect.not.stringMatching(/ll-loop history(?! <loop>)/),
      });
      await expect(stopCommand({ cwd: b, target, force: false, json: true, out: ignore })).rejects.toMatchObject({
        exitCode: 1,
      });
      await expect(
        resumeCommand({ cwd: b, target, context: [], json: true, out: ignore, err: ignore }),
      ).rejects.toThrow(/^the run id or loop name is empty/);
    }
  });

  it('a run of an earlier release (no LoopCheckout) belongs to the directory in its memo', async () => {
    const name = `legacy-${unique()}`;
    const { client } = await temporal();
    const { def } = slowLoop(a, name);
    const id = `${name}-${unique()}`;
    // As releases before the checkout attribute started runs: memo `cwd`, LoopName only.
    await client.workflow.start(LOOP_WORKFLOW_TYPE, {
      workflowId: id,
      taskQueue: QUEUE,
      args: [{ definition: def, options: { cwd: a, searchAttributes: true, closeAsOutcome: true } }],
      memo: { cwd: a, loop: name },
      typedSearchAttributes: [{ key: defineSearchAttributeKey('LoopName', 'KEYWORD'), value: name }],
    });
    await listedRunning(a, id);
    expect((await runStatus(a, name)).id).toBe(id);
    await expect(runStatus(b, name)).rejects.toBeInstanceOf(RunNotFoundError);
    expect(await stopCommand({ cwd: a, target: name, force: false, json: true, out: ignore })).toBe(0);
  });

  it("a sub-loop run carries its parent's checkout (childCheckout) and is the project's run by name", async () => {
    const { client } = await temporal();
    const child = `kid-${unique()}`;
    mkdirSync(join(a, '.loops'), { recursive: true });
    writeFileSync(
      join(a, '.loops', `${child}.yaml`),
      JSON.stringify({
        name: child,
        initial: 'check',
        states: { check: { action: 'true', on_yes: 'done', on_no: 'done' }, done: { terminal: true } },
      }),
    );
    const checkoutOf = async (id: string) =>
      (await client.workflow.getHandle(id).describe()).typedSearchAttributes.get(
        defineSearchAttributeKey('LoopCheckout', 'KEYWORD'),
      );
    // A parent loop of its own per run: two runs of one loop in the same second would share an id.
    const runParent = async () => {
      const raw = {
        name: `parent-${unique()}`,
        initial: 'call',
        states: { call: { loop: child, on_success: 'done', on_failure: 'done' }, done: { terminal: true } },
      };
      const file = join(a, '.loops', `${raw.name}.yaml`);
      writeFileSync(file, JSON.stringify(raw));
      const { handle, instanceId } = await startLoopRun({
        client,
        definition: definition(raw),
        file,
        cwd: a,
        taskQueue: QUEUE,
        searchAttributes: true,
        started: new Date(),
        options: { childCheckout: true },
      });
      await handle.result();
      return { parent: instanceId, child: `${instanceId}.call.1` };
    };

    const withRule = await runParent();
    expect(await checkoutOf(withRule.child)).toBe(await checkoutOf(withRule.parent));
    expect(await checkoutOf(withRule.parent)).toContain(a);

    // The child is the project's run of that loop by name; not another project's.
    const history = await until('the child in the history of A', async () => {
      const out = output();
      await historyCommand({ cwd: a, loop: child, json: true, out: out.out });
      const ids = out.json<Array<{ id: string }>>().map((r) => r.id);
      return ids.length === 1 ? ids : undefined;
    });
    expect(history).toEqual([withRule.child]);
    await expect(runStatus(b, child)).rejects.toBeInstanceOf(RunNotFoundError);
  });

  it("list --failed shows this project's failed runs; --all-projects every project's, with a PROJECT column", async () => {
    const { client } = await temporal();
    const name = `broken-${unique()}`;
    const raw = {
      name,
      initial: 'check',
      states: {
        check: { action: 'false', on_yes: 'done', on_no: 'gave_up' },
        done: { terminal: true },
        gave_up: { terminal: true, failure: true },
      },
    };
    const failIn = async (cwd: string) => {
      mkdirSync(join(cwd, '.loops'), { recursive: true });
      const file = join(cwd, '.loops', `${name}.yaml`);
      writeFileSync(file, JSON.stringify(raw));
      const { handle, instanceId } = await startLoopRun({
        client,
        definition: definition(raw),
        file,
        cwd,
        taskQueue: QUEUE,
        searchAttributes: true,
        started: new Date(),
      });
      await handle.result().catch(() => undefined);
      return instanceId;
    };
    const [inA, inB] = [await failIn(a), await failIn(b)];
    const failed = (cwd: string, allProjects: boolean) =>
      until(`failed runs of ${cwd}`, async () => {
        const out = output();
        await listCommand({ cwd, json: true, failed: true, allProjects, out: out.out });
        const ids = out.json<Array<{ id: string }>>().map((r) => r.id);
        return ids.includes(allProjects ? inA : inB) && (!allProjects || ids.includes(inB)) ? ids : undefined;
      });
    const own = await failed(b, false);
    expect(own).toContain(inB);
    expect(own).not.toContain(inA);
    expect(await failed(b, true)).toEqual(expect.arrayContaining([inA, inB]));
    const table = output();
    await listCommand({ cwd: b, json: false, failed: true, allProjects: true, out: table.out });
    expect(table.text()).toMatch(/^RUN ID\s+LOOP\s+PROJECT\s+OUTCOME/);
    expect(table.text()).toMatch(new RegExp(`${inA}\\s+${name}\\s+${a}\\s+failed`));

    // B's run resumed (a new run, <id>-r1) to success: still listed, with what its resume became.
    const fixed = { ...raw, states: { ...raw.states, check: { action: 'true', on_yes: 'done', on_no: 'gave_up' } } };
    const resume = await startLoopRun({
      client,
      definition: definition(fixed),
      file: join(b, '.loops', `${name}.yaml`),
      cwd: b,
      taskQueue: QUEUE,
      searchAttributes: true,
      started: new Date(),
      workflowId: `${inB}-r1`,
      memo: { resumed_from: inB },
    });
    await resume.handle.result();
    const resumed = await until('the resumed run in list --failed', async () => {
      const out = output();
      await listCommand({ cwd: b, json: true, failed: true, out: out.out });
      const row = out
        .json<Array<{ id: string; resumed_as?: { id: string; outcome: string } }>>()
        .find((r) => r.id === inB);
      return row?.resumed_as?.outcome === 'succeeded' ? row : undefined;
    });
    expect(resumed.resumed_as).toEqual({ id: `${inB}-r1`, outcome: 'succeeded' });
    const resumedTable = output();
    await listCommand({ cwd: b, json: false, failed: true, out: resumedTable.out });
    expect(resumedTable.text()).toMatch(/^RUN ID\s+LOOP\s+OUTCOME\s+FINAL STATE\s+STARTED\s+ENDED\s+RESUMED AS/);
    expect(resumedTable.text()).toMatch(new RegExp(`${inB}\\s+${name}\\s+failed .*${inB}-r1 → succeeded`));
  });

  it('a run id names one run: a run of the same name started in the same second as a closed one gets -2', async () => {
    const { client } = await temporal();
    const name = `quick-${unique()}`;
    const raw = { name, initial: 'done', states: { done: { terminal: true } } };
    const started = new Date();
    const startIn = async (cwd: string) => {
      mkdirSync(join(cwd, '.loops'), { recursive: true });
      const file = join(cwd, '.loops', `${name}.yaml`);
      writeFileSync(file, JSON.stringify(raw));
      const { handle, instanceId } = await startLoopRun({
        client,
        definition: definition(raw),
        file,
        cwd,
        taskQueue: QUEUE,
        searchAttributes: true,
        started,
      });
      await handle.result();
      return instanceId;
    };
    const inA = await startIn(a);
    const inB = await startIn(b);
    expect(inB).toBe(`${inA}-2`);
    expect((await runStatus(b, inA)).id).toBe(inA);
    expect((await runStatus(a, name)).id).toBe(inA);
    expect((await runStatus(b, name)).id).toBe(inB);
  });

  it('status <loop> right after a run ended finds it while the listing does not show it yet (visibility lags)', async () => {
    const { client } = await temporal();
    // A run without search attributes is never listed by loop name: it stands for a run the
    // visibility index has not caught up with, as it had not a moment after a run (once in CI).
    const runIn = async (name: string, listed: boolean) => {
      const raw = { name, initial: 'done', states: { done: { terminal: true } } };
      mkdirSync(join(b, '.loops'), { recursive: true });
      const file = join(b, '.loops', `${name}.yaml`);
      writeFileSync(file, JSON.stringify(raw));
      const { handle, instanceId } = await startLoopRun({
        client,
        definition: definition(raw),
        file,
        cwd: b,
        taskQueue: QUEUE,
        searchAttributes: listed,
        started: new Date(),
      });
      await handle.result();
      return instanceId;
    };
    // The loop's only run is not listed yet.
    const alone = `lagged-${unique()}`;
    const unlisted = await runIn(alone, false);
    const report = await runStatus(b, alone);
    expect(report).toMatchObject({ id: unlisted, open: false, status: 'completed' });
    expect(report.result?.final_state).toBe('done');
    // The result as the loop gave it, without the final snapshot `resume` reads for itself.
    expect(report.result).not.toHaveProperty('snapshot');
    await expect(runStatus(a, alone)).rejects.toBeInstanceOf(RunNotFoundError); // another project's
    // The listing shows an earlier run of the loop, not the one that just ended.
    const name = `lagged-${unique()}`;
    const earlier = await runIn(name, true);
    await until('the earlier run listed by name', async () =>
      (await runStatus(b, name)).id === earlier ? true : undefined,
    );
    const latest = await runIn(name, false);
    expect(latest).not.toBe(earlier);
    expect((await runStatus(b, name)).id).toBe(latest);
    // The loop file's path, as `ll-loop run .loops/<file>` took it, means the same runs.
    expect((await runStatus(b, join('.loops', `${name}.yaml`))).id).toBe(latest);
    const history = output();
    await historyCommand({ cwd: b, loop: join('.loops', `${name}.yaml`), json: true, out: history.out });
    expect(history.json<Array<{ id: string }>>().map((r) => r.id)).toEqual(expect.arrayContaining([earlier]));
  });
});
