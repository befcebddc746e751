/**
 * Fan-out items in lanes (runs with the `laneItems` rule): when every item's loop needs no run of
 * its own (fsm/run/lane-items.ts), the items run inside the parent's workflow — each item's loop
 * driven by the same core, its quick actions as bursts (workflows/burst.ts), one local activity
 * each — instead of as child workflows: one `MarkerRecorded` per burst in the parent's history,
 * against a child's start, its own history and its end.
 *
 * - Deterministic: local activities running side by side reach a workflow in the order they end,
 *   but a replay hands them over in the order they were scheduled. So one driver takes the
 *   results in schedule order only (the oldest running burst first; a later one that ended first
 *   waits for it), and handles each without awaiting: feeding its facts, then scheduling that
 *   item's next burst or settling it and starting the next item. The commands are then the same
 *   however the results were grouped into activations.
 * - Bounded: at most `max_workers` items run at once.
 * - Flushed: local activities are recorded when the workflow task completes, and a task with a
 *   local activity still running does not. Once the bursts ran 100 actions, or 1 s of action time
 *   per lane, since the last flush, no burst starts until every running one ended; a 1 ms timer
 *   then completes the task (a crash re-runs at most about 1 s of each lane's completed work, as
 *   a run's bursts do, and one task records at most about 100 bursts).
 *   A burst that saw the run's stop (`stopped_at`) holds the lanes the same way, and the timer
 *   lets the stop in.
 * - Exact: a burst scheduled again after a crash is given the results its actions journaled
 *   (activities/action-journal.ts, keyed by the item and the action's step): no completed action
 *   runs twice.
 * - What an item has not: a run id (`ll-loop status`/`logs` of its own), events of its own (its
 *   `item_done` in the parent's stream, its result in the join), a stop or pause of its own.
 */
import { CancellationScope, isCancellation, sleep } from '@temporalio/workflow';
import { loopEnvNames } from '../fsm/definition/env-names.js';
import { mayBurst, type BurstOutcome } from '../fsm/run/burst.js';
import { itemResult, stoppedItem } from '../fsm/run/parallel-items.js';
import type { Transition } from '../fsm/run/snapshot.js';
import { childStart } from '../fsm/run/subloop.js';
import { transition } from '../fsm/run/transition.js';
import type { LoopDefinition } from '../fsm/schema.js';
import type { ParallelItem, ParallelItemResult, ParallelRequest } from '../fsm/types.js';
import type { RunBurstInput } from './activity-types.js';
import { begin } from './begin-run.js';
import { feedBurst, LOCAL_FLUSH_AFTER_ACTIONS, LOCAL_FLUSH_AFTER_MS, runBurst } from './burst.js';
import type { LoopWorkflowInput } from './definitions.js';
import { failureOf } from './error-text.js';
import { childInput } from './run-child.js';

/** What the fan-out gives its lanes. */
export interface LaneFanout {
  parent: LoopWorkflowInput;
  request: ParallelRequest;
  parentId: string;
  depth: number;
  /** The items to run, in order, each with its loop's definition. */
  todo: ReadonlyArray<{ item: ParallelItem; definition: LoopDefinition; itemId: string }>;
  /** The fan-out's running items (fail_fast cancels their scopes), shown by the status query. */
  running: Map<number, { scope: CancellationScope; runId: string; lane?: true }>;
  settle: (result: ParallelItemResult, now: number) => void;
  report: () => void;
  stopping: () => boolean;
  historyFull: () => boolean;
  outer: CancellationScope;
}

/** One item under way: where its loop is. */
interface ItemRun {
  item: ParallelItem;
  def: LoopDefinition;
  itemId: string;
  at: Transition;
  scope: CancellationScope;
  action: RunBurstInput['action'];
}

/** A burst under way, and how it ended once it has. */
interface Pending {
  run: ItemRun;
  ended?: { outcome: BurstOutcome } | { error: unknown };
  done: Promise<void>;
}

