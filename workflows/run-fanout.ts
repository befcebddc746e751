/**
 * A parallel state's items as child workflows (fsm/run/parallel.ts decides; this carries it out).
 *
 * - Bounded: `max_workers` lanes each take the next item in order and run it to its end, so at
 *   most that many children are open at once. Temporal allows 2,000 pending children per run;
 *   the schema caps `max_workers` at 1,000.
 * - Exact: each item's result is kept once, by index, and noted once (`item_done`); a worker
 *   killed at any point replays the same commands (child ids are deterministic:
 *   `<parent>.<state>.<step>.<index>`), so no item starts twice and none is lost.
 * - Long: when the history grows past the run's limit (workflows/history-limits.ts) the lanes
 *   stop taking items, the running ones end, and the run continues as new carrying the ended
 *   items' results (`resume.fanout`); the new run starts only the rest. Each item costs the
 *   parent about six history events, so 10,000 items take about three runs of ~20,000 events.
 * - Stopped: the children run in the effect's cancellation scope (WAIT_CANCELLATION_COMPLETED),
 *   so stopping the parent stops every running child and its processes first. `fail_fast`
 *   cancels the running items on the first that does not succeed and skips the rest.
 */
import { inSpan } from './run-trace.js';
import { CancellationScope, CancelledFailure, isCancellation } from '@temporalio/workflow';
import { itemResult, stoppedItem } from '../fsm/run/parallel-items.js';
import { unavailableText } from '../fsm/run/facts.js';
import type { RunEvent } from '../fsm/run/snapshot.js';
import type { ParallelItem, ParallelItemResult, ParallelRequest } from '../fsm/types.js';
import type { FanoutProgress, FanoutStatus, LoopWorkflowInput } from './definitions.js';
import { failureOf } from './error-text.js';
import { inItemWorktree, worktreeSource } from './item-worktree.js';
import { FanoutChildren } from './fanout-children.js';
import { FanoutLedger } from './fanout-ledger.js';
import { FanoutPauses } from './fanout-pauses.js';
import { FanoutScopes } from './fanout-scopes.js';
import { FanoutTally } from './fanout-tally.js';
import { carryOf } from './fanout-carry.js';
import { runLanes } from './fanout-lanes.js';
import { laneRefusal } from '../fsm/run/lane-items.js';
import { childDepth, childInput, childOptions, loadChild, resultOfFailedChild, type LoadedChild } from './run-child.js';

/** What the fan-out tells its run while it goes on. */
export interface FanoutHooks {
  /** An item ended (or was skipped): note `item_done`, once per item (timed `now`: by default the workflow's clock). */
  itemDone(result: ParallelItemResult, now?: number): void;
  /** The live counts, for the status query (undefined once the fan-out is over). */
  status(status: FanoutStatus | undefined): void;
  /** Whether the history is long enough to continue as new. */
  historyFull(): boolean;
  /** Continue as new with the ended items' results (never returns). */
  continueAsNew(progress: FanoutProgress): Promise<never>;
}

/** The child run id of one item: stable across replays and continue-as-new. */
function itemRunId(parentId: string, request: ParallelRequest, index: number): string {
  return `${parentId}.${request.state}.${request.step}.${index}`;
}

