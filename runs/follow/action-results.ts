/**
 * What each action of an execution printed, read from the results of its `runAction` activities
 * in the Temporal history — the output tails the activity returned (64 KiB of stdout, 16 KiB of
 * stderr; complete when `truncated` is unset), which the workflow already recorded. Nothing new is
 * stored for it: no workflow or core change, no bigger events file.
 *
 * Pairing: the core emits exactly one `action_complete` per `action_done` fact, and the workflow
 * makes that fact exactly when a `runAction` activity (remote, or local: a `core_local_activity`
 * marker) completes with a result; actions run one at a time. So within one execution the n-th
 * successful `runAction` result belongs to the n-th `action_complete` event. A burst of quick actions
 * (`runBurst`) is one marker whose result lists its actions' facts in order, each one `action_done`,
 * and the workflow feeds them all; so are the quick actions a `runAction` activity ran after its
 * action (`burst_after`), fed after it (a person's pause or steer during the burst acts after its
 * last: the `controlsAfterBursts` rule; runs of older releases dropped the facts after such a
 * control, and their outputs after it pair one off). A fan-out item's burst in a lane
 * (`lane_item`) holds the item's actions, not the run's: it is skipped. The one exception, an
 * action finishing as the loop's deadline fires, ends the run: nothing comes after it to misalign.
 */
import type { ActionResult } from '../../fsm/types.js';
import type { ActionOutput } from '../../fsm/run/events.js';
import { decodeFirst, type HistoryEvent } from '../find/temporal-history.js';

const RUN_ACTION = 'runAction';
/** A burst of quick actions (workflows/burst.ts): its marker's result holds their facts, in order. */
const RUN_BURST = 'runBurst';
const LOCAL_ACTIVITY_MARKER = 'core_local_activity';

/** A burst's results as a history holds them (a `runBurst` marker's, a `runAction` result's `burst_after`). */
type BurstResults = { facts?: Array<{ result?: ActionResult }> };

/** The results of the execution's completed `runAction` activities, in the order they completed. */
export function actionResultsOf(history: HistoryEvent[]): ActionOutput[] {
  return new ActionResults().of(history);
}

/**
 * The same, read incrementally from a history that grows (a follower asks after every update:
 * reading it all each time made following a long run quadratic in its length).
 */
export class ActionResults {
  private history: HistoryEvent[] | undefined;
  private seen = 0;
  private scheduled = new Map<string, string>();
  private out: ActionOutput[] = [];

  /** The results in `history`: continued from the last call when it is the same (grown) array, else read anew. */
  of(history: HistoryEvent[]): ActionOutput[] {
    if (history !== this.history || history.length < this.seen) {
      this.history = history;
      this.seen = 0;
      this.scheduled = new Map();
      this.out = [];
    }
    for (; this.seen < history.length; this.seen += 1) this.take(history[this.seen]!);
    return this.out;
  }

  private take(e: HistoryEvent): void {
    const sched = e.activityTaskScheduledEventAttributes;
    if (sched) {
      this.scheduled.set(String(e.eventId), sched.activityType?.name ?? '');
      return;
    }
    const done = e.activityTaskCompletedEventAttributes;
    if (done) {
      if (this.scheduled.get(String(done.scheduledEventId)) !== RUN_ACTION) return;
      const result = decodeFirst<ActionResult & { burst_after?: BurstResults }>(done.result);
      pushResult(this.out, result);
      // The quick actions it ran after the action (the `burstsAfterActions` rule), fed after its own.
      for (const fact of result?.burst_after?.facts ?? []) pushResult(this.out, fact.result);
      return;
    }
    const marker = e.markerRecordedEventAttributes;
    if (marker?.markerName === LOCAL_ACTIVITY_MARKER && !marker.failure) {
      const data = decodeFirst<{ activity_type?: string }>(marker.details?.data);
      if (data?.activity_type === RUN_ACTION) pushResult(this.out, decodeFirst<ActionResult>(marker.details?.result));
      if (data?.activity_type === RUN_BURST) {
        const burst = decodeFirst<BurstResults & { lane_item?: string }>(marker.details?.result);
        // A fan-out item's burst in a lane: the item's actions, which record no events of the run's.
        if (burst?.lane_item !== undefined) return;
        for (const fact of burst?.facts ?? []) pushResult(this.out, fact.result);
      }
    }
  }
}

function pushResult(out: ActionOutput[], result: ActionResult | undefined): void {
  out.push({
    output: typeof result?.output === 'string' ? result.output : '',
    stderr: typeof result?.stderr === 'string' ? result.stderr : '',
    exit_code: typeof result?.exit_code === 'number' ? result.exit_code : -1,
    ...(result?.truncated ? { truncated: true } : {}),
    ...(result?.log_file ? { log_file: result.log_file } : {}),
    ...(result?.stderr_file ? { stderr_file: result.stderr_file } : {}),
  });
}