/** Run the items; true when the history filled up and the rest is for the run continued as new. */
export async function runLanes(fan: LaneFanout): Promise<boolean> {
  const { parent, request, running } = fan;
  const localMaxS = parent.options.localActivityMaxTimeoutS ?? 0;
  const pending: Pending[] = [];
  const held: ItemRun[] = [];
  const unflushed = { actions: 0, ms: 0 };
  // Lanes run side by side: 1 s of action time each, at most 100 actions in all (one task's markers).
  const flushAfterMs = LOCAL_FLUSH_AFTER_MS * Math.max(1, Math.min(request.max_workers, fan.todo.length));
  let holding = false;
  let stopSeen = false;
  let watch = parent.options.stopInBursts === true;
  let checkpoint = false;
  let cursor = 0;
  // The lanes' clock: the workflow's when they start, then the time each fact handled was timed.
  // A replay hands the results over at other instants of the workflow's clock; the facts' times
  // are recorded with them, so items start and end at the same times in both.
  let clock = Date.now();

  const finish = (run: ItemRun, result: ParallelItemResult): void => {
    running.delete(run.item.index);
    fan.settle(result, clock);
  };

  const schedule = (run: ItemRun): void => {
    const { snapshot, effect } = run.at;
    if (snapshot.status !== 'running' || effect.type !== 'run_action') return;
    const entry: Pending = { run, done: Promise.resolve() };
    entry.done = run.scope
      .run(() =>
        runBurst({
          definition: run.def,
          snapshot,
          first: effect.input,
          action: run.action,
          // The whole bound, whatever the other lanes ran: a burst run again comes to the same actions.
          bounds: { maxActions: LOCAL_FLUSH_AFTER_ACTIONS, maxMs: LOCAL_FLUSH_AFTER_MS, localMaxS },
          now: Date.now(),
          ...(watch ? { watch_stop: true as const } : {}),
          lane_item: `${request.state}.${request.step}.${run.item.index}`,
        }),
      )
      .then(
        (done) => void (entry.ended = { outcome: done.outcome }),
        (error: unknown) => void (entry.ended = { error }),
      );
    pending.push(entry);
  };

  /** Carry an item on from where its loop is: its next burst (held while the lanes flush), or its end. */
  const advance = (run: ItemRun): void => {
    const { snapshot, effect } = run.at;
    if (effect.type === 'finish' && snapshot.status === 'done')
      return finish(run, judged(run, { type: 'subloop_done', result: snapshot.outcome, timedOut: false, now: clock }));
    if (
      snapshot.status === 'running' &&
      effect.type === 'run_action' &&
      mayBurst(run.def, snapshot, effect.input, localMaxS)
    ) {
      if (holding) held.push(run);
      else schedule(run);
      return;
    }
    // Only a stdout signal's handoff can lead here: it waits for `ll-loop resume` of a run, which an item in a lane is not.
    const why = `state "${snapshot.current}" needs a run of its own (${effect.type}), which an item in a lane has not`;
    finish(run, failed(run, new Error(why)));
  };

  const start = (): void => {
    while (
      !holding &&
      !fan.stopping() &&
      !checkpoint &&
      running.size < request.max_workers &&
      cursor < fan.todo.length
    ) {
      if (fan.historyFull()) {
        checkpoint = true;
        break;
      }
      const { item, definition, itemId } = fan.todo[cursor++]!;
      const input = childInput(parent, item, definition, fan.depth, fan.parentId);
      const started = childStart(definition, input.child!);
      const def = 'definition' in started ? started.definition : definition;
      const threshold = def.config?.handoff_threshold;
      const run: ItemRun = {
        item,
        def,
        itemId,
        at: begin(def, input, started, clock),
        scope: new CancellationScope({ cancellable: true }),
        action: {
          instanceId: itemId,
          cwd: parent.options.cwd,
          mask_env: loopEnvNames(def),
          detect_signals: true,
          ...(threshold === undefined ? {} : { handoff_threshold: threshold }),
        },
      };
      running.set(item.index, { scope: run.scope, runId: itemId, lane: true });
      advance(run);
    }
    fan.report();
  };

  /** A burst's end, handled without awaiting (see the module's note). */
  const handle = ({ run, ended }: Pending): void => {
    if (ended === undefined) return;
    if ('error' in ended) {
      if (isCancellation(ended.error)) {
        if (fan.outer.consideredCancelled) throw ended.error;
        const { run_id: _none, ...cancelled } = stoppedItem(run.item, run.itemId);
        return finish(run, cancelled);
      }
      if (run.at.snapshot.status !== 'running') return;
      run.at = transition(run.def, run.at.snapshot, {
        type: 'action_failed',
        failure: failureOf(ended.error),
        now: clock,
      });
      return advance(run);
    }
    const { outcome } = ended;
    for (const fact of outcome.facts) {
      unflushed.actions += 1;
      unflushed.ms += fact.result.duration_ms;
      clock = Math.max(clock, fact.now);
    }
    clock = Math.max(clock, outcome.stopped_at ?? 0);
    run.at = feedBurst(run.def, run.at, outcome);
    if (outcome.stopped_at !== undefined) holding = stopSeen = true;
    else if (outcome.facts.length === 0) return finish(run, failed(run, new Error('its burst ran no action')));
    if (unflushed.actions >= LOCAL_FLUSH_AFTER_ACTIONS || unflushed.ms >= flushAfterMs) holding = true;
    if (fan.stopping() && run.at.effect.type !== 'finish') {
      const { run_id: _none, ...cancelled } = stoppedItem(run.item, run.itemId);
      return finish(run, cancelled);
    }
    advance(run);
  };

  start();
  // Held bursts and items not yet started wait for the flush: `holding` until it is done.
  while (pending.length > 0 || holding) {
    if (pending.length === 0) {
      // Every burst ended: the timer completes the task, recording them (and lets a stop in).
      await sleep(1);
      // A stop a burst saw but that never came: the bursts watch no more (as workflows/burst.ts BurstStops).
      if (stopSeen) watch = stopSeen = false;
      holding = false;
      unflushed.actions = 0;
      unflushed.ms = 0;
      for (const run of held.splice(0)) {
        if (fan.stopping()) {
          const { run_id: _none, ...cancelled } = stoppedItem(run.item, run.itemId);
          finish(run, cancelled);
        } else schedule(run);
      }
      start();
      continue;
    }
    await pending[0]!.done;
    while (pending[0]?.ended !== undefined) {
      handle(pending.shift()!);
      start();
    }
  }
  return checkpoint;
}

function judged(run: ItemRun, fact: Parameters<typeof itemResult>[2]): ParallelItemResult {
  const { run_id: _none, ...result } = itemResult(run.item, run.itemId, fact);
  return result;
}

function failed(run: ItemRun, err: unknown): ParallelItemResult {
  return judged(run, {
    type: 'subloop_failed',
    loop: run.def.name,
    failure: failureOf(err),
    timedOut: false,
    now: Date.now(),
  });
}