/** Run the items of `request` (those not in `done`) and return the join's fact. */
export async function runFanout(
  parent: LoopWorkflowInput,
  request: ParallelRequest,
  parentId: string,
  done: readonly ParallelItemResult[],
  hooks: FanoutHooks,
): Promise<RunEvent> {
  // Carried results are for these items (by index); the item itself is as resolved now.
  const results = new FanoutTally(
    done
      .filter((r) => request.items[r.index] !== undefined)
      .map((r) => ({ ...r, item: request.items[r.index]!.item, loop: request.items[r.index]!.loop })),
  );
  const todo = request.items.filter((item) => !results.has(item.index));
  if (todo.length === 0) return joined(results);
  const depth = childDepth(parent, todo[0]!.loop);
  if (typeof depth !== 'number' && depth.type === 'subloop_unavailable')
    return { type: 'parallel_unavailable', error: unavailableText(depth.why), now: Date.now() };
  if (typeof depth !== 'number') return depth;
  const loaded = await loadAll(parent, todo);
  const source = request.isolation === 'worktree' ? await worktreeSource(parent) : undefined;
  if (source !== undefined && 'error' in source)
    return { type: 'parallel_unavailable', error: source.error, now: Date.now() };
  // Under a budget, the items spend from one ledger (the `sharedBudget` rule); a rate-limit pause
  // of one holds the others (`shareRateLimits`). Both signal the running items through their handles.
  const children = new FanoutChildren();
  const ledger =
    request.budget !== undefined ? new FanoutLedger(request.budget, [...results.values()], children) : undefined;
  const pauses = new FanoutPauses(children);
  // Items on the parent's checkout hold their loops' scopes (the `itemScopes` rule).
  const scopes = new FanoutScopes(parent.options.cwd);
  const failFast = request.fail_mode === 'fail_fast';
  // Items whose loops need no run of their own run in the parent itself (the `laneItems` rule).
  const inLane = laneLoops(parent, request, loaded);
  const outer = CancellationScope.current();
  const running = new Map<number, { scope: CancellationScope; runId: string; lane?: true }>();
  const waiting = new Map<number, string[]>();
  let stopping = failFast && results.failed > 0;
  let checkpoint = false;
  let cursor = 0;

  const report = (): void =>
    hooks.status({
      state: request.state,
      total: request.items.length,
      done: results.size,
      failed: results.failed,
      running: [...running.entries()].map(([index, r]) => ({
        index,
        run_id: r.runId,
        ...(r.lane ? { lane: r.lane } : {}),
      })),
      ...(waiting.size > 0 ? { waiting: [...waiting.entries()].map(([index, scopes]) => ({ index, scopes })) } : {}),
    });

  const settle = (result: ParallelItemResult, now?: number): void => {
    if (!results.add(result)) return;
    children.ended(result.run_id);
    ledger?.ended(result);
    hooks.itemDone(result, now);
    if (failFast && result.outcome !== 'yes' && !stopping) {
      stopping = true;
      for (const other of running.values()) other.scope.cancel();
    }
    report();
  };

  const lane = async (): Promise<void> => {
    while (cursor < todo.length && !stopping && !checkpoint && !ledger?.exhausted()) {
      if (hooks.historyFull()) {
        checkpoint = true;
        return;
      }
      await pauses.beforeStart();
      if (cursor >= todo.length || stopping || checkpoint || ledger?.exhausted()) return;
      const item = todo[cursor++]!;
      const runId = itemRunId(parentId, request, item.index);
      const child = loaded.get(item.loop)!;
      if ('type' in child) {
        settle(itemResult(item, runId, child as Extract<RunEvent, { type: 'subloop_unavailable' }>));
        continue;
      }
      // An item on the parent's checkout that declares scopes waits for them (the items after
      // it in this lane wait too; lanes keep item order). Given up: the end settles it.
      const claim = source ? undefined : scopes.claimOf(child.definition);
      if (claim && !(await holdScopes(item.index, runId, claim))) return;
      const scope = new CancellationScope({
        cancellable: true,
        ...(request.timeout_s === undefined ? {} : { timeout: request.timeout_s * 1000 }),
      });
      running.set(item.index, { scope, runId });
      report();
      const start = (cwd: string) =>
        runItem(
          { ...parent, options: { ...parent.options, cwd } },
          { request, item, child, depth, parentId, runId, ledger, children },
          scope,
          outer,
          () => stopping,
        );
      // Each item's span holds its child run's (workflows/run-trace.ts).
      const result = await inSpan(
        `item ${request.state}[${item.index}]`,
        { 'll_loop.state': request.state, 'll_loop.item.index': item.index, 'll_loop.run_id': runId },
        () => (source ? inItemWorktree(parent, source, parentId, item, start) : start(parent.options.cwd)),
      );
      running.delete(item.index);
      if (claim) scopes.release(runId);
      settle(result);
    }
  };

  /** Wait for an item's scopes, shown in the status while another item holds them. */
  const holdScopes = async (index: number, runId: string, claim: string[]): Promise<boolean> => {
    const giveUp = () => stopping || checkpoint || !!ledger?.exhausted();
    const queued = () => {
      waiting.set(index, claim);
      report();
    };
    const held = await scopes.acquire(runId, claim, giveUp, queued);
    waiting.delete(index);
    return held;
  };

  report();
  if (todo.every((item) => inLane.has(item.loop))) {
    checkpoint = await runLanes({
      parent,
      request,
      parentId,
      depth,
      todo: todo.map((item) => ({
        item,
        definition: (loaded.get(item.loop) as LoadedChild).definition,
        itemId: itemRunId(parentId, request, item.index),
      })),
      running,
      settle,
      report,
      stopping: () => stopping,
      historyFull: hooks.historyFull,
      outer,
    });
  } else {
    // Every lane ends before the fan-out does: a stopped parent's children all record their
    // cancelled end (WAIT_CANCELLATION_COMPLETED) before the parent records its own.
    const lanes = await Promise.allSettled(
      Array.from({ length: Math.min(request.max_workers, todo.length) }, () => lane()),
    );
    const failed = lanes.find((l): l is PromiseRejectedResult => l.status === 'rejected');
    if (failed) throw failed.reason;
  }
  if (checkpoint && !stopping && results.size < request.items.length)
    return hooks.continueAsNew(
      carryOf(request.state, request.step, itemRunId(parentId, request, 0).slice(0, -1), [...results.values()]),
    );
  ledger?.close();
  pauses.close();
  for (const item of todo)
    if (!results.has(item.index)) settle(ledger?.exhausted() ? budgetSkipped(item) : stoppedItem(item, undefined));
  hooks.status(undefined);
  return joined(results);
}

