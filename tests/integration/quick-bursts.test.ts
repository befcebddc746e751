/**
 * Quick states in bursts (the `quickBursts` run rule) on the real dev server: the same loops run
 * one action at a time (an activity each: no quick lane, so no burst) and in bursts give the same
 * events, routes, captured values and endings; a burst writes one marker for its actions, keeps
 * `${env.*}` values out of its facts, and stops exactly at the loop deadline; with the
 * `stopInBursts` rule a stop reaches a running burst at once, without it at the task's heartbeat;
 * with the `controlsAfterBursts` rule a steer that reaches a burst acts at its end.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, describe, expect, it } from 'vitest';
import { pauseUpdate, steerUpdate, unpauseUpdate, type ControlAnswer } from '../../workflows/control-definitions.js';
import { actionResultsOf } from '../../runs/follow/action-results.js';
import type { HistoryEvent } from '../../runs/find/temporal-history.js';
import { statusQuery, type LoopStatus } from '../../workflows/definitions.js';
import { liveProcesses, waitFor } from '../support/processes.js';
import { closeTemporal, definition, project, runLoop, temporal, type RunOutcome } from './harness.js';

/** An action that would run far past any deadline here; its own duration names it among processes. */
const LONG_SLEEP = '47.4823';

afterAll(closeTemporal);

/** The lines an action appended to `file` in `dir` (none before it wrote any). */
const linesOf = (dir: string, file: string): string[] =>
  existsSync(join(dir, file)) ? readFileSync(join(dir, file), 'utf8').trim().split('\n') : [];

/** Quick: the loops' actions have a 10 s timeout, within the 30 s the quick lane takes. */
const QUICK = { localActivityMaxTimeoutS: 30 };

/** What must match between the two sides: everything but the clock's readings. */
function timeless(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(timeless);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => k !== 'ts' && !k.endsWith('_ms'))
      .map(([k, v]) => [k, timeless(v)]),
  );
}

function conformant(run: RunOutcome) {
  return {
    events: timeless(run.events),
    states: run.states,
    result: timeless({ ...run.result, captured: run.result.captured }),
  };
}

/** The loops both sides run: routes, captured values, context, evaluators, on_error, retries, limits. */
const LOOPS: Record<string, Record<string, unknown>> = {
  routes_captured_context: {
    name: 'conf-routes',
    initial: 'a',
    default_timeout: 10,
    max_iterations: 10,
    context: { goal: 'three' },
    states: {
      a: { action: 'echo "n=${state.iteration} goal=${context.goal}"', capture: 'first', next: 'b' },
      b: { action: 'printf "%s" "${captured.first.output}" | grep -q "n=3"', on_yes: 'c', on_no: 'a' },
      c: {
        action: 'echo 42',
        capture: 'num',
        evaluate: { type: 'output_numeric', operator: 'ge', target: 40 },
        on_yes: 'd',
        on_no: 'a',
      },
      d: {
        action: 'echo "value ${captured.num.output} for ${context.goal}"',
        evaluate: { type: 'output_contains', pattern: 'value 42 for three' },
        on_yes: 'done',
        on_no: 'a',
      },
      done: { terminal: true, action: 'echo bye' },
    },
  },
  max_iterations: {
    name: 'conf-iterations',
    initial: 'a',
    default_timeout: 10,
    max_iterations: 5,
    states: {
      a: { action: 'echo ${state.iteration}', capture: 'last', next: 'b' },
      b: { action: 'false', on_yes: 'done', on_no: 'a' },
      done: { terminal: true },
    },
  },
  max_steps_convergence: {
    name: 'conf-steps',
    initial: 'measure',
    default_timeout: 10,
    max_steps: 7,
    states: {
      measure: {
        action: 'echo $(( 10 - ${state.iteration} ))',
        evaluate: { type: 'convergence', target: 0 },
        route: { target: 'done', progress: '$current', stall: 'done' },
      },
      done: { terminal: true },
    },
  },
  on_error_and_retry: {
    name: 'conf-errors',
    initial: 'flaky',
    default_timeout: 10,
    states: {
      flaky: {
        // Fails twice, then succeeds: attempts counted in a file of the run's directory.
        action: 'n=$(cat tries 2>/dev/null || echo 0); n=$((n+1)); echo $n > tries; [ $n -ge 3 ]',
        retry: { attempts: 3, backoff: 0 },
        on_yes: 'broken',
        on_no: 'done',
      },
      // Output that is no number: the verdict `error`, routed by on_error.
      broken: {
        action: 'echo not-a-number',
        evaluate: { type: 'output_numeric', operator: 'ge', target: 1 },
        on_yes: 'done',
        on_no: 'done',
        on_error: 'recover',
      },
      recover: { action: 'echo recovered', capture: 'r', next: 'done' },
      done: { terminal: true },
    },
  },
};

