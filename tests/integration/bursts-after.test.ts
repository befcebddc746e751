/**
 * The `burstsAfterActions` run rule on the real dev server: an action that runs as an activity
 * (here a "fix" with a 30-minute timeout, as an agent's) runs the quick check that follows it in
 * the same activity, the pure core deciding it there; without the rule the check is a burst of
 * its own (a local activity in the next workflow task). Either way the run records the same
 * events, routes and ending. A person's pause that reaches the run while the fix runs acts when
 * the fix ends, before the check; a stop while the check runs after the fix keeps the fix's result.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { TimedEvent } from '../../fsm/run/events.js';
import { actionResultsOf } from '../../runs/follow/action-results.js';
import type { HistoryEvent } from '../../runs/find/temporal-history.js';
import { pauseUpdate, unpauseUpdate } from '../../workflows/control-definitions.js';
import { statusQuery, type LoopStatus } from '../../workflows/definitions.js';
import { liveProcesses, waitFor } from '../support/processes.js';
import { runEvents, type FileEvent } from '../support/run-events.js';
import { closeTemporal, definition, project, runLoop, temporal } from './harness.js';

afterAll(closeTemporal);

/** The lines an action appended to `file` in `dir` (none before it wrote any). */
const linesOf = (dir: string, file: string): string[] =>
  existsSync(join(dir, file)) ? readFileSync(join(dir, file), 'utf8').trim().split('\n') : [];

/** `check` fails twice, then passes; `fix`, an agent's prompt (never quick), runs after each failure. */
const CHECK = 'n=$(cat n 2>/dev/null || echo 0); n=$((n+1)); echo $n > n; echo check >> ran; [ $n -ge 3 ]';
const loop = (check = CHECK, checkTimeout = 20) => ({
  name: 'bursts-after',
  initial: 'check',
  max_iterations: 10,
  states: {
    check: { action: check, timeout: checkTimeout, on_yes: 'done', on_no: 'fix' },
    fix: { action: 'fix it', action_type: 'prompt', timeout: 1800, next: 'check' },
    done: { terminal: true },
  },
});

/**
 * A project whose host CLI is the agent: it notes its call in `ran` and, until the test writes
 * `go` (written at once unless `hold`), waits for it.
 */
function agentProject(hold = false): { cwd: string; env: Record<string, string> } {
  const p = project();
  const agent = join(p.bin, 'agent');
  writeFileSync(
    agent,
    `#!/bin/sh\necho fix >> ran\nwhile [ ! -f go ]; do sleep 0.02; done\necho '{"type":"result","subtype":"success","is_error":false,"result":"fixed"}'\n`,
  );
  chmodSync(agent, 0o755);
  if (!hold) writeFileSync(join(p.cwd, 'go'), '');
  return { cwd: p.cwd, env: { LL_HOST_CLI: agent } };
}

/** The rules a run of this release has that the rule builds on. */
const RULES = {
  localActivityMaxTimeoutS: 30,
  quickBursts: true,
  learnedQuick: true,
  learnedChains: true,
  controlsAfterBursts: true,
  steering: true,
};

type Carried = 'activity' | 'activity+check' | 'local' | `activity+${string}`;

/**
 * How each step of the run was carried out, in order, from its history: a local activity, an
 * activity, or one that ran actions after its own (`activity+check`; with `states`, the states
 * whose actions it ran after its own: `activity+prep+check`).
 */
async function carriedIn(workflowId: string, states = false): Promise<Carried[]> {
  const { client } = await temporal();
  const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const out: Carried[] = [];
  for (const e of events) {
    if (e.markerRecordedEventAttributes?.markerName === 'core_local_activity') out.push('local');
    const done = e.activityTaskCompletedEventAttributes?.result?.payloads?.[0]?.data;
    if (done) {
      const result = JSON.parse(Buffer.from(done).toString('utf8')) as {
        burst_after?: { facts: unknown[]; states?: string[] };
      };
      const after = result.burst_after;
      if (!after?.facts.length) out.push('activity');
      else out.push(states ? `activity+${(after.states ?? []).join('+')}` : 'activity+check');
    }
  }
  return out;
}

