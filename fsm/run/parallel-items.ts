/**
 * A parallel state's items, resolved by the core when the state starts, and each item's result
 * as the core judges it from its child run's end. Pure.
 *
 * Items are a YAML list (string entries are templates), a template rendering to a JSON array, or
 * (`items_from: lines`) a template whose non-empty lines are the items; branches are loops. Each
 * item's `with:` is rendered with `${item}` and `${item_index}` in scope.
 */
import { interpolate, renderValue, type InterpolationScope } from '../interpolate.js';
import type { ParallelConfig } from '../schema.js';
import type { ExecutionResult, ParallelItem, ParallelItemResult } from '../types.js';
import type { RunEvent } from './snapshot.js';
import { unavailableText, failureText } from './facts.js';
import { carriesData, subloopVerdict } from './subloop.js';

/** Items that cannot be read (not a list, not JSON): the state's `error` verdict says why. */
class ItemsError extends Error {
  override readonly name = 'ItemsError';
}

const EXCERPT = 80;

function excerpt(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > EXCERPT ? `${line.slice(0, EXCERPT)}…` : line;
}

/** The item values of `parallel.items` (a list, JSON or lines). Throws ItemsError or InterpolationError. */
function itemValues(parallel: ParallelConfig, scope: InterpolationScope): unknown[] {
  const items = parallel.items;
  if (Array.isArray(items)) return items.map((v) => (typeof v === 'string' ? interpolate(v, scope) : v));
  if (typeof items !== 'string') return [];
  const text = interpolate(items, scope);
  if (parallel.items_from === 'lines')
    return text
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '');
  if (text.trim() === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ItemsError(
      `parallel items "${items}" rendered "${excerpt(text)}", which is not a JSON array ` +
        '(write items_from: lines to take one item per line)',
    );
  }
  if (!Array.isArray(parsed))
    throw new ItemsError(`parallel items "${items}" rendered ${excerpt(renderValue(parsed))}, which is not a list`);
  return parsed;
}

function bindings(
  withs: Record<string, unknown> | undefined,
  scope: InterpolationScope,
  itemIsData: boolean,
): ParallelItem['bindings'] {
  if (withs === undefined) return undefined;
  const dataContext = scope.dataContext ?? [];
  const values: Record<string, unknown> = {};
  const tainted: string[] = [];
  for (const [key, value] of Object.entries(withs)) {
    if (typeof value !== 'string') {
      values[key] = value;
      continue;
    }
    // `${item}` alone gives the item itself (an object stays an object), as a YAML value would.
    values[key] = /^\$\{\s*item\s*\}$/.test(value) ? scope.item : interpolate(value, scope);
    const usesItem = /\$\{\s*item[.}\s]/.test(value);
    if (carriesData(value, dataContext) || (itemIsData && usesItem)) tainted.push(key);
  }
  return { values, dataContext: tainted };
}

/** The state's items, each with its loop and bound parameters. Throws ItemsError or InterpolationError. */
export function parallelItems(parallel: ParallelConfig, scope: InterpolationScope): ParallelItem[] {
  if (parallel.branches !== undefined) {
    return parallel.branches.map((branch, index) => {
      const loop = typeof branch === 'string' ? branch : branch.loop;
      const withs = typeof branch === 'string' ? undefined : branch.with;
      const item: ParallelItem = { index, item: loop, loop: interpolate(loop, scope).trim() };
      const bound = bindings(withs, { ...scope, item: loop, item_index: index }, false);
      return bound === undefined ? item : { ...item, bindings: bound };
    });
  }
  // Items from a template are run-time data: a child sees them as data, never as code.
  const itemIsData = typeof parallel.items === 'string';
  const loop = interpolate(parallel.loop ?? '', scope).trim();
  return itemValues(parallel, scope).map((value, index) => {
    const item: ParallelItem = { index, item: value, loop };
    const bound = bindings(parallel.with, { ...scope, item: value, item_index: index }, itemIsData);
    return bound === undefined ? item : { ...item, bindings: bound };
  });
}

type ChildFact = Extract<RunEvent, { type: 'subloop_done' | 'subloop_failed' | 'subloop_unavailable' }>;

/** One item's result from its child run's end, judged as a sub-loop state judges its child. */
export function itemResult(item: ParallelItem, runId: string, fact: ChildFact): ParallelItemResult {
  const base = { index: item.index, item: item.item, loop: item.loop, run_id: runId };
  if (fact.type === 'subloop_unavailable') return { ...base, outcome: 'error', error: unavailableText(fact.why) };
  if (fact.type === 'subloop_failed')
    return { ...base, outcome: 'error', error: `sub-loop "${fact.loop}" failed: ${failureText(fact.failure)}` };
  return { ...base, ...fromResult(fact.result) };
}

function fromResult(result: ExecutionResult): Omit<ParallelItemResult, 'index' | 'item' | 'loop'> {
  return {
    outcome: subloopVerdict(result),
    terminated_by: result.terminated_by,
    final_state: result.final_state,
    duration_ms: result.duration_ms,
    captured: result.captured,
    ...(result.error === undefined ? {} : { error: result.error }),
    ...(result.spent === undefined ? {} : { spent: result.spent }),
  };
}

/** An item fail_fast stopped while it ran (`cancelled`) or before it began (`skipped`). */
export function stoppedItem(item: ParallelItem, runId: string | undefined): ParallelItemResult {
  return {
    index: item.index,
    item: item.item,
    loop: item.loop,
    outcome: runId === undefined ? 'skipped' : 'cancelled',
    ...(runId === undefined ? {} : { run_id: runId }),
    error: runId === undefined ? 'not started: fail_fast stopped the fan-out' : 'stopped by fail_fast',
  };
}
