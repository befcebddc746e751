/**
 * Following a run whose worker writes its events file on this host reads the file instead of
 * replaying the history on each update (runs/follow/events-tail.ts): the events delivered are
 * the file's, in order, with each action's output from the history; a file with a gap in its
 * numbering is left for the replay from the gap on, and nothing is lost or shown twice.
 */
import { mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { followEvents } from '../../runs/follow/follow-events.js';
import type { TimedEvent } from '../../fsm/run/events.js';
import { closeTemporal, definition, project, runLoop, temporal, type RunOutcome } from './harness.js';

afterAll(closeTemporal);

let finished: RunOutcome | undefined;
async function finishedRun(): Promise<RunOutcome> {
  finished ??= await runLoop(
    definition({
      name: 'ff-file',
      initial: 'a',
      max_iterations: 3,
      default_timeout: 5,
      states: {
        a: { action: 'echo pass-${state.iteration}', capture: 'a', on_yes: 'b' },
        b: { action: 'echo checked >&2; test ${state.iteration} -lt 3', on_yes: 'a', on_no: 'done' },
        done: { terminal: true },
      },
    }),
    { cwd: project().cwd, localActivityMaxTimeoutS: 30 },
  );
  return finished;
}

/** The run's events as its worker would have written them, each marked so the test sees where it came from. */
function eventsFile(events: TimedEvent[], skipSeq?: number): string {
  const file = join(mkdtempSync(join(tmpdir(), 'll-loop-events-file-')), 'run.events.jsonl');
  const lines = events.filter((e) => e.seq !== skipSeq).map((e) => JSON.stringify({ ...e, from_file: true }));
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

const strip = (events: TimedEvent[]) =>
  events.map((e) => {
    const { from_file: _f, ...rest } = e as TimedEvent & { from_file?: boolean };
    return JSON.stringify(rest);
  });

describe('a follower on the worker’s host', () => {
  it('reads the events from the file, with outputs from the history, and no replay after the end', async () => {
    const run = await finishedRun();
    const { client } = await temporal();
    const replayed = await followEvents(client, run.workflowId, { actionOutput: true });
    expect(replayed.events.length).toBeGreaterThan(8);
    const file = eventsFile(run.events);
    const followed = await followEvents(client, run.workflowId, {
      follow: true,
      actionOutput: true,
      eventsFileOf: () => file,
    });
    expect(followed.warnings).toEqual([]);
    expect(followed.events.every((e) => (e as { from_file?: boolean }).from_file === true)).toBe(true);
    expect(strip(followed.events)).toEqual(strip(replayed.events));
    const outputs = followed.events.flatMap((e) => (e.event === 'action_complete' ? [e.action_output] : []));
    expect(outputs.map((o) => o?.output.trim() ?? o?.stderr.trim())).toContain('pass-2');
    expect(followed.end).toEqual(replayed.end);
    expect(followed.replayed).toBe(false);
  });

  it('waits for a file written after the history announced its events, without replaying', async () => {
    const run = await finishedRun();
    const { client } = await temporal();
    const replayed = await followEvents(client, run.workflowId, { actionOutput: true });
    const dir = mkdtempSync(join(tmpdir(), 'll-loop-events-late-'));
    const file = join(dir, 'run.events.jsonl');
    // The worker writes the file after the follower has the history (here: after it started).
    const following = followEvents(client, run.workflowId, {
      follow: true,
      actionOutput: true,
      eventsFileOf: () => file,
      fileWaitMs: 60_000,
    });
    renameSync(eventsFile(run.events), file);
    const followed = await following;
    expect(strip(followed.events)).toEqual(strip(replayed.events));
    expect(followed.replayed).toBe(false);
  });

  it('leaves a file with a gap to the replay from the gap on', async () => {
    const run = await finishedRun();
    const { client } = await temporal();
    const replayed = await followEvents(client, run.workflowId, { actionOutput: true });
    const gap = run.events[4]!.seq;
    const file = eventsFile(run.events, gap);
    const followed = await followEvents(client, run.workflowId, {
      follow: true,
      actionOutput: true,
      eventsFileOf: () => file,
    });
    expect(strip(followed.events)).toEqual(strip(replayed.events));
    const fromFile = followed.events.map((e) => (e as { from_file?: boolean }).from_file === true);
    expect(fromFile.slice(0, 4)).toEqual([true, true, true, true]);
    expect(fromFile.slice(4).some((f) => f)).toBe(false);
  });

  it('replays when the file is not on this host', async () => {
    const run = await finishedRun();
    const { client } = await temporal();
    const followed = await followEvents(client, run.workflowId, {
      follow: true,
      eventsFileOf: () => join(tmpdir(), 'no-such-dir', 'run.events.jsonl'),
    });
    expect(followed.events.map((e) => JSON.stringify(e))).toEqual(run.events.map((e) => JSON.stringify(e)));
    expect(followed.replayed).toBe(true);
  });
});
