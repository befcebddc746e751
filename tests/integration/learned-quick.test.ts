/**
 * The `learnedQuick` run rule on the real dev server: a check whose timeout makes it an ordinary
 * activity runs as a burst (a local activity, one marker) once the run has seen its state's action
 * finish within 1 s, and as an activity again after it took longer; without the rule every pass is
 * an activity. And the `learnedChains` rule: two such checks in a row run in one burst; without it,
 * in a burst each. Every way records the same events, routes and ending.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { TimedEvent } from '../../fsm/run/events.js';
import { LEARNED_QUICK_MS } from '../../workflows/quick-record.js';
import { closeTemporal, definition, project, runLoop, temporal } from './harness.js';

afterAll(closeTemporal);

/**
 * Four passes of `check` (a 30-minute timeout: never quick by its timeout), the second one slow
 * (1.2 s), the fourth passing.
 */
const LOOP = {
  name: 'learned-quick',
  initial: 'check',
  max_iterations: 10,
  states: {
    check: {
      action:
        'n=$(cat n 2>/dev/null || echo 0); n=$((n+1)); echo $n > n; if [ $n -eq 2 ]; then sleep 1.2; fi; [ $n -ge 4 ]',
      timeout: 1800,
      on_yes: 'done',
      on_no: 'check',
    },
    done: { terminal: true },
  },
};

/** Pass `n` of `check`: its action, its exit code, and where the exit code routes. */
const pass = (n: number, exit: number) => {
  const verdict = exit === 0 ? 'yes' : 'no';
  return [
    { event: 'state_enter', state: 'check', iteration: n },
    { event: 'action_start', state: 'check', action: LOOP.states.check.action, action_type: 'shell' },
    { event: 'action_complete', state: 'check', exit_code: exit },
    { event: 'evaluate', state: 'check', type: 'exit_code', verdict, details: { exit_code: exit } },
    { event: 'route', from: 'check', to: exit === 0 ? 'done' : 'check', verdict },
  ];
};

/** What either way records, clock readings aside. */
const EVENTS = [
  { event: 'loop_start', loop: 'learned-quick', initial: 'check', max_iterations: 10 },
  ...pass(1, 1),
  ...pass(2, 1),
  ...pass(3, 1),
  ...pass(4, 0),
  { event: 'state_enter', state: 'done', iteration: 4 },
  { event: 'loop_complete', final_state: 'done', iterations: 4, steps: 5, terminated_by: 'terminal' },
];

type Kind = 'activity' | 'local';

/** How each action of the run was carried out, in order: a runAction activity, or a local activity's marker. */
async function kindsOf(workflowId: string): Promise<Kind[]> {
  const { client } = await temporal();
  const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const kinds: Kind[] = [];
  for (const e of events) {
    if (e.activityTaskScheduledEventAttributes?.activityType?.name === 'runAction') kinds.push('activity');
    if (e.markerRecordedEventAttributes?.markerName === 'core_local_activity') kinds.push('local');
  }
  return kinds;
}

/** Events without the clock's readings. */
const timeless = (events: TimedEvent[]) =>
  events.map((e) =>
    Object.fromEntries(Object.entries(e).filter(([k]) => k !== 'ts' && !k.endsWith('_ms') && k !== 'seq')),
  );

async function run(learnedQuick: boolean) {
  const p = project();
  return runLoop(definition(LOOP), { cwd: p.cwd, localActivityMaxTimeoutS: 30, learnedQuick });
}

/** A gate of two checks (30-minute timeouts, both quick), the second passing on its third pass. */
const GATE = {
  name: 'learned-chains',
  initial: 'build',
  max_iterations: 10,
  states: {
    build: { action: 'echo built', timeout: 1800, next: 'check' },
    check: {
      action: 'n=$(cat n 2>/dev/null || echo 0); n=$((n+1)); echo $n > n; [ $n -ge 3 ]',
      timeout: 1800,
      on_yes: 'done',
      on_no: 'build',
    },
    done: { terminal: true },
  },
};

async function runGate(learnedChains: boolean) {
  const p = project();
  return runLoop(definition(GATE), { cwd: p.cwd, localActivityMaxTimeoutS: 30, learnedQuick: true, learnedChains });
}

/** The local activities' markers of a run: how many actions each one's burst ran. */
async function burstSizes(workflowId: string): Promise<number[]> {
  const { client } = await temporal();
  const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  return events
    .filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity')
    .map((e) => {
      const data = e.markerRecordedEventAttributes?.details?.result?.payloads?.[0]?.data;
      const outcome = JSON.parse(Buffer.from(data ?? []).toString('utf8')) as { facts: unknown[] };
      return outcome.facts.length;
    });
}

describe('actions the run saw quick', () => {
  it('with learnedQuick a check seen quick runs as a local activity; one seen slow runs as an activity again', async () => {
    const withRule = await run(true);
    expect(withRule.result).toMatchObject({ terminated_by: 'terminal', final_state: 'done' });
    expect(withRule.states).toEqual(['check', 'check', 'check', 'check', 'done']);
    // The first pass is an activity (nothing seen yet); each next one is local when the one before
    // it took at most 1 s. The second pass sleeps 1.2 s, so the third is an activity again.
    const took = withRule.events.filter((e) => e.event === 'action_complete').map((e) => Number(e.duration_ms));
    expect(took).toHaveLength(4);
    expect(took[1]).toBeGreaterThan(LEARNED_QUICK_MS);
    const expected: Kind[] = took.map((_, i) => (i > 0 && took[i - 1]! <= LEARNED_QUICK_MS ? 'local' : 'activity'));
    expect(expected[2]).toBe('activity');
    expect(await kindsOf(withRule.workflowId)).toEqual(expected);
    // A burst records what the activity would: the same events, exit codes and route each pass.
    expect(timeless(withRule.events)).toEqual(EVENTS);
  }, 120_000);

  it('without learnedQuick (an older release) every pass of the check is an activity', async () => {
    const without = await run(false);
    expect(without.result).toMatchObject({ terminated_by: 'terminal', final_state: 'done' });
    expect(await kindsOf(without.workflowId)).toEqual(['activity', 'activity', 'activity', 'activity']);
    expect(timeless(without.events)).toEqual(EVENTS);
  }, 60_000);

  it('with learnedChains two checks the run saw quick run back to back in one local activity', async () => {
    const chained = await runGate(true);
    expect(chained.result).toMatchObject({ terminated_by: 'terminal', final_state: 'done' });
    expect(chained.states).toEqual(['build', 'check', 'build', 'check', 'build', 'check', 'done']);
    // Pass 1: each check an activity (nothing seen yet). Then one burst goes on through both
    // checks and round the gate's loop (passes 2 and 3) until the terminal state.
    expect(await kindsOf(chained.workflowId)).toEqual(['activity', 'activity', 'local']);
    expect(await burstSizes(chained.workflowId)).toEqual([4]);
    const unchained = await runGate(false);
    expect(timeless(chained.events)).toEqual(timeless(unchained.events));
  }, 120_000);

  it('without learnedChains (an older release) each check the run saw quick is a burst of its own', async () => {
    const unchained = await runGate(false);
    expect(unchained.result).toMatchObject({ terminated_by: 'terminal', final_state: 'done' });
    expect(await kindsOf(unchained.workflowId)).toEqual(['activity', 'activity', 'local', 'local', 'local', 'local']);
    expect(await burstSizes(unchained.workflowId)).toEqual([1, 1, 1, 1]);
  }, 60_000);
});
