/**
 * The actions that follow an action, run in the action's own activity (the `burstsAfterActions`
 * run rule, with `briefAfterActions` and `terminalsInBursts` widening what may follow;
 * fsm/run/burst.ts BurstAfter). A loop's pass is an agent's fix and then its check: the check ran
 * as a burst in the workflow task that the fix's result started, a local activity and a second
 * workflow activation on every pass. Here the fix's activity feeds the fix's result to the pure
 * core itself and runs the check at once, as a burst runs it (activities/run-burst.ts: the
 * spawner, the journal, the loop deadline, the run's stop); the workflow feeds the fix's fact and
 * the burst's to the same core in the same order.
 *
 * The events of the action's end and of each state the burst enters go to the worker's live copy
 * of the run's events as they happen (worker/event-hub.ts `ahead`); this activity feeds the facts
 * to the core for that as the burst does (a transition each, in the worker: the burst runs in the
 * spawner). None runs when a person's pause or steer reached the run while the action ran (seen in
 * this process: host/control-requests.ts): it acts when the action ends, as it does without this
 * rule; one that reaches it while the burst runs drains it. The burst keeps the activity's
 * heartbeat going, which is how a stop reaches it; a stop ends it as it ends a burst that watches
 * for one: the actions that completed are the run's.
 */
import type { BurstAfterOutcome, BurstFact } from '../fsm/run/burst.js';
import { burstAfter, endsBurst, nextBurstAction } from '../fsm/run/burst.js';
import { transition } from '../fsm/run/transition.js';
import type { Snapshot } from '../fsm/run/snapshot.js';
import type { ActionResult } from '../fsm/types.js';
import type { ActionCall } from '../workflows/activity-types.js';
import { controlledSince, onControl } from '../host/control-requests.js';
import { HEARTBEAT_MS } from './heartbeat.js';
import type { Context } from '@temporalio/activity';
import type { BurstOutcome } from '../fsm/run/burst.js';
import type { RunStreamEvent } from '../fsm/run/events.js';
import type { RunBurstInput } from '../workflows/activity-types.js';

/** How the actions after an action run their burst (activities/run-burst.ts burstRunner). */
export interface BurstRunOptions {
  /** The burst's name in the journal when it is not the activity's own (default: the activity id, or the lane item's). */
  journalId?: string;
  /** Once aborted, no action of the burst starts after the running one. */
  drain?: AbortSignal;
  /** Each fact as it comes, with its state, after it is journaled. */
  onFact?: (fact: BurstFact, state: string) => void;
}

/**
 * A burst run in the current activity (activities/run-burst.ts burstRunner): `runBurst`'s body,
 * and the actions an action's activity runs after it.
 */
export type BurstRunner = (input: RunBurstInput, options?: BurstRunOptions) => Promise<BurstOutcome>;

/**
 * The burst after the action of `input` whose result is `result`, run with `burst` under the
 * journal name `journalId` in the activity `ctx` (undefined: a direct call); undefined when none ran (none was asked for, none may follow, a
 * person's control came, or its first action could not be started: the workflow then runs what
 * comes next itself, as without the rule).
 */
export async function runBurstAfter(
  input: ActionCall,
  result: ActionResult,
  journalId: string,
  burst: BurstRunner,
  ctx: Context | undefined,
  eventsAhead?: (workflowId: string, events: readonly RunStreamEvent[]) => void,
): Promise<BurstAfterOutcome | undefined> {
  const after = input.burst_after;
  if (after === undefined || result.error === 'cancelled') return undefined;
  const workflowId = ctx?.info.workflowExecution?.workflowId ?? input.instanceId;
  if (controlledSince(workflowId, ctx?.info.currentAttemptScheduledTimestampMs ?? 0)) return undefined;
  const now = Date.now();
  const fact: BurstFact = { type: 'action_done', result, now };
  const next = burstAfter(after, fact);
  if (next === undefined) return undefined;
  // The state the burst enters shows in the run's live events now, not once the burst has ended
  // (the run records the same events, numbered the same, when it feeds the facts).
  eventsAhead?.(workflowId, next.events);
  const beat = ctx
    ? setInterval(() => ctx.heartbeat({ state: next.first.state, after: input.state }), HEARTBEAT_MS)
    : undefined;
  // A person's pause or steer that reaches the run now acts after the running action, as it does
  // between actions run one at a time (the run feeds the facts up to it, then the control).
  const drain = new AbortController();
  const unwatch = onControl(workflowId, () => drain.abort());
  // Each action's end and the state after it show in the live events as it ends, while the burst
  // goes on: the burst decides with the same core, so the run records the same events, numbered
  // the same, when it feeds the facts. Not the burst's last fact's: the run applies a control
  // that reached it meanwhile before that one (workflows/burst.ts feedBurst), and the burst goes
  // on past a fact only when it was not drained before the fact was sent.
  let snapshot: Snapshot = next.snapshot;
  const progress = { actions: 0, ms: 0 };
  const onFact = (fact: BurstFact): void => {
    if (snapshot.status !== 'running') return;
    const t = transition(after.definition, snapshot, fact);
    snapshot = t.snapshot;
    progress.actions += 1;
    progress.ms += fact.result.duration_ms;
    const goesOn =
      !drain.signal.aborted &&
      !endsBurst(fact.result) &&
      nextBurstAction(after.definition, t, progress, after.bounds) !== undefined;
    if (goesOn) eventsAhead?.(workflowId, t.events);
  };
  try {
    const outcome = await burst(
      {
        definition: after.definition,
        snapshot: next.snapshot,
        first: next.first,
        action: {
          instanceId: input.instanceId,
          cwd: input.cwd,
          ...(input.mask_env === undefined ? {} : { mask_env: input.mask_env }),
          ...(input.detect_signals === undefined ? {} : { detect_signals: input.detect_signals }),
          ...(input.handoff_threshold === undefined ? {} : { handoff_threshold: input.handoff_threshold }),
        },
        bounds: after.bounds,
        ...(after.deadline_ms === undefined ? {} : { deadline_ms: after.deadline_ms }),
        now,
        // A cancellation of the activity is the run's stop: what ran before it is the run's.
        watch_stop: true,
      },
      { journalId, drain: drain.signal, onFact },
    );
    return { now, ...outcome };
  } catch {
    // Its first action could not be started: the run starts it itself, under the retry policy of any.
    return undefined;
  } finally {
    unwatch();
    if (beat !== undefined) clearInterval(beat);
  }
}
