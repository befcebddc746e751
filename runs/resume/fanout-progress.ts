/**
 * Resuming a run stopped in the middle of a parallel state: the items whose child runs had ended
 * by themselves are carried into the new run (`continueFrom.fanout`), which runs only the rest.
 *
 * The children are found by their ids (`<run>.<state>.<step>.<index>`, workflows/run-fanout.ts),
 * the items by resolving the state's items from the stopped run's snapshot, as the core will
 * again in the new run. A child stopped with its parent (`cancelled`), terminated, or never
 * started runs again; one that ended (in success or failure) keeps its result. Items the stopped
 * run had itself carried from an earlier run it resumed keep theirs too.
 */
import { WorkflowFailedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { scopeOf } from '../../fsm/run/draft.js';
import { itemResult, parallelItems } from '../../fsm/run/parallel-items.js';
import type { Snapshot } from '../../fsm/run/snapshot.js';
import type { LoopDefinition } from '../../fsm/schema.js';
import type { ExecutionResult, ParallelItem, ParallelItemResult } from '../../fsm/types.js';
import { LOOP_FAILED, type FanoutProgress, type LoopWorkflowInput } from '../../workflows/definitions.js';
import { carriedResults, carryOf } from '../../workflows/fanout-carry.js';

/** How many children are looked up at once. */
const LOOKUPS_AT_ONCE = 16;

/** The ended items of the fan-out `snapshot` stopped in, or undefined when it stopped elsewhere. */
export async function endedItems(
  client: Client,
  runId: string,
  definition: LoopDefinition,
  snapshot: Snapshot,
  previous: LoopWorkflowInput | undefined,
): Promise<FanoutProgress | undefined> {
  const parallel = definition.states[snapshot.current]?.parallel;
  if (parallel === undefined) return undefined;
  let items: ParallelItem[];
  try {
    items = parallelItems(parallel, scopeOf(definition, snapshot, Date.now()));
  } catch {
    return undefined; // the new run's state gives the reason as its error verdict
  }
  const carried = new Map<number, ParallelItemResult>();
  const earlier = previous?.continueFrom?.fanout;
  if (earlier?.state === snapshot.current) for (const r of carriedResults(earlier)) carried.set(r.index, r);
  const results: ParallelItemResult[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++]!;
      const childId = `${runId}.${snapshot.current}.${snapshot.steps}.${item.index}`;
      const ended = await endedChild(client, childId);
      if (ended)
        results.push(
          itemResult(item, childId, { type: 'subloop_done', result: ended, timedOut: false, now: Date.now() }),
        );
      else {
        const before = carried.get(item.index);
        if (before) results.push(before);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(LOOKUPS_AT_ONCE, items.length) }, worker));
  if (results.length === 0) return undefined;
  // Compact as a continue-as-new's carry (one payload, capped at 2 MB): 10,000 ended items whole
  // came to 2.2 MB. Items carried from an earlier run keep their whole ids (another prefix).
  const prefix = `${runId}.${snapshot.current}.${snapshot.steps}.`;
  return carryOf(
    snapshot.current,
    snapshot.steps,
    prefix,
    results.sort((a, b) => a.index - b.index),
  );
}

/** The result of child `id` if it ended by itself (not stopped, not terminated, not running). */
async function endedChild(client: Client, id: string): Promise<ExecutionResult | undefined> {
  const handle = client.workflow.getHandle(id);
  let status: string;
  try {
    status = (await handle.describe()).status.name;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
  let result: (ExecutionResult & { snapshot?: unknown }) | undefined;
  if (status === 'COMPLETED') result = (await handle.result()) as ExecutionResult;
  else if (status === 'FAILED') {
    try {
      await handle.result();
    } catch (err) {
      const cause = err instanceof WorkflowFailedError ? err.cause : undefined;
      if (cause instanceof ApplicationFailure && cause.type === LOOP_FAILED)
        result = cause.details?.[0] as ExecutionResult | undefined;
    }
  }
  if (result === undefined || result.terminated_by === 'cancelled') return undefined;
  const { snapshot: _snapshot, ...outcome } = result;
  return outcome;
}
