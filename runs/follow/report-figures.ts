/**
 * The figures of `ll-loop report`, from runs' event streams alone (pure: no Temporal, no clock):
 * how many runs, how they ended, what a success takes (median iterations and time), what runs
 * cost, and per state its visits, errors and time. `report-runs.ts` gathers the runs;
 * `report-suggestions.ts` reads these figures for advice.
 */
import type { TimedEvent } from '../../fsm/run/events.js';
import { FAILED_OUTCOMES, type LoopOutcome } from '../../fsm/run/outcome.js';
import { loopOutcome, outcomeOfStatus, SCOPE_BUSY_OUTCOME } from '../../reporters/outcome-words.js';
import { SCOPE_BUSY } from '../../workflows/scope-busy.js';
import type { TerminatedBy } from '../../fsm/types.js';

/** One run as the report reads it. */
export interface ReportRun {
  id: string;
  /** The loop version it ran (loader/loop-version.ts), `unknown` for runs of earlier releases. */
  loop_version: string;
  started_at: string;
  /** Its workflow's status (Temporal's word, any case): the outcome of a run whose loop recorded no end. */
  status: string;
  /** Its events, as `history <loop> <run-id>` rebuilds them. */
  events: readonly TimedEvent[];
  /** The type of the failure its workflow closed with, if any (`ScopeBusy`: its scopes were refused). */
  failure_type?: string;
}

/** One state's figures: each `state_enter` is a visit; a visit errors on an action error, an error verdict or a fatal error. */
interface StateFigures {
  state: string;
  visits: number;
  errors: number;
  error_rate: number;
  /** From the visit's `state_enter` to the next one (or the run's end); null when no visit ended. */
  mean_duration_ms: number | null;
}

export interface ReportFigures {
  runs: number;
  /** Runs still open (left out of the rates). */
  running: number;
  succeeded: number;
  /** Runs whose outcome counts as a failure (failed, limit, budget, timed_out, error). */
  failed: number;
  /** succeeded / runs that have ended; null before any ended. */
  success_rate: number | null;
  by_outcome: Record<string, number>;
  /** How ended runs' loops ended (`terminated_by`), for the runs that recorded an end. */
  ended_by: Record<string, number>;
  median_iterations_to_success: number | null;
  median_duration_ms_to_success: number | null;
  /** What the runs' agent calls cost (USD); null when no run reported usage. */
  cost_usd: number | null;
  cost_per_run: number | null;
  cost_per_success: number | null;
  states: StateFigures[];
  /** Failed runs by the state they ended in. */
  failed_ended_in: Record<string, number>;
  /** Runs that stopped short of an end of their own (stopped, killed, timed out) by the state they were in. */
  stalled_in: Record<string, number>;
}

interface Visit {
  state: string;
  start: number;
  end?: number;
  error: boolean;
}

/** What one run says, read from its events. */
interface RunFacts {
  outcome: LoopOutcome | string;
  terminated_by?: TerminatedBy;
  iterations?: number;
  duration_ms?: number;
  cost_usd?: number;
  /** The state it ended in (its end's `final_state`), else the last state it entered. */
  last_state?: string;
  visits: Visit[];
}

type Fields = Record<string, unknown>;
const time = (e: Fields): number => (typeof e.ts === 'string' ? Date.parse(e.ts) : NaN);
const isErrorEvent = (e: Fields): boolean =>
  e.event === 'action_error' || e.event === 'fatal_error' || (e.event === 'evaluate' && e.verdict === 'error');

function factsOf(run: ReportRun): RunFacts {
  const visits: Visit[] = [];
  let end: Fields | undefined;
  for (const event of run.events as readonly Fields[]) {
    const current = visits[visits.length - 1];
    if (event.event === 'state_enter' && typeof event.state === 'string') {
      if (current && current.end === undefined) current.end = time(event);
      visits.push({ state: event.state, start: time(event), error: false });
    } else if (isErrorEvent(event) && current && current.state === event.state) current.error = true;
    else if (event.event === 'loop_complete') {
      end = event;
      if (current && current.end === undefined) current.end = time(event);
    }
  }
  const lastEntered = visits[visits.length - 1]?.state;
  if (!end) {
    // A run its scope lock refused never began: no outcome of the loop's, as `list --failed` says.
    const outcome = run.failure_type === SCOPE_BUSY ? SCOPE_BUSY_OUTCOME : outcomeOfStatus(run.status);
    return { outcome, visits, ...(lastEntered ? { last_state: lastEntered } : {}) };
  }
  const terminated_by = end.terminated_by as TerminatedBy;
  const spent = end.spent as { cost_usd?: unknown } | undefined;
  return {
    outcome: loopOutcome({ terminated_by, failure: end.failure === true }),
    terminated_by,
    visits,
    ...(typeof end.iterations === 'number' ? { iterations: end.iterations } : {}),
    ...(typeof end.duration_ms === 'number' ? { duration_ms: end.duration_ms } : {}),
    ...(typeof spent?.cost_usd === 'number' ? { cost_usd: spent.cost_usd } : {}),
    ...(typeof end.final_state === 'string'
      ? { last_state: end.final_state }
      : lastEntered
        ? { last_state: lastEntered }
        : {}),
  };
}

