/**
 * `ll-loop report`'s figures, suggestions and version groups (runs/follow/), from event lists
 * written here: no Temporal, no mocks.
 */
import { describe, expect, it } from 'vitest';
import type { TimedEvent } from '../../fsm/run/events.js';
import { loopReport } from '../../runs/follow/loop-report.js';
import { median, reportFigures, type ReportRun } from '../../runs/follow/report-figures.js';
import { failuresEndIn, limitAlwaysHit, stateErrors, suggestionsFor } from '../../runs/follow/report-suggestions.js';

const T0 = Date.parse('2026-11-01T10:00:00.000Z');

/** A run's events: each step `[state, ms spent there, error?]`, then its end (none: still open or killed). */
function events(
  steps: Array<[string, number, boolean?]>,
  end?: { terminated_by: string; failure?: boolean; iterations?: number; cost?: number },
): TimedEvent[] {
  const out: Array<Record<string, unknown>> = [];
  let at = T0;
  const push = (e: Record<string, unknown>) => out.push({ ...e, seq: out.length + 1, ts: new Date(at).toISOString() });
  push({ event: 'loop_start', loop: 'l', initial: steps[0]?.[0] ?? 'a', max_iterations: 9 });
  for (const [state, ms, error] of steps) {
    push({ event: 'state_enter', state, iteration: 1 });
    if (error) push({ event: 'action_error', state, error: 'boom' });
    at += ms;
  }
  if (end)
    push({
      event: 'loop_complete',
      final_state: steps[steps.length - 1]![0],
      iterations: end.iterations ?? steps.length,
      steps: steps.length,
      terminated_by: end.terminated_by,
      duration_ms: at - T0,
      ...(end.failure ? { failure: true } : {}),
      ...(end.cost === undefined ? {} : { spent: { cost_usd: end.cost, tokens: 10, agent_ms: 5 } }),
    });
  return out as unknown as TimedEvent[];
}

let n = 0;
function run(version: string, evs: TimedEvent[], status = 'COMPLETED', started = T0 + n * 1000): ReportRun {
  n += 1;
  return { id: `l-${n}`, loop_version: version, started_at: new Date(started).toISOString(), status, events: evs };
}

const win = (ms: number, iterations: number, cost?: number) =>
  events(
    [
      ['a', ms],
      ['done', 0],
    ],
    { terminated_by: 'terminal', iterations, ...(cost === undefined ? {} : { cost }) },
  );
const failAt = (state: string, cost?: number) =>
  events(
    [
      ['a', 100],
      [state, 50, true],
      ['failed', 0],
    ],
    { terminated_by: 'terminal', failure: true, ...(cost === undefined ? {} : { cost }) },
  );
const limited = (by: string) =>
  events(
    [
      ['a', 10],
      ['b', 10],
    ],
    { terminated_by: by },
  );

describe('reportFigures', () => {
  it('median: odd, even, none', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNull();
  });

  it.each([
    {
      name: 'successes and a failure terminal',
      runs: () => [run('v', win(1000, 2, 0.5)), run('v', win(3000, 4, 0.5)), run('v', failAt('check', 1), 'FAILED')],
      want: {
        runs: 3,
        succeeded: 2,
        failed: 1,
        success_rate: 0.6667,
        by_outcome: { succeeded: 2, failed: 1 },
        median_iterations_to_success: 3,
        median_duration_ms_to_success: 2000,
        cost_usd: 2,
        cost_per_run: 0.666667,
        cost_per_success: 1,
        failed_ended_in: { failed: 1 },
        stalled_in: {},
      },
    },
    {
      name: 'limits, an open run and a killed one',
      runs: () => [
        run('v', limited('max_iterations'), 'FAILED'),
        run('v', limited('budget'), 'FAILED'),
        run('v', events([['a', 10]]), 'RUNNING'),
        run('v', events([['b', 10]]), 'TERMINATED'),
      ],
      want: {
        runs: 4,
        running: 1,
        succeeded: 0,
        failed: 2,
        success_rate: 0,
        by_outcome: { limit: 1, budget: 1, running: 1, stopped: 1 },
        ended_by: { max_iterations: 1, budget: 1 },
        median_iterations_to_success: null,
        cost_usd: null,
        cost_per_success: null,
        failed_ended_in: { b: 2 },
        stalled_in: { b: 1 },
      },
    },
    { name: 'no runs', runs: () => [], want: { runs: 0, success_rate: null, states: [], by_outcome: {} } },
  ])('$name', ({ runs, want }) => {
    const got = reportFigures(runs()) as unknown as Record<string, unknown>;
    // Each figure named compared whole (a count map with an extra key fails).
    expect(Object.fromEntries(Object.keys(want).map((k) => [k, got[k]]))).toEqual(want);
  });

  it('per state: visits, errors, error rate and mean time until the next state', () => {
    const f = reportFigures([run('v', failAt('check')), run('v', failAt('check')), run('v', win(300, 1))]);
    expect(f.states).toEqual([
      { state: 'a', visits: 3, errors: 0, error_rate: 0, mean_duration_ms: 167 },
      { state: 'check', visits: 2, errors: 2, error_rate: 1, mean_duration_ms: 50 },
      { state: 'failed', visits: 2, errors: 0, error_rate: 0, mean_duration_ms: 0 },
      { state: 'done', visits: 1, errors: 0, error_rate: 0, mean_duration_ms: 0 },
    ]);
  });
});

