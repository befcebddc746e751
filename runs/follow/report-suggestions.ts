/**
 * What `ll-loop report` suggests, each rule a pure function of a group's figures: a limit every
 * failed run hits, a state whose visits nearly always error, a state where most failed runs end.
 * A rule speaks only with enough runs behind it (MIN_RUNS failed runs, MIN_VISITS visits).
 */
import type { ReportFigures } from './report-figures.js';

export interface Suggestion {
  rule: 'limit_always_hit' | 'state_errors' | 'failures_end_in';
  /** The state it is about (rules about one state). */
  state?: string;
  message: string;
}

/** Fewest failed runs a rule about failed runs needs. */
const MIN_RUNS = 2;
/** Fewest visits the error-rate rule needs. */
const MIN_VISITS = 2;
/** The error rate from which a state is called out. */
const ERROR_RATE = 0.8;

const LIMITS = ['max_iterations', 'max_steps', 'budget'] as const;

/** Every failed run ran out of max_iterations, max_steps or its budget. */
export function limitAlwaysHit(f: ReportFigures): Suggestion[] {
  const hits = LIMITS.map((limit) => [limit, f.ended_by[limit] ?? 0] as const).filter(([, n]) => n > 0);
  const total = hits.reduce((sum, [, n]) => sum + n, 0);
  if (f.failed < MIN_RUNS || total !== f.failed) return [];
  const which = hits.map(([limit, n]) => `${limit} ${n}×`).join(', ');
  return [
    {
      rule: 'limit_always_hit',
      message: `every failed run (${f.failed}) ran out of a limit (${which}): raise it if the runs were progressing, else find the states they cycle through (ll-loop history <loop> <run-id>)`,
    },
  ];
}

/** States whose visits error at ERROR_RATE or more. */
export function stateErrors(f: ReportFigures): Suggestion[] {
  return f.states
    .filter((s) => s.visits >= MIN_VISITS && s.error_rate >= ERROR_RATE)
    .map((s) => ({
      rule: 'state_errors',
      state: s.state,
      message: `state ${s.state} errored in ${s.errors} of ${s.visits} visits: check its action (ll-loop logs <run-id> --state ${s.state})`,
    }));
}

/** A state where more than half of the failed runs ended. */
export function failuresEndIn(f: ReportFigures): Suggestion[] {
  if (f.failed < MIN_RUNS) return [];
  return Object.entries(f.failed_ended_in)
    .filter(([, n]) => n * 2 > f.failed)
    .map(([state, n]) => ({
      rule: 'failures_end_in',
      state,
      message: `${n} of ${f.failed} failed runs ended in state ${state}: look at its action and its routes`,
    }));
}

/** Every rule's suggestions for a group of runs. */
export function suggestionsFor(f: ReportFigures): Suggestion[] {
  return [...limitAlwaysHit(f), ...stateErrors(f), ...failuresEndIn(f)];
}