async function bothSides(raw: Record<string, unknown>) {
  const def = definition(raw);
  const one = await runLoop(def, { cwd: project().cwd, localActivityMaxTimeoutS: 0 });
  const burst = await runLoop(def, { cwd: project().cwd, ...QUICK, quickBursts: true });
  return { one, burst };
}

describe('quick states in bursts', () => {
  it.each(Object.keys(LOOPS))(
    'a run in bursts gives the events, routes and captured values of one action at a time: %s',
    async (name) => {
      const { one, burst } = await bothSides(LOOPS[name]!);
      expect(one.events.length).toBeGreaterThan(5);
      expect(conformant(burst)).toEqual(conformant(one));
    },
  );

  it('one action at a time records an activity per action; in bursts, one marker per burst', async () => {
    const raw = {
      name: 'conf-markers',
      initial: 's1',
      default_timeout: 10,
      states: {
        ...Object.fromEntries(
          Array.from({ length: 20 }, (_, i) => [
            `s${i + 1}`,
            { action: 'true', next: i === 19 ? 'done' : `s${i + 2}` },
          ]),
        ),
        done: { terminal: true },
      },
    };
    const { one, burst } = await bothSides(raw);
    expect(conformant(burst)).toEqual(conformant(one));
    const { client } = await temporal();
    const historyOf = async (id: string) => (await client.workflow.getHandle(id).fetchHistory()).events ?? [];
    const markers = (events: Awaited<ReturnType<typeof historyOf>>) =>
      events.filter((e) => e.markerRecordedEventAttributes).length;
    const upserts = (events: Awaited<ReturnType<typeof historyOf>>) =>
      events.filter((e) => e.upsertWorkflowSearchAttributesEventAttributes).length;
    const oneHistory = await historyOf(one.workflowId);
    const burstHistory = await historyOf(burst.workflowId);
    // One activity per action and an upsert per state, step by step.
    expect(oneHistory.filter((e) => e.activityTaskScheduledEventAttributes).length).toBe(20);
    expect(markers(oneHistory)).toBe(0);
    expect(upserts(oneHistory)).toBeGreaterThanOrEqual(20);
    // In bursts: one marker per burst, and a burst ends only at its 1 s of action time (a loaded
    // machine makes 20 `true`s take longer than that); an upsert per burst and one at the start.
    const actionMs = burst.events
      .filter((e) => e.event === 'action_complete')
      .reduce((sum, e) => sum + Number(e.duration_ms), 0);
    const bursts = markers(burstHistory);
    expect(bursts).toBeGreaterThanOrEqual(1);
    expect(bursts).toBeLessThanOrEqual(1 + Math.floor(actionMs / 1000));
    expect(upserts(burstHistory)).toBeLessThanOrEqual(bursts + 1);
    // At most one history event per quick transition, all told, when one burst ran them all.
    if (bursts === 1) expect(burstHistory.length).toBeLessThanOrEqual(20);
  });

  it('a burst keeps ${env.*} values on the worker: resolved there, masked in its facts', async () => {
    const secret = 'burst-secret-value-4711';
    const def = definition({
      name: 'conf-secret',
      initial: 'a',
      default_timeout: 10,
      states: {
        a: { action: 'echo "key ${env.BURST_SECRET}"', capture: 'k', next: 'b' },
        b: { action: 'echo "again $LL_V1 ${env.BURST_SECRET}" >&2; echo ok', capture: 'b', next: 'done' },
        done: { terminal: true },
      },
    });
    const p = project();
    const run = await runLoop(def, {
      cwd: p.cwd,
      ...QUICK,
      quickBursts: true,
      maskLoopEnv: true,
      env: { BURST_SECRET: secret },
    });
    expect(run.result.terminated_by).toBe('terminal');
    expect(run.result.captured['k']!.output).toBe('key ***');
    const { client } = await temporal();
    const history = await client.workflow.getHandle(run.workflowId).fetchHistory();
    // Every payload of the history (the burst's marker included), decoded.
    const text = [...JSON.stringify(history).matchAll(/"data":"([A-Za-z0-9+/=]+)"/g)]
      .map((m) => Buffer.from(m[1]!, 'base64').toString('utf8'))
      .join('\n');
    expect(text).toContain('runBurst');
    expect(text).toContain('key ***');
    expect(text).not.toContain(secret);
    expect(JSON.stringify(run.events)).not.toContain(secret);
  });

  it('the loop timeout is exact inside a burst: the running action is killed at it, no later one starts', async () => {
    // s3 runs far past the 1 s deadline, which falls inside it whatever the machine's load (s1 and
    // s2 take 0.1 s each): the deadline must kill it, not wait for it. Each action notes its start
    // and its end.
    const mark = (state: string, sleep: string) => `echo ${state} >> started; sleep ${sleep}; echo ${state} >> ran`;
    const def = definition({
      name: 'conf-timeout',
      initial: 's1',
      default_timeout: 10,
      timeout: 1,
      states: {
        s1: { action: mark('s1', '0.1'), next: 's2' },
        s2: { action: mark('s2', '0.1'), next: 's3' },
        s3: { action: mark('s3', LONG_SLEEP), next: 's4' },
        s4: { action: mark('s4', '0.1'), next: 's5' },
        s5: { action: mark('s5', '0.1'), next: 'done' },
        done: { terminal: true },
      },
    });
    const p = project();
    // The worker runs in this process: a timer here fires late by as much as the event loop is
    // held up (a loaded machine), which no code of the burst can undo. The burst's own margin is
    // 100 ms on top of the longest such delay seen while the run went on.
    const lag = monitorEventLoopDelay({ resolution: 10 });
    lag.enable();
    const run = await runLoop(def, { cwd: p.cwd, ...QUICK, quickBursts: true }).finally(() => lag.disable());
    expect(run.result.terminated_by).toBe('timeout');
    const start = Date.parse(String(run.events.find((e) => e.event === 'loop_start')!.ts));
    const end = Date.parse(String(run.events.find((e) => e.event === 'loop_complete')!.ts));
    expect(end - start).toBeGreaterThanOrEqual(1000);
    expect(end - start).toBeLessThan(1100 + lag.max / 1e6);
    const lines = (file: string) => linesOf(p.cwd, file);
    // Each state the run entered started its action, and no later one started; every state but
    // the last finished its action; the last one's was killed at the deadline.
    expect(run.states).toEqual(['s1', 's2', 's3']);
    expect(lines('started')).toEqual(run.states);
    expect(lines('ran')).toEqual(['s1', 's2']);
    await waitFor('the killed action to be gone', () => liveProcesses(`sleep ${LONG_SLEEP}`) === 0, 10_000);
  });

  it('a pause sent while a burst runs is accepted during it and holds after the running action, none lost or repeated', async () => {
    // A local activity holds its workflow task open: a query or an update reaches the run only
    // when the SDK heartbeats that task (at 80 % of its 10 s timeout), so the status query and
    // the pause each wait for a heartbeat, two or more on a loaded machine. `a` waits for `go`
    // (written once the pause is accepted) with a timeout far past that: at 25 s it was killed
    // under load before the pause got through, and the run held with nothing ran.
    const def = definition({
      name: 'conf-pause',
      initial: 'a',
      default_timeout: 25,
      states: {
        a: { action: 'while [ ! -f go ]; do sleep 0.02; done; echo a >> ran', timeout: 110, next: 'b' },
        b: { action: 'echo b >> ran', next: 'c' },
        c: { action: 'echo c >> ran', next: 'done' },
        done: { terminal: true },
      },
    });
    const p = project();
    const { client } = await temporal();
    const ran = () => linesOf(p.cwd, 'ran');
    let held: LoopStatus | undefined;
    const run = await runLoop(def, {
      cwd: p.cwd,
      // `a`'s 110 s timeout still runs it on the quick lane, in the burst.
      localActivityMaxTimeoutS: 120,
      quickBursts: true,
      steering: true,
      onStarted: async (id) => {
        const handle = client.workflow.getHandle(id);
        await waitFor('a to run', async () => (await handle.query(statusQuery)).state === 'a');
        const answer = await handle.executeUpdate(pauseUpdate, { args: [{ by: 'ann@test' }] });
        expect(answer).toMatchObject({ state: 'a', holding: false });
        expect(ran()).toEqual([]);
        writeFileSync(join(p.cwd, 'go'), '');
        await waitFor('the run to hold', async () => (await handle.query(statusQuery)).phase === 'paused', 60_000);
        held = await handle.query(statusQuery);
        expect(ran()).toEqual(['a']);
        await handle.executeUpdate(unpauseUpdate, { args: [{ by: 'ann@test' }] });
      },
    });
    expect(held).toMatchObject({ state: 'a', phase: 'paused', paused: { by: 'ann@test', holding: true, next: 'b' } });
    expect(run.result).toMatchObject({ terminated_by: 'terminal', final_state: 'done' });
    expect(ran()).toEqual(['a', 'b', 'c']);
    const names = run.events.map((e) => e.event);
    expect(names.filter((n) => n === 'action_complete')).toHaveLength(3);
    // Accepted while `a` ran: recorded before a's result.
    expect(names.indexOf('paused')).toBeLessThan(names.indexOf('action_complete'));
    expect(names.indexOf('paused')).toBeLessThan(names.indexOf('unpaused'));
  }, 180_000);

  /**
   * Steer a run whose `a` loops on itself in bursts (five 0.1 s actions make the flush's second)
   * to `c`, once `a` has run three times. The steer reaches the run at its task's next completion:
   * the flush's timer after a burst, whose facts then wait to be fed. What ran (the `ran` file),
   * the run, and the outputs paired with its actions from the history (`ll-loop logs`, the UI).
   */
  async function steerMidBurst(controlsAfterBursts: boolean) {
    const p = project();
    const def = definition({
      name: 'conf-steer',
      initial: 'a',
      default_timeout: 10,
      max_iterations: 1000,
      context: { mode: 'slow' },
      states: {
        a: { action: 'sleep 0.1; echo a >> ran; echo a-out', next: 'a' },
        c: { action: 'echo "c ${context.mode}" >> ran; echo c-out', next: 'done' },
        done: { terminal: true },
      },
    });
    const { client } = await temporal();
    let id = '';
    const run = await runLoop(def, {
      cwd: p.cwd,
      ...QUICK,
      quickBursts: true,
      steering: true,
      controlsAfterBursts,
      onStarted: async (workflowId) => {
        id = workflowId;
        await waitFor('a to run three times', () => linesOf(p.cwd, 'ran').length >= 3, 60_000);
        await client.workflow
          .getHandle(workflowId)
          .executeUpdate(steerUpdate, { args: [{ by: 'ann@test', to: 'c', context: { mode: 'fast' } }] });
      },
    });
    const history = ((await client.workflow.getHandle(id).fetchHistory()).events ?? []) as HistoryEvent[];
    const completed = run.events.filter((e) => e.event === 'action_complete');
    return {
      run,
      ran: linesOf(p.cwd, 'ran'),
      completed,
      outputs: actionResultsOf(history).map((r) => r.output.trim()),
    };
  }

  it('with controlsAfterBursts a steer that reaches a burst acts at its end: every action that ran is recorded, the steered state runs its own', async () => {
    const { run, ran, completed, outputs } = await steerMidBurst(true);
    expect(run.result).toMatchObject({ terminated_by: 'terminal', final_state: 'done' });
    expect(ran.at(-1)).toBe('c fast');
    expect(ran.slice(0, -1).every((line) => line === 'a')).toBe(true);
    // One recorded action per action that ran, each the state's own, in order.
    expect(completed.map((e) => e.state)).toEqual([...ran.slice(0, -1).map(() => 'a'), 'c']);
    expect(run.events.find((e) => e.event === 'steered')).toMatchObject({ from: 'a', to: 'c', replaced: 'a' });
    // The history's outputs pair with those actions one to one.
    expect(outputs).toEqual([...ran.slice(0, -1).map(() => 'a-out'), 'c-out']);
  }, 120_000);

  it('with controlsAfterBursts a pause that reaches a burst holds at its end: no action that ran is dropped or run again', async () => {
    const p = project();
    const def = definition({
      name: 'conf-pause-burst',
      initial: 'a',
      default_timeout: 10,
      max_iterations: 1000,
      states: {
        a: { action: 'sleep 0.1; echo a >> ran', next: 'a' },
        c: { action: 'echo c >> ran', next: 'done' },
        done: { terminal: true },
      },
    });
    const { client } = await temporal();
    let whenHeld: string[] = [];
    let answer: ControlAnswer | undefined;
    const run = await runLoop(def, {
      cwd: p.cwd,
      ...QUICK,
      quickBursts: true,
      steering: true,
      controlsAfterBursts: true,
      onStarted: async (id) => {
        const handle = client.workflow.getHandle(id);
        await waitFor('a to run three times', () => linesOf(p.cwd, 'ran').length >= 3, 60_000);
        answer = await handle.executeUpdate(pauseUpdate, { args: [{ by: 'ann@test' }] });
        await waitFor('the run to hold', async () => (await handle.query(statusQuery)).phase === 'paused', 60_000);
        whenHeld = linesOf(p.cwd, 'ran');
        await handle.executeUpdate(steerUpdate, { args: [{ by: 'ann@test', to: 'c' }] });
      },
    });
    expect(run.result).toMatchObject({ terminated_by: 'terminal', final_state: 'done' });
    // The pause reached quick actions running back to back, and was told so.
    expect(answer).toEqual({ state: 'a', phase: 'action', holding: false, after_quick: true });
    // Nothing ran while the run held, and every `a` that ran is recorded once.
    expect(linesOf(p.cwd, 'ran')).toEqual([...whenHeld, 'c']);
    const completed = run.events.filter((e) => e.event === 'action_complete').map((e) => e.state);
    expect(completed).toEqual([...whenHeld.map(() => 'a'), 'c']);
    // `paused` is recorded where the pause acted: before the route of the burst's last action
    // (one action completes after it), not when it was accepted ahead of the burst's results;
    // and so no earlier event bears a later time.
    const names = run.events.map((e) => e.event);
    const at = names.indexOf('paused');
    expect(names.slice(at, names.indexOf('steered')).filter((n) => n === 'action_complete')).toHaveLength(1);
    const times = run.events.slice(0, at + 1).map((e) => Date.parse(String(e.ts)));
    expect(times.every((t, i) => i === 0 || t >= times[i - 1]!)).toBe(true);
  }, 120_000);

  it("without controlsAfterBursts (an older release) the steered state takes the burst's next result as its own", async () => {
    const { run, ran, completed } = await steerMidBurst(false);
    expect(run.result).toMatchObject({ terminated_by: 'terminal', final_state: 'done' });
    // `c` is recorded as run, but its action never ran: the result fed to it was one of `a`'s.
    expect(completed.at(-1)).toMatchObject({ state: 'c' });
    expect(ran).not.toContain('c fast');
    expect(completed.length).toBeLessThanOrEqual(ran.length);
  }, 120_000);

  /** The file `b` waits for, which nobody writes: only a stop (or its 25 s timeout) ends it. Its name marks its process. */
  const never = (stopInBursts: boolean) => `never-${stopInBursts ? 'with' : 'without'}-stop-watch`;

  /** Stop the run once `b` has started; the run's result, what ran, and whether its history has a timer. */
  async function stopInB(stopInBursts: boolean) {
    const p = project();
    const def = definition({
      name: 'conf-stop',
      initial: 'a',
      default_timeout: 25,
      states: {
        a: { action: 'echo a >> ran', next: 'b' },
        b: {
          action: `echo b >> started; while [ ! -f ${never(stopInBursts)} ]; do sleep 0.05; done; echo b >> ran`,
          next: 'c',
        },
        c: { action: 'echo c >> ran', next: 'done' },
        done: { terminal: true },
      },
    });
    const { client } = await temporal();
    const lines = (file: string) => linesOf(p.cwd, file);
    let id = '';
    const run = await runLoop(def, {
      cwd: p.cwd,
      ...QUICK,
      quickBursts: true,
      stopInBursts,
      onStarted: async (workflowId) => {
        id = workflowId;
        await waitFor('b to start', () => lines('started').length === 1, 60_000);
        await client.workflow.getHandle(workflowId).cancel();
      },
    });
    const events = (await client.workflow.getHandle(id).fetchHistory()).events ?? [];
    return { run, ran: lines('ran'), timers: events.filter((e) => e.timerStartedEventAttributes).length };
  }

  it('with stopInBursts a stop reaches a running burst at once: its action is killed, the run ends stopped in its state', async () => {
    const { run, ran, timers } = await stopInB(true);
    expect(run.result).toMatchObject({ terminated_by: 'cancelled', final_state: 'b' });
    expect(run.states).toEqual(['a', 'b']);
    expect(ran).toEqual(['a']);
    // The burst saw the stop and the workflow let it in with a 1 ms timer; without the watch the
    // stop comes with the task's heartbeat and cancels the local activity, with no timer.
    expect(timers).toBe(1);
    expect(run.events.filter((e) => e.event === 'action_complete')).toHaveLength(1);
    await waitFor("b's action to be gone", () => liveProcesses(never(true)) === 0, 10_000);
  }, 120_000);

  it('without stopInBursts (an older release) a stop reaches a running burst with its task, at the heartbeat', async () => {
    const { run, ran, timers } = await stopInB(false);
    // The stop cancels the burst's local activity, whose facts are then lost: the run ends where
    // the burst began, though `a` ran and `b` started (what the rule also mends).
    expect(run.result).toMatchObject({ terminated_by: 'cancelled', final_state: 'a' });
    expect(run.states).toEqual(['a']);
    expect(ran).toEqual(['a']);
    expect(timers).toBe(0);
    await waitFor("b's action to be gone", () => liveProcesses(never(false)) === 0, 10_000);
  }, 120_000);
});
