/**
 * `ll-loop schedule` on the real test server: create (with --every, --cron), list, trigger a run
 * that a worker on the schedule's task queue executes, pause/unpause, delete; pause-on-failure
 * pauses the schedule after a failed run; invalid loops and arguments create nothing.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { defineSearchAttributeKey } from '@temporalio/common';
import { describe, expect, inject, it } from 'vitest';
import { describeLoopSchedule, LoopScheduleNotFoundError } from '../../runs/schedules/schedules.js';
import type { ExecutionResult } from '../../fsm/types.js';
import { checkoutAt, checkoutKey } from '../../host/checkout.js';
import { loadLoop } from '../../loader/load.js';
import { loopVersion } from '../../loader/loop-version.js';
import { runCliInProcess } from '../support/cli.js';
import { settle } from '../support/processes.js';
import { temporal } from './harness.js';
import { useServedProject } from './served-project.js';

const suffix = randomUUID().slice(0, 8);
/** A queue of this test's own, so that no other test's worker takes its runs. */
const taskQueue = `ll-loop-schedules-${suffix}`;
const served = useServedProject(taskQueue);

/** `ll-loop schedule <args…>` in the test project, through the CLI's `main`. */
const cli = (...args: string[]) => runCliInProcess(['schedule', ...args], { cwd: served.cwd });

function writeLoop(name: string, body: string): void {
  writeFileSync(join(served.cwd, '.loops', `${name}.yaml`), `name: ${name}\ndescription: scheduled test loop\n${body}`);
}