/**
 * A run's `onStarted` that pauses it once `ran` has `lines` lines, then writes `release` (the
 * held action may end), waits for the run to hold and unpauses it; `seen` gets the status and the
 * lines of `ran` while it held.
 */
function pauseOnce(
  cwd: string,
  lines: number,
  release: string,
  seen: { held?: LoopStatus; ran?: string[] },
): (id: string) => Promise<void> {
  return async (id) => {
    const { client } = await temporal();
    const handle = client.workflow.getHandle(id);
    await waitFor(`${lines} actions to have started`, () => linesOf(cwd, 'ran').length === lines, 60_000);
    await handle.executeUpdate(pauseUpdate, { args: [{ by: 'ann@test' }] });
    writeFileSync(join(cwd, release), '');
    await waitFor('the run to hold', async () => (await handle.query(statusQuery)).phase === 'paused', 60_000);
    seen.held = await handle.query(statusQuery);
    seen.ran = linesOf(cwd, 'ran');
    await handle.executeUpdate(unpauseUpdate, { args: [{ by: 'ann@test' }] });
  };
}

/** Events without the clock's readings. */
const timeless = (events: TimedEvent[]) =>
  events.map((e) =>
    Object.fromEntries(Object.entries(e).filter(([k]) => k !== 'ts' && !k.endsWith('_ms') && k !== 'seq')),
  );

/** Pass `n` of `check` and, when it fails, the fix after it. */
const pass = (n: number) => {
  const ok = n >= 3;
  const verdict = ok ? 'yes' : 'no';
  return [
    { event: 'state_enter', state: 'check', iteration: n },
    { event: 'action_start', state: 'check', action: CHECK, action_type: 'shell' },
    { event: 'action_complete', state: 'check', exit_code: ok ? 0 : 1 },
    { event: 'evaluate', state: 'check', type: 'exit_code', verdict, details: { exit_code: ok ? 0 : 1 } },
    { event: 'route', from: 'check', to: ok ? 'done' : 'fix', verdict },
    ...(ok
      ? []
      : [
          { event: 'state_enter', state: 'fix', iteration: n },
          { event: 'action_start', state: 'fix', action: 'fix it', action_type: 'prompt' },
          { event: 'action_complete', state: 'fix', exit_code: 0 },
          { event: 'route', from: 'fix', to: 'check' },
        ]),
  ];
};

/** What either way records, clock readings aside. */
const EVENTS = [
  { event: 'loop_start', loop: 'bursts-after', initial: 'check', max_iterations: 10 },
  ...pass(1),
  ...pass(2),
  ...pass(3),
  { event: 'state_enter', state: 'done', iteration: 3 },
  { event: 'loop_complete', final_state: 'done', iterations: 3, steps: 6, terminated_by: 'terminal' },
];