describe('runs refused their scopes', () => {
  it('count as scope busy, neither failed nor in the success rate', () => {
    const refused = { ...run('v', [], 'FAILED'), failure_type: 'ScopeBusy' };
    const f = reportFigures([refused, run('v', win(300, 1)), run('v', failAt('check'), 'FAILED')]);
    expect(f.by_outcome).toMatchObject({ 'scope busy': 1, succeeded: 1, failed: 1 });
    expect([f.runs, f.succeeded, f.failed, f.success_rate]).toEqual([3, 1, 1, 0.5]);
  });
});

describe('suggestions', () => {
  it.each([
    {
      name: 'every failed run hit a limit',
      runs: () => [run('v', limited('max_iterations')), run('v', limited('max_steps'))],
      rule: limitAlwaysHit,
      want: ['limit_always_hit'],
    },
    {
      name: 'one failed run is too few',
      runs: () => [run('v', limited('max_iterations'))],
      rule: limitAlwaysHit,
      want: [],
    },
    {
      name: 'a failure terminal is not a limit',
      runs: () => [run('v', limited('max_iterations')), run('v', failAt('check'))],
      rule: limitAlwaysHit,
      want: [],
    },
    {
      name: 'a state erroring in every visit',
      runs: () => [run('v', failAt('check')), run('v', failAt('check'))],
      rule: stateErrors,
      want: ['state_errors:check'],
    },
    {
      name: 'a state erroring in half its visits',
      runs: () => [
        run('v', failAt('check')),
        run(
          'v',
          events(
            [
              ['check', 5],
              ['done', 0],
            ],
            { terminated_by: 'terminal' },
          ),
        ),
      ],
      rule: stateErrors,
      want: [],
    },
    {
      name: 'most failed runs end in one state',
      runs: () => [run('v', failAt('x')), run('v', failAt('y')), run('v', limited('max_iterations'))],
      rule: failuresEndIn,
      want: ['failures_end_in:failed'],
    },
    {
      name: 'failed runs end in different states',
      runs: () => [run('v', limited('max_iterations')), run('v', failAt('x'))],
      rule: failuresEndIn,
      want: [],
    },
  ])('$name', ({ runs, rule, want }) => {
    const got = rule(reportFigures(runs()));
    expect(got.map((s) => (s.state ? `${s.rule}:${s.state}` : s.rule))).toEqual(want);
    for (const s of got) expect(s.message).toMatch(/\S/);
  });

  it('names the limits and the counts in its message', () => {
    const [s] = suggestionsFor(
      reportFigures([run('v', limited('max_iterations')), run('v', limited('max_iterations'))]),
    );
    expect(s?.message).toContain('every failed run (2)');
    expect(s?.message).toContain('max_iterations 2×');
  });
});

describe('loopReport', () => {
  it('groups by version, newest first, with its own suggestions, and compares the newest with the one before', () => {
    const old = [run('aaa', failAt('check'), 'FAILED', T0), run('aaa', failAt('check'), 'FAILED', T0 + 1)];
    const fixed = [run('bbb', win(100, 2), 'COMPLETED', T0 + 10), run('bbb', win(300, 2), 'COMPLETED', T0 + 11)];
    const r = loopReport('l', [...old, ...fixed], { runs_found: 4, limit: 50 });
    expect(r.versions.map((v) => [v.version, v.figures.runs, v.figures.succeeded, v.figures.failed])).toEqual([
      ['bbb', 2, 2, 0],
      ['aaa', 2, 0, 2],
    ]);
    expect(r.versions[0]!.suggestions).toEqual([]);
    expect(r.versions[1]!.suggestions.map((s) => s.rule)).toEqual(['state_errors', 'failures_end_in']);
    expect(r.versions[1]!.first_started).toBe(new Date(T0).toISOString());
    expect(r.all).toMatchObject({ runs: 4, succeeded: 2, failed: 2, success_rate: 0.5 });
    expect(r.comparison).toEqual({
      from: 'aaa',
      to: 'bbb',
      success_rate: [0, 1],
      median_iterations_to_success: [null, 2],
      median_duration_ms_to_success: [null, 200],
      cost_per_run: [null, null],
    });
    expect(r).toMatchObject({ runs_found: 4, runs_read: 4, limit: 50 });
  });

  it('has no comparison with one version', () => {
    expect(loopReport('l', [run('aaa', win(1, 1))], { runs_found: 1, limit: 50 }).comparison).toBeUndefined();
  });
});