describe('ll-loop schedule', () => {
  it("--overlap sets the schedule's overlap policy; backfill starts the runs a period missed", async () => {
    const name = `backfill-${suffix}`;
    writeLoop(name, 'initial: a\nstates:\n  a:\n    action: "true"\n    next: done\n  done:\n    terminal: true\n');
    expect((await cli(name, '--every', '1h', '--overlap', 'buffer-all', '--task-queue', taskQueue)).code).toBe(0);
    const { client } = await temporal();
    const handle = client.schedule.getHandle(`ll-loop-${name}`);
    expect((await handle.describe()).policies.overlap).toBe('BUFFER_ALL');
    const end = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000);
    const start = new Date(end.getTime() - 3 * 3_600_000 + 1);
    const filled = await cli('backfill', name, '--start', start.toISOString(), '--end', end.toISOString(), '--json');
    expect(filled.code, filled.stderr).toBe(0);
    // Three hourly fire times fall in the window: three runs, each completed by the queue's worker.
    const described = await settle(
      () => handle.describe(),
      (d) => d.info.recentActions.length >= 3,
      30_000,
    );
    for (const action of described.info.recentActions.slice(-3)) {
      expect(await client.workflow.getHandle(action.action.workflow.workflowId).result()).toMatchObject({
        terminated_by: 'terminal',
      });
    }
    const bad = await cli(name, '--every', '1h', '--overlap', 'sometimes');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--overlap sometimes is not an overlap policy');
    const backwards = await cli('backfill', name, '--start', end.toISOString(), '--end', start.toISOString());
    expect(backwards.code).toBe(1);
    expect(backwards.stderr).toContain('--end must be after --start');
    await cli('delete', name);
  }, 60_000);

  it("a schedule's runs skip busy scopes under skip, and wait for them with --pause-on-failure (a skip would pause it)", async () => {
    const { client } = await temporal();
    const waits = async (name: string, ...flags: string[]) => {
      writeLoop(name, 'initial: a\nstates:\n  a:\n    action: "true"\n    next: done\n  done:\n    terminal: true\n');
      const created = await cli(name, '--every', '1h', '--task-queue', taskQueue, ...flags);
      expect(created.code, created.stderr).toBe(0);
      const d = await client.schedule.getHandle(`ll-loop-${name}`).describe();
      await cli('delete', name);
      const action = d.action as unknown as { args: Array<{ lock?: { wait?: boolean } }> };
      return action.args[0]?.lock?.wait === true;
    };
    expect(await waits(`skips-${suffix}`)).toBe(false);
    expect(await waits(`pauses-${suffix}`, '--pause-on-failure')).toBe(true);
  }, 60_000);

  it('creates, lists, triggers, pauses, unpauses and deletes a schedule', async () => {
    const name = `greet-${suffix}`;
    writeLoop(
      name,
      'initial: hello\nstates:\n  hello:\n    action: "echo ${context.greeting}"\n    capture: greeting\n    next: done\n  done:\n    terminal: true\n',
    );
    const created = await cli(
      name,
      '--every',
      '1h',
      '--context',
      'greeting=scheduled hello',
      '--task-queue',
      taskQueue,
      '--json',
    );
    expect(created.code, created.stderr).toBe(0);
    const info = JSON.parse(created.stdout);
    expect(info).toMatchObject({
      id: `ll-loop-${name}`,
      loop: name,
      when: 'every 1h',
      paused: false,
      pauseOnFailure: false,
      taskQueue,
    });
    expect(info.next.length).toBeGreaterThan(0);

    const listed = await settle(
      () => cli('list', '--json'),
      (r) => JSON.parse(r.stdout).some((s: { id: string }) => s.id === info.id),
    );
    expect(JSON.parse(listed.stdout).find((s: { id: string }) => s.id === info.id)).toMatchObject({
      loop: name,
      when: 'every 1h',
      paused: false,
    });

    const triggered = await cli('trigger', name, '--json');
    expect(triggered.code, triggered.stderr).toBe(0);
    const { run } = JSON.parse(triggered.stdout) as { run: string };
    expect(run.startsWith(`${name}-`)).toBe(true);
    const { client } = await temporal();
    const result = (await client.workflow.getHandle(run).result()) as ExecutionResult;
    expect(result).toMatchObject({ terminated_by: 'terminal', final_state: 'done' });
    expect(result.captured.greeting?.output).toBe('scheduled hello');
    // Triggered again at once (often within the same second, so the new run has the same workflow
    // id as the last, a run of its own): the command still names the run it started.
    const retriggered = await cli('trigger', name, '--json');
    expect(retriggered.code, retriggered.stderr).toBe(0);
    const { run: second } = JSON.parse(retriggered.stdout) as { run?: string };
    expect(second, retriggered.stdout).toBeDefined();
    await client.workflow.getHandle(second!).result();
    const description = await client.workflow.getHandle(run).describe();
    expect(description.memo).toMatchObject({ loop: name, cwd: served.cwd });
    // The loop's version, as a run started by hand records it (its `--context` values left out).
    expect(description.memo?.loop_version).toBe(loopVersion(loadLoop(name, served.cwd).definition!));
    // The scheduled run belongs to the checkout the schedule was made in: found there by name.
    expect(description.typedSearchAttributes.get(defineSearchAttributeKey('LoopCheckout', 'KEYWORD'))).toBe(
      checkoutKey(served.cwd),
    );

    expect((await cli('pause', name)).stdout).toBe(`paused ll-loop-${name}\n`);
    expect((await describeLoopSchedule(client, name)).paused).toBe(true);
    // The list comes from the visibility store, which may lag behind the pause by a moment.
    const pausedRow = new RegExp(`ll-loop-${name}\\s+${name}\\s+every 1h\\s+paused`);
    const human = await settle(
      () => cli('list'),
      (r) => pausedRow.test(r.stdout),
    );
    expect(human.stdout).toMatch(pausedRow);
    expect((await cli('unpause', name, '--json')).stdout).toContain('"paused": false');
    expect((await describeLoopSchedule(client, name)).paused).toBe(false);

    expect((await cli('delete', name)).code).toBe(0);
    await expect(describeLoopSchedule(client, name)).rejects.toBeInstanceOf(LoopScheduleNotFoundError);
    const again = await cli('pause', name);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`no schedule ll-loop-${name}`);
  }, 60_000);

  it("runs on the checkout's worker by default (started for it), takes cron expressions, and refuses a second schedule for a loop", async () => {
    const name = `cron-${suffix}`;
    writeLoop(name, 'initial: done\nstates:\n  done:\n    terminal: true\n');
    const created = await cli(name, '--cron', '0 9 * * 1-5', '--json');
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({
      when: 'cron "0 9 * * 1-5"',
      taskQueue: checkoutAt(served.cwd).queue,
    });
    expect(JSON.parse(readFileSync(join(served.cwd, '.loops', '.worker', 'worker.json'), 'utf8'))).toMatchObject({
      queue: checkoutAt(served.cwd).queue,
    });
    const twice = await cli(name, '--every', '5m');
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain(`schedule ll-loop-${name} already exists`);
    expect((await cli('delete', name)).code).toBe(0);
  });

  it('--pause-on-failure: a run that ends in a failure state fails its workflow and pauses the schedule', async () => {
    const name = `fails-${suffix}`;
    writeLoop(
      name,
      'initial: check\nstates:\n  check:\n    action: "exit 1"\n    on_yes: done\n    on_no: broken\n  done:\n    terminal: true\n  broken:\n    terminal: true\n    failure: true\n',
    );
    expect((await cli(name, '--every', '1h', '--pause-on-failure', '--task-queue', taskQueue)).code).toBe(0);
    const { run } = JSON.parse((await cli('trigger', name, '--json')).stdout) as { run: string };
    const { client } = await temporal();
    const failure = await client.workflow
      .getHandle(run)
      .result()
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    const cause = (failure as WorkflowFailedError).cause as { type?: string; details?: unknown[] };
    expect(cause.type).toBe('LoopFailed');
    expect(cause.details?.[0]).toMatchObject({ terminated_by: 'terminal', failure: true, final_state: 'broken' });
    const paused = await settle(
      () => describeLoopSchedule(client, name),
      (s) => s.paused,
    );
    expect(paused.paused).toBe(true);
    expect((await cli('delete', name)).code).toBe(0);
  }, 60_000);

  it('rejects an invalid loop and bad timing, creating nothing', async () => {
    const name = `broken-${suffix}`;
    writeLoop(
      name,
      'initial: chek\nstates:\n  check:\n    action: "true"\n    next: done\n  done:\n    terminal: true\n',
    );
    const invalid = await cli(name, '--every', '1h');
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain('initial state "chek" is not defined');
    expect(invalid.stderr).toContain('no schedule was created');
    const { client } = await temporal();
    await expect(describeLoopSchedule(client, name)).rejects.toBeInstanceOf(LoopScheduleNotFoundError);

    writeLoop(`ok-${suffix}`, 'initial: done\nstates:\n  done:\n    terminal: true\n');
    for (const args of [
      [],
      ['--every', '1h', '--cron', '* * * * *'],
      ['--every', 'hourly'],
      ['--every', '500ms'],
      ['--cron', 'not a cron'],
    ]) {
      const r = await cli(`ok-${suffix}`, ...args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(1);
    }
    await expect(describeLoopSchedule(client, `ok-${suffix}`)).rejects.toBeInstanceOf(LoopScheduleNotFoundError);
    expect((await cli('list', '--every', '1h')).code).toBe(1);
    expect((await cli('pause')).code).toBe(1);
  });

  it('a server that is down is an infrastructure error within seconds', async () => {
    process.env.TEMPORAL_ADDRESS = '127.0.0.1:1';
    try {
      const started = Date.now();
      const r = await cli('list');
      expect(r.code).toBe(7);
      expect(r.stderr).toContain('cannot reach Temporal at 127.0.0.1:1');
      expect(Date.now() - started).toBeLessThan(15_000);
    } finally {
      process.env.TEMPORAL_ADDRESS = inject('temporalAddress');
    }
  }, 30_000);
});