describe('quick actions after an action, in its activity', () => {
  it('with burstsAfterActions the check after each fix runs in the fix’s activity', async () => {
    const p = agentProject();
    const run = await runLoop(definition(loop()), { ...p, ...RULES, burstsAfterActions: true });
    expect(run.result).toMatchObject({ terminated_by: 'terminal', final_state: 'done' });
    expect(linesOf(p.cwd, 'ran')).toEqual(['check', 'fix', 'check', 'fix', 'check']);
    // The first check is a burst of its own; every later one ran after its fix, in the fix's activity.
    expect(await carriedIn(run.workflowId)).toEqual(['local', 'activity+check', 'activity+check']);
    expect(timeless(run.events)).toEqual(EVENTS);
    // `ll-loop logs` pairs each action with its output from the history, the check's after the fix's.
    const { client } = await temporal();
    const history = (await client.workflow.getHandle(run.workflowId).fetchHistory()).events ?? [];
    const outputs = actionResultsOf(history as HistoryEvent[]);
    expect(outputs.map((o) => o.exit_code)).toEqual([1, 0, 1, 0, 0]);
    expect(outputs[1]?.output).toContain('fixed');
  }, 120_000);

  it('without burstsAfterActions (an older release) the check after each fix is a burst of its own', async () => {
    const p = agentProject();
    const run = await runLoop(definition(loop()), { ...p, ...RULES });
    expect(run.result).toMatchObject({ terminated_by: 'terminal', final_state: 'done' });
    expect(await carriedIn(run.workflowId)).toEqual(['local', 'activity', 'local', 'activity', 'local']);
    expect(timeless(run.events)).toEqual(EVENTS);
  }, 120_000);

  it('a definition too large to carry in every fix’s input runs each check as a burst of its own', async () => {
    const p = agentProject();
    const big = { ...loop(), description: 'x'.repeat(70 * 1024) };
    const run = await runLoop(definition(big), { ...p, ...RULES, burstsAfterActions: true });
    expect(run.result).toMatchObject({ terminated_by: 'terminal', final_state: 'done' });
    expect(await carriedIn(run.workflowId)).toEqual(['local', 'activity', 'local', 'activity', 'local']);
  }, 120_000);

  it('a pause that reaches the run while the fix runs acts when the fix ends: the check waits for the unpause', async () => {
    const p = agentProject(true);
    const seen: { held?: LoopStatus; ran?: string[] } = {};
    // Paused while the fix runs (it waits for `go`).
    const run = await runLoop(definition(loop()), {
      ...p,
      ...RULES,
      burstsAfterActions: true,
      onStarted: pauseOnce(p.cwd, 2, 'go', seen),
    });
    const { held, ran: ranWhenHeld } = seen;
    // It held after the fix, before the check ran again.
    expect(held).toMatchObject({
      state: 'fix',
      phase: 'paused',
      paused: { by: 'ann@test', holding: true, next: 'check' },
    });
    expect(ranWhenHeld).toEqual(['check', 'fix']);
    expect(run.result).toMatchObject({ terminated_by: 'terminal', final_state: 'done' });
    // The paused fix's activity ran no check; the next fix's did.
    expect(await carriedIn(run.workflowId)).toEqual(['local', 'activity', 'local', 'activity+check']);
  }, 120_000);

  it('a stop while the check runs after the fix kills the check and keeps the fix’s result', async () => {
    const p = agentProject();
    const { client } = await temporal();
    // The second check never ends by itself.
    const check = `${CHECK.replace('; [ $n -ge 3 ]', '')}; if [ $n -eq 2 ]; then while true; do sleep 0.05; done; fi; false`;
    const run = await runLoop(definition(loop(check)), {
      ...p,
      ...RULES,
      burstsAfterActions: true,
      onStarted: async (id) => {
        await waitFor('the second check to run', () => linesOf(p.cwd, 'ran').length === 3, 60_000);
        await client.workflow.getHandle(id).cancel();
      },
    });
    expect(run.result).toMatchObject({ terminated_by: 'cancelled' });
    expect(linesOf(p.cwd, 'ran')).toEqual(['check', 'fix', 'check']);
    await waitFor('the check to be gone', () => liveProcesses('sleep 0.05') === 0, 10_000);
    // The fix's result is the run's; the check it stopped is not (its state is where the run ended).
    const completed = run.events.filter((e) => e.event === 'action_complete').map((e) => e.state);
    expect(completed).toEqual(['check', 'fix']);
    expect(run.snapshot).toMatchObject({ current: 'check' });
  }, 120_000);
});

/** A check of over a second (not quick), with a timeout that makes it an ordinary activity. */
const BRIEF_CHECK = `${CHECK.replace('; [ $n -ge 3 ]', '')}; sleep 1.1; [ $n -ge 3 ]`;

