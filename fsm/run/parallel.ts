/**
 * Parallel states (`parallel:`, docs/loop-format.md#parallel-states): the core resolves the items
 * and asks the runtime to run them (`run_parallel`); the runtime runs each as a child run, at most
 * `max_workers` at once (fsm/run/parallel-start.ts starts it), notes each end (`item_done`) and feeds back every result in item order
 * (`parallel_done`). The join is captured under the state's name and routed:
 * - `yes` (on_yes): every item succeeded, or there were none;
 * - `partial` (on_partial, else on_no): some did;
 * - `no` (on_no): none did;
 * - `error` (on_error): the items could not be resolved, or the fan-out could not start.
 */
import { routeFor } from '../routing.js';
import type { StateConfig } from '../schema.js';
import type { ActionResult, CapturedValue, ParallelItemResult, Spend } from '../types.js';
import { addSpend } from './budget.js';
import { emit, finish, setPrev, stateOf, type Draft } from './draft.js';
import type { RunStreamEvent } from './events.js';
import { chargeSpend } from './on-budget.js';
import type { RunEvent, RunningSnapshot } from './snapshot.js';
import { failState, routeTo } from './steps.js';

/** The fan-out ended: join its results, or route the reason it could not start as `error`. */
export function onParallelEvent(
  d: Draft,
  event: Extract<RunEvent, { type: 'parallel_done' | 'parallel_unavailable' }>,
): void {
  const state = stateOf(d);
  if (event.type === 'parallel_unavailable') return failState(d, state, event.error);
  join(
    d,
    state,
    [...event.results].sort((a, b) => a.index - b.index),
  );
}

/**
 * How many items' results a join keeps (`results`, `output`). The join travels in the run's
 * snapshot (continue-as-new, the run's result), and Temporal refuses a payload over 2 MB: 10,000
 * results, each twice, came to about 10 MB.
 */
const JOIN_LISTED = 1000;

/**
 * Every result (in item order) up to JOIN_LISTED; past that the items that did not succeed first,
 * then the first that did, JOIN_LISTED in all, each group in item order. The counts cover them all.
 */
function listedResults(results: ParallelItemResult[]): ParallelItemResult[] {
  if (results.length <= JOIN_LISTED) return results;
  const failed = results.filter((r) => r.outcome !== 'yes');
  const kept = failed.slice(0, JOIN_LISTED);
  for (const r of results) {
    if (kept.length >= JOIN_LISTED) break;
    if (r.outcome === 'yes') kept.push(r);
  }
  return kept;
}

/** The join's verdict: every item succeeded (or none to run), some did, none did. */
function joinVerdict(succeeded: number, count: number): 'yes' | 'partial' | 'no' {
  if (succeeded === count) return 'yes';
  return succeeded > 0 ? 'partial' : 'no';
}

function join(d: Draft, state: StateConfig, results: ParallelItemResult[]): void {
  const { snap } = d;
  const name = snap.current;
  const count = results.length;
  const succeeded = results.filter((r) => r.outcome === 'yes').length;
  const failed = count - succeeded;
  const verdict = joinVerdict(succeeded, count);
  const duration_ms = results.reduce((most, r) => Math.max(most, r.duration_ms ?? 0), 0);
  emit(d, 'fanout_join', { state: name, count, succeeded, failed, verdict });
  const kept = listedResults(results);
  const output = JSON.stringify(kept);
  const action: ActionResult = { output, stderr: '', exit_code: verdict === 'yes' ? 0 : 1, duration_ms };
  const joined: CapturedValue = {
    output,
    stderr: '',
    exit_code: action.exit_code,
    duration_ms,
    results: kept,
    succeeded,
    failed,
    count,
    ...(kept.length < count ? { unlisted: count - kept.length } : {}),
  };
  snap.captured = { ...snap.captured, [name]: joined, ...(state.capture ? { [state.capture]: joined } : {}) };
  // The children spent from this run's budget: charged to the run and to this state.
  if (chargeSpend(d, state, totalSpend(results), action)) return;
  const details = { count, succeeded, failed };
  snap.result = { verdict, details };
  emit(d, 'evaluate', { state: name, type: 'parallel', verdict, details });
  const target = routeFor(state, verdict) ?? (verdict === 'partial' ? routeFor(state, 'no') : undefined);
  if (target === undefined) {
    setPrev(d, action);
    return finish(
      d,
      'error',
      `no valid transition from state "${name}" for verdict "${verdict}": add on_${verdict}: <state>` +
        (verdict === 'partial' ? ' or on_no: <state>' : ''),
    );
  }
  routeTo(d, state, target, verdict, action);
}

function totalSpend(results: readonly ParallelItemResult[]): Spend | undefined {
  let total: Spend | undefined;
  for (const r of results) if (r.spent !== undefined) total = addSpend(total, r.spent);
  return total;
}

/** The `item_done` event for one ended item, and the snapshot with its number taken (noted mid-effect). */
export function noteItemDone(
  snapshot: RunningSnapshot,
  result: ParallelItemResult,
  now: number,
): { snapshot: RunningSnapshot; event: RunStreamEvent } {
  const seq = snapshot.seq + 1;
  const event: RunStreamEvent = {
    event: 'item_done',
    state: snapshot.current,
    index: result.index,
    outcome: result.outcome,
    ...(result.run_id === undefined ? {} : { run_id: result.run_id }),
    ...(result.error === undefined ? {} : { error: result.error }),
    seq,
    ts: new Date(now).toISOString(),
  };
  return { snapshot: { ...snapshot, seq }, event };
}
