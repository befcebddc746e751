/**
 * little-loops' run-time limits, reached only by loops that use their fields:
 *
 * - `max_retries` / `on_retry_exhausted`: a state may re-enter itself (route to itself) at most
 *   `max_retries` times in a row after its first execution; the next re-entry goes to
 *   `on_retry_exhausted` instead (verdict `retry_exhausted` in the route event).
 * - `retryable_exit_codes`: a re-entry after a non-zero exit whose code is not listed is not
 *   retried: it goes to `on_retry_exhausted` at once (the run ends with an error naming the code
 *   when there is none).
 * - `on_max_steps` / `on_max_iterations`: the cap does not end the run the first time it is
 *   reached; the run goes to that state, and from there has as many further steps as the loop has
 *   states to reach a terminal before it ends `max_steps` / `max_iterations` after all.
 *
 * Pure, like the rest of the core: the counts live in the run's snapshot.
 */
import { interpolate, type InterpolationScope } from '../interpolate.js';
import type { ActionResult } from '../types.js';
import type { StateConfig } from '../schema.js';
import type { Draft } from './draft.js';

/** A re-entry's target: where the run goes instead, or why it cannot go on. */
export type Reentry = { to: string; exhausted?: string } | { error: string };

/** Where a route from the current state to `to` really goes under max_retries/retryable_exit_codes. */
export function reentryTarget(d: Draft, state: StateConfig, to: string, action: ActionResult | null): Reentry {
  const { snap } = d;
  const from = snap.current;
  if (state.max_retries === undefined && state.retryable_exit_codes === undefined) return { to };
  if (to !== from) {
    delete snap.reentries;
    return { to };
  }
  const count = (snap.reentries?.state === from ? snap.reentries.count : 0) + 1;
  const code = action?.exit_code ?? 0;
  const codes = state.retryable_exit_codes;
  const why =
    codes !== undefined && code !== 0 && !codes.includes(code)
      ? `exit code ${code} is not in retryable_exit_codes (${codes.join(', ')})`
      : state.max_retries !== undefined && count > state.max_retries
        ? `re-entered ${state.max_retries} time${state.max_retries === 1 ? '' : 's'} in a row (max_retries)`
        : undefined;
  if (why === undefined) {
    snap.reentries = { state: from, count };
    return { to };
  }
  delete snap.reentries;
  const exhausted = (state as Record<string, unknown>).on_retry_exhausted;
  if (typeof exhausted !== 'string')
    return { error: `state "${from}": ${why}, and it has no on_retry_exhausted: route` };
  return { to: exhausted, exhausted: why };
}

type Cap = 'max_steps' | 'max_iterations';

/**
 * The cap reached when entering a state, or undefined. Once the run went to the cap's handler,
 * the caps are the steps taken then plus one per state of the loop.
 */
export function capReached(d: Draft): Cap | undefined {
  const { snap, def } = d;
  if (snap.capRouted !== undefined)
    return snap.steps >= snap.capRouted.steps + Object.keys(def.states).length ? snap.capRouted.cap : undefined;
  if (def.max_steps !== undefined && snap.steps >= def.max_steps) return 'max_steps';
  return undefined;
}

/** The handler of a cap (`on_max_steps`/`on_max_iterations`), the first time only; undefined otherwise. */
export function capHandler(d: Draft, cap: Cap): string | undefined {
  if (d.snap.capRouted !== undefined) return undefined;
  const target = cap === 'max_steps' ? d.def.on_max_steps : d.def.on_max_iterations;
  if (target === undefined) return undefined;
  d.snap.capRouted = { cap, steps: d.snap.steps };
  return target;
}

/**
 * The score history a `score_stall` state without `source:` judges: its `history_file` (a
 * template), else little-loops' default `${context.run_dir}/.score_history` when the run has a
 * `run_dir`; undefined when neither (the action's output is judged). Throws on an undefined
 * variable in `history_file`.
 */
export function scoreHistoryFile(state: StateConfig, scope: InterpolationScope): string | undefined {
  const config = state.evaluate;
  if (config?.type !== 'score_stall' && config?.type !== 'open_question_stall') return undefined;
  if (config.source !== undefined) return undefined;
  if (config.history_file !== undefined) return interpolate(config.history_file, scope);
  const runDir = scope.context.run_dir;
  const name = config.type === 'score_stall' ? '.score_history' : '.open_questions_history';
  return typeof runDir === 'string' && runDir !== '' ? `${runDir}/${name}` : undefined;
}