describe('brief actions after an action, in its activity', () => {
  it('with briefAfterActions a check the run saw take over a second runs after each fix in the fix’s activity', async () => {
    const p = agentProject();
    const run = await runLoop(definition(loop(BRIEF_CHECK, 1800)), {
      ...p,
      ...RULES,
      burstsAfterActions: true,
      briefAfterActions: true,
    });
    expect(run.result).toMatchObject({ terminated_by: 'terminal', final_state: 'done' });
    expect(linesOf(p.cwd, 'ran')).toEqual(['check', 'fix', 'check', 'fix', 'check']);
    // The first check is an activity of its own (the run has not seen it yet); the later ones ran after their fix.
    expect(await carriedIn(run.workflowId)).toEqual(['activity', 'activity+check', 'activity+check']);
    const checks = run.events.filter((e) => e.event === 'action_complete' && e.state === 'check');
    expect(checks.map((e) => e.exit_code)).toEqual([1, 1, 0]);
  }, 120_000);

  it('without briefAfterActions (an older release) a check of over a second after each fix is an activity of its own', async () => {
    const p = agentProject();
    const run = await runLoop(definition(loop(BRIEF_CHECK, 1800)), { ...p, ...RULES, burstsAfterActions: true });
    expect(run.result).toMatchObject({ terminated_by: 'terminal', final_state: 'done' });
    expect(await carriedIn(run.workflowId)).toEqual(['activity', 'activity', 'activity', 'activity', 'activity']);
  }, 120_000);

  it('a pause that reaches the run while a brief action runs after the fix acts once that action ends', async () => {
    const p = agentProject();
    // fix → prep (over a second; held by the test on its second run) → check; the check is quick.
    const prep =
      'echo prep >> ran; if [ $(grep -c prep ran) -eq 2 ]; then while [ ! -f go2 ]; do sleep 0.02; done; fi; sleep 1.1';
    const def = {
      name: 'brief-after-pause',
      initial: 'check',
      max_iterations: 10,
      states: {
        check: { action: CHECK, timeout: 1800, on_yes: 'done', on_no: 'fix' },
        fix: { action: 'fix it', action_type: 'prompt', timeout: 1800, next: 'prep' },
        prep: { action: prep, timeout: 1800, next: 'check' },
        done: { terminal: true },
      },
    };
    const seen: { held?: LoopStatus; ran?: string[] } = {};
    // Paused while the second prep runs (it waits for `go2`).
    const run = await runLoop(definition(def), {
      ...p,
      ...RULES,
      burstsAfterActions: true,
      briefAfterActions: true,
      onStarted: pauseOnce(p.cwd, 6, 'go2', seen),
    });
    const { held, ran: ranWhenHeld } = seen;
    // The fix's activity ran prep after it, and no action after prep: the run held before the check.
    expect(ranWhenHeld).toEqual(['check', 'fix', 'prep', 'check', 'fix', 'prep']);
    expect(held).toMatchObject({
      state: 'prep',
      phase: 'paused',
      paused: { by: 'ann@test', holding: true, next: 'check' },
    });
    expect(run.result).toMatchObject({ terminated_by: 'terminal', final_state: 'done' });
    expect(linesOf(p.cwd, 'ran')).toEqual(['check', 'fix', 'prep', 'check', 'fix', 'prep', 'check']);
    // The first check, fix and prep are activities of their own (nothing seen yet), the check
    // after prep ran in prep's activity; then the second fix ran prep after it, drained there;
    // the check after the unpause is a burst (the run saw it quick).
    expect(await carriedIn(run.workflowId, true)).toEqual([
      'activity',
      'activity',
      'activity+check',
      'activity+prep',
      'local',
    ]);
  }, 120_000);

  it('each action after the fix shows in the run’s live events as it ends, while the next runs', async () => {
    const p = agentProject();
    // fix → prep → post → check, prep and post over a second; post's second run waits for the test.
    const prep = 'echo prep >> ran; sleep 1.1';
    const post =
      'echo post >> ran; if [ $(grep -c post ran) -eq 2 ]; then while [ ! -f go2 ]; do sleep 0.02; done; fi; sleep 1.1';
    const def = {
      name: 'brief-after-events',
      initial: 'check',
      max_iterations: 10,
      states: {
        check: { action: CHECK, timeout: 1800, on_yes: 'done', on_no: 'fix' },
        fix: { action: 'fix it', action_type: 'prompt', timeout: 1800, next: 'prep' },
        prep: { action: prep, timeout: 1800, next: 'post' },
        post: { action: post, timeout: 1800, next: 'check' },
        done: { terminal: true },
      },
    };
    let shown: string[] = [];
    const run = await runLoop(definition(def), {
      ...p,
      ...RULES,
      burstsAfterActions: true,
      briefAfterActions: true,
      onStarted: async (id) => {
        // While the second fix's activity runs post after prep, the events file has prep's end
        // and post's start (the activity gave them), though the run has not recorded them yet.
        const started = (): FileEvent | undefined =>
          runEvents(p.cwd, id).find((e) => e.event === 'action_start' && e.state === 'post' && e.seq > 20);
        await waitFor('the second post to show as started', () => started() !== undefined, 60_000);
        shown = runEvents(p.cwd, id)
          .filter((e) => e.seq > 20)
          .map((e) => `${e.event}:${String(e.state ?? e.to ?? '')}`);
        writeFileSync(join(p.cwd, 'go2'), '');
      },
    });
    expect(run.result).toMatchObject({ terminated_by: 'terminal', final_state: 'done' });
    expect(await carriedIn(run.workflowId, true)).toContain('activity+prep+post+check');
    expect(shown).toContain('action_complete:prep');
    expect(shown.at(-1)).toBe('action_start:post');
    // The run recorded them so, numbered so: the live copy showed nothing the history does not hold.
    const recorded = run.events.filter((e) => e.seq > 20).map((e) => `${e.event}:${String(e.state ?? e.to ?? '')}`);
    expect(recorded.slice(0, shown.length)).toEqual(shown);
  }, 120_000);
});