/** An item not started because the items before it spent the fan-out's budget. */
function budgetSkipped(item: ParallelItem): ParallelItemResult {
  return {
    index: item.index,
    item: item.item,
    loop: item.loop,
    outcome: 'skipped',
    error: "not started: the fan-out's budget was spent",
  };
}

function joined(results: FanoutTally): RunEvent {
  return { type: 'parallel_done', results: [...results.values()].sort((a, b) => a.index - b.index), now: Date.now() };
}

/** The loops (by name) whose items run in lanes: none without the `laneItems` rule or when actions leave this queue. */
function laneLoops(
  parent: LoopWorkflowInput,
  request: ParallelRequest,
  loaded: Map<string, LoadedChild | RunEvent>,
): Set<string> {
  const out = new Set<string>();
  if (parent.options.laneItems !== true || parent.options.actionQueue !== undefined) return out;
  const localMaxS = parent.options.localActivityMaxTimeoutS ?? 0;
  for (const [name, child] of loaded)
    if (!('type' in child) && laneRefusal(child.definition, request, localMaxS) === undefined) out.add(name);
  return out;
}

/** Each distinct loop read once (in item order), or why it cannot run. */
async function loadAll(
  parent: LoopWorkflowInput,
  items: readonly ParallelItem[],
): Promise<Map<string, LoadedChild | RunEvent>> {
  const names = [...new Set(items.map((item) => item.loop))];
  const loaded = await Promise.all(names.map((name) => loadChild(parent, name)));
  return new Map(names.map((name, i) => [name, loaded[i]!]));
}

/** One item's child run, to its end: its result, `cancelled` when fail_fast stopped it; a stopped parent rethrows. */
interface ItemRun {
  request: ParallelRequest;
  item: ParallelItem;
  child: LoadedChild;
  depth: number;
  parentId: string;
  runId: string;
  ledger: FanoutLedger | undefined;
  children: FanoutChildren;
}

async function runItem(
  parent: LoopWorkflowInput,
  { request, item, child, depth, parentId, runId, ledger, children }: ItemRun,
  scope: CancellationScope,
  outer: CancellationScope,
  stopping: () => boolean,
): Promise<ParallelItemResult> {
  const budget = ledger ? ledger.remaining() : request.budget;
  const input = childInput(parent, { ...item, ...(budget ? { budget } : {}) }, child.definition, depth, parentId);
  if (ledger) input.child = { ...input.child!, ledger: true };
  input.child = { ...input.child!, pauses: true };
  ledger?.starting(runId);
  const options = childOptions(parent, input, child.file, {
    parentId,
    workflowId: runId,
    summary: `ll-loop: ${child.definition.name} (item ${item.index} of state ${request.state})`,
    memo: { item: item.index, state: request.state },
  });
  try {
    const result = await scope.run(() =>
      children.run(runId, options).catch((err: unknown) => {
        const failed = resultOfFailedChild(err);
        if (failed) return failed;
        throw err;
      }),
    );
    if (outer.consideredCancelled) throw new CancelledFailure(`stopped while item ${item.index} ran`);
    const { snapshot: _snapshot, ...outcome } = result;
    const judged = itemResult(item, runId, { type: 'subloop_done', result: outcome, timedOut: false, now: Date.now() });
    if (scope.consideredCancelled && stopping())
      return { ...judged, outcome: 'cancelled', error: 'stopped by fail_fast' };
    if (scope.consideredCancelled && request.timeout_s !== undefined)
      return {
        ...judged,
        outcome: 'error',
        error: `the state's timeout of ${request.timeout_s}s ran out; the item was stopped`,
      };
    return judged;
  } catch (err) {
    // Only the parent being stopped stops it; an item stopped by fail_fast or its timeout is a result.
    if (isCancellation(err) && outer.consideredCancelled) throw err;
    if (scope.consideredCancelled && stopping()) return stoppedItem(item, runId);
    if (scope.consideredCancelled && request.timeout_s !== undefined)
      return {
        index: item.index,
        item: item.item,
        loop: item.loop,
        run_id: runId,
        outcome: 'error',
        error: `the state's timeout of ${request.timeout_s}s ran out; the item was stopped`,
      };
    return itemResult(item, runId, {
      type: 'subloop_failed',
      loop: child.definition.name,
      failure: failureOf(err),
      timedOut: false,
      now: Date.now(),
    });
  }
}