export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const round = (n: number, places: number): number => Math.round(n * 10 ** places) / 10 ** places;
const ratio = (a: number, b: number, places = 4): number | null => (b === 0 ? null : round(a / b, places));
const bump = (counts: Record<string, number>, key: string): void => {
  counts[key] = (counts[key] ?? 0) + 1;
};

function stateFigures(facts: readonly RunFacts[]): StateFigures[] {
  const byState = new Map<string, { visits: number; errors: number; ms: number[] }>();
  for (const visit of facts.flatMap((f) => f.visits)) {
    const s = byState.get(visit.state) ?? { visits: 0, errors: 0, ms: [] };
    s.visits += 1;
    if (visit.error) s.errors += 1;
    const ms = (visit.end ?? NaN) - visit.start;
    if (Number.isFinite(ms) && ms >= 0) s.ms.push(ms);
    byState.set(visit.state, s);
  }
  return [...byState].map(([state, s]) => ({
    state,
    visits: s.visits,
    errors: s.errors,
    error_rate: ratio(s.errors, s.visits) ?? 0,
    mean_duration_ms: s.ms.length ? Math.round(s.ms.reduce((a, b) => a + b, 0) / s.ms.length) : null,
  }));
}

/** Outcomes that end a run short of an end of its own: stopped from outside, out of time. */
const STALLED: ReadonlySet<string> = new Set(['stopped', 'timed_out']);

/** The figures of a set of runs. */
export function reportFigures(runs: readonly ReportRun[]): ReportFigures {
  const facts = runs.map(factsOf);
  const by_outcome: Record<string, number> = {};
  const ended_by: Record<string, number> = {};
  const failed_ended_in: Record<string, number> = {};
  const stalled_in: Record<string, number> = {};
  for (const f of facts) {
    bump(by_outcome, f.outcome);
    if (f.terminated_by) bump(ended_by, f.terminated_by);
    const failed = (FAILED_OUTCOMES as readonly string[]).includes(f.outcome);
    if (failed && f.last_state) bump(failed_ended_in, f.last_state);
    if (STALLED.has(f.outcome) && f.last_state) bump(stalled_in, f.last_state);
  }
  const wins = facts.filter((f) => f.outcome === 'succeeded');
  const running = by_outcome.running ?? 0;
  // A run refused its scopes neither succeeded nor failed: the rates leave it out.
  const ended = runs.length - running - (by_outcome[SCOPE_BUSY_OUTCOME] ?? 0);
  const costs = facts.flatMap((f) => (f.cost_usd === undefined ? [] : [f.cost_usd]));
  const cost = costs.length
    ? round(
        costs.reduce((a, b) => a + b, 0),
        6,
      )
    : null;
  return {
    runs: runs.length,
    running,
    succeeded: wins.length,
    failed: facts.filter((f) => (FAILED_OUTCOMES as readonly string[]).includes(f.outcome)).length,
    success_rate: ratio(wins.length, ended),
    by_outcome,
    ended_by,
    median_iterations_to_success: median(wins.flatMap((f) => (f.iterations === undefined ? [] : [f.iterations]))),
    median_duration_ms_to_success: median(wins.flatMap((f) => (f.duration_ms === undefined ? [] : [f.duration_ms]))),
    cost_usd: cost,
    cost_per_run: cost === null ? null : ratio(cost, ended, 6),
    cost_per_success: cost === null ? null : ratio(cost, wins.length, 6),
    states: stateFigures(facts),
    failed_ended_in,
    stalled_in,
  };
}