/** check always fails; after two fixes the budget is spent and the run closes with a message. */
const closing = {
  name: 'terminal-in-burst',
  initial: 'check',
  max_iterations: 10,
  states: {
    check: { action: 'echo check >> ran; false', timeout: 20, on_yes: 'done', on_no: 'budget' },
    budget: {
      evaluate: { type: 'output_numeric', source: '${state.iteration}', operator: 'le', target: 2 },
      on_yes: 'fix',
      on_no: 'gave_up',
    },
    fix: { action: 'fix it', action_type: 'prompt', timeout: 1800, next: 'check' },
    gave_up: { action: 'echo gave up >> ran', timeout: 10, terminal: true, failure: true },
    done: { terminal: true },
  },
};

describe('a terminal’s action in a burst', () => {
  it('with terminalsInBursts the closing message after the last fix’s check runs in the fix’s activity', async () => {
    const p = agentProject();
    const run = await runLoop(definition(closing), {
      ...p,
      ...RULES,
      burstsAfterActions: true,
      terminalsInBursts: true,
    });
    expect(run.result).toMatchObject({ terminated_by: 'terminal', final_state: 'gave_up' });
    expect(linesOf(p.cwd, 'ran')).toEqual(['check', 'fix', 'check', 'fix', 'check', 'gave up']);
    expect(await carriedIn(run.workflowId, true)).toEqual(['local', 'activity+check', 'activity+check+gave_up']);
    const ends = run.events.filter((e) => e.event === 'action_complete').map((e) => e.state);
    expect(ends).toEqual(['check', 'fix', 'check', 'fix', 'check', 'gave_up']);
    expect(run.events.at(-1)).toMatchObject({ event: 'loop_complete', final_state: 'gave_up', failure: true });
  }, 120_000);

  it('without terminalsInBursts (an older release) the closing message is a burst of its own', async () => {
    const p = agentProject();
    const run = await runLoop(definition(closing), { ...p, ...RULES, burstsAfterActions: true });
    expect(run.result).toMatchObject({ terminated_by: 'terminal', final_state: 'gave_up' });
    expect(linesOf(p.cwd, 'ran')).toEqual(['check', 'fix', 'check', 'fix', 'check', 'gave up']);
    expect(await carriedIn(run.workflowId, true)).toEqual(['local', 'activity+check', 'activity+check', 'local']);
  }, 120_000);
});
