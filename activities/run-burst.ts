/**
 * The `runBurst` activity: a chain of quick shell actions run back to back in one local activity
 * (activities/burst-loop.ts: the pure core deciding between them). Only the facts are returned —
 * the actions' results, output masked as any action's (`mask_env`) — and the workflow feeds them to
 * the same core in the same order, recording the events a run of one action per activity records.
 * `${env.*}` values are read on this worker only, from the run's environment, which is also its
 * actions' whole environment (activities/action-env.ts), as for `runAction`.
 *
 * The burst runs in the worker's action spawner (activities/action-spawner.ts), or here while it
 * starts or when there is none; either way this activity is what Temporal sees: it passes the
 * activity's cancellation and the run's stop on to the burst, and turns how the burst ended into
 * its outcome or its failure.
 *
 * Each action's result is journaled as it ends (activities/action-journal.ts), and a retried burst
 * (its outcome lost with its workflow task's completion) delivers those again and runs the rest.
 *
 * A stop of the run is seen here too (`watch_stop`, activities/stop-watch.ts), since the run itself
 * hears of it only when the burst's workflow task ends: the running action is killed, its result
 * dropped, and the burst returns what ran before it with `stopped_at`.
 */
import { CancelledFailure, type Context } from '@temporalio/activity';
import type { BurstFact, BurstOutcome } from '../fsm/run/burst.js';
import type { RunBurstInput } from '../workflows/activity-types.js';
import { currentContext, injectedEnv, type ActivityDeps } from './run-action.js';
import { burstActionKey, readBurstJournal, writeJournal, type JournaledAction } from './action-journal.js';
import { burstSpawner, type ActionSpawner } from './action-spawner.js';
import { BurstControl, runBurstLoop, type BurstEnd } from './burst-loop.js';
import { expectedFailure } from './expected-failure.js';
import { runProcess } from './process.js';
import { ShellSetupFault, definedEnv, runShellAction } from './shell-action.js';
import type { SpawnerFault } from './spawner-protocol.js';
import { watchForStop } from './stop-watch.js';
import { ListingAhead } from './listing-ahead.js';
import type { BurstRunOptions, BurstRunner } from './burst-after.js';

/**
 * Bursts running in this worker's process while its spawner starts (it leaves after 30 s without
 * an action, and takes 0.14–0.23 s to start): one at a time. The first run after a pause starts
 * at once; a flood of runs (1,000 loops started together) waits for the spawner instead of forking
 * every action from the worker's main thread.
 */
let inWorker = 0;

/**
 * Builds the burst runner (`runBurst`, activities/index.ts). Infrastructure faults of a burst's
 * first action throw (Temporal retries the burst, as it retries `runAction`). `where.spawner`: the
 * spawner bursts run in (by default the worker's, when it has one); none: in the worker.
 */
export function burstRunner(
  deps: ActivityDeps = {},
  where: { spawner?: ActionSpawner } = { spawner: burstSpawner() },
  ahead: ListingAhead = new ListingAhead(() => undefined),
): BurstRunner {
  const { spawner } = where;
  const burst = async (input: RunBurstInput, options: BurstRunOptions = {}): Promise<BurstOutcome> => {
    const { journalId, drain } = options;
    const ctx = currentContext();
    const injected = injectedEnv(deps, input.action.instanceId);
    const control = new BurstControl();
    const onCancel = (): void => control.abort('cancel', now(input));
    ctx?.cancellationSignal.addEventListener('abort', onCancel, { once: true });
    if (ctx?.cancellationSignal.aborted) onCancel();
    const onDrain = (): void => control.drain();
    drain?.addEventListener('abort', onDrain, { once: true });
    if (drain?.aborted) onDrain();
    const watch = input.watch_stop
      ? watchForStop(runOf(input), deps.client, () => control.abort('stop', now(input)))
      : undefined;
    const journal = burstJournal(deps.journalDir, ctx, input, journalId);
    const facts: BurstFact[] = [];
    const states: string[] = [];
    const onFact = (fact: BurstFact, state: string): void => {
      journal?.record(facts.length, state, fact);
      facts.push(fact);
      states.push(state);
      options.onFact?.(fact, state);
    };
    try {
      let end: BurstEnd<SpawnerFault> | BurstEnd | undefined;
      try {
        if (spawner !== undefined && (spawner.up || inWorker > 0))
          end = await spawner.burst(input, definedEnv(injected ?? process.env), control, onFact, journal?.done);
        // Here when there is no spawner (or it could not start), and for one burst at a time while
        // it starts: the first run after a pause does not wait for it.
        if (end === undefined) {
          spawner?.warm();
          inWorker += 1;
          try {
            end = await runBurstLoop(
              input,
              (action, stop) => runShellAction(action, injected, runProcess, { signal: stop }),
              control,
              onFact,
              journal?.done,
            );
          } finally {
            inWorker -= 1;
          }
        }
      } catch (err) {
        // The spawner went away under a running action: a fault of that action. The actions
        // before it are the run's; it runs again as the first of the next step (or, the first,
        // the burst is retried), as any action whose activity failed.
        if (facts.length === 0) throw err;
        return { facts, states };
      }
      const outcome = outcomeOf(end, { facts, states }, ctx?.cancellationSignal.reason);
      return input.lane_item === undefined ? outcome : { ...outcome, lane_item: input.lane_item };
    } finally {
      watch?.dispose();
      ctx?.cancellationSignal.removeEventListener('abort', onCancel);
      drain?.removeEventListener('abort', onDrain);
    }
  };
  // Its checks' end may have the checkout listed for the guarded action that comes next (activities/listing-ahead.ts).
  return async (input, options) => {
    ahead.enter();
    try {
      return await burst(input, options);
    } finally {
      ahead.leave(input.action.cwd);
    }
  };
}

/** The activity's outcome for a burst that ended so; its failure for a cancelled one or a first action's fault. */
function outcomeOf(
  end: BurstEnd<SpawnerFault> | BurstEnd,
  ran: Pick<BurstOutcome, 'facts' | 'states'>,
  cancelReason: unknown,
): BurstOutcome {
  switch (end.ended) {
    case 'done':
      return ran;
    case 'deadline':
      return { ...ran, deadline_at: end.at };
    case 'stopped':
      return { ...ran, stopped_at: end.at };
    case 'cancelled':
      throw cancelReason instanceof Error ? cancelReason : new CancelledFailure('activity cancelled');
    case 'fault':
      // Only a burst's first action's fault ends it so; a later one's is a fault of the loop itself.
      if (ran.facts.length > 0) return ran;
      throw failureOf(end.error);
  }
}

/** A first action's fault as the activity reports it: retrying cannot fix a setup fault. */
function failureOf(error: unknown): Error {
  if (error instanceof ShellSetupFault) return expectedFailure(error.message, error.type);
  if (error instanceof Error) return error;
  const fault = error as SpawnerFault;
  if (fault.setup) return expectedFailure(fault.message, 'ActionSetupError');
  return new Error(fault.message);
}

/**
 * This burst's journal: its actions that completed in an earlier attempt, and how a new one is
 * recorded (before the burst returns: every fact Temporal could lose is on file). Undefined when
 * the worker keeps none (direct calls).
 */
function burstJournal(
  dir: string | undefined,
  ctx: Context | undefined,
  input: RunBurstInput,
  journalId: string | undefined,
): { done: JournaledAction[]; record: (index: number, state: string, fact: BurstFact) => void } | undefined {
  const execution = ctx?.info.workflowExecution;
  if (dir === undefined || ctx === undefined || execution === undefined) return undefined;
  // A lane's item: by the item (its `<state>.<step>.<index>`) and its action's step and attempt.
  const activityId =
    journalId ??
    (input.lane_item === undefined
      ? ctx.info.activityId
      : `lane-${input.lane_item}-${input.first.step}-${input.snapshot.attempt}`);
  const burst = { workflowId: execution.workflowId, runId: execution.runId, activityId };
  const done = readBurstJournal(dir, burst, input.bounds.maxActions);
  if (done.length > 0)
    ctx.log.warn(
      `state ${input.first.state}: this burst's first ${done.length} action(s) completed before (attempt ${ctx.info.attempt}); their results are delivered again from the journal, not run again`,
      { workflowId: burst.workflowId, activityId: burst.activityId },
    );
  const record = (index: number, state: string, fact: BurstFact): void => {
    if (fact.result.redelivered === true) return;
    try {
      writeJournal(dir, burstActionKey(burst, index), state, fact.result);
    } catch (err) {
      // The result still goes to the run; only a lost completion of it could run it again.
      ctx.log.warn(
        `state ${state}: could not journal the action's result (${(err as Error).message}); should its burst's completion be lost, it runs again`,
      );
    }
  };
  return { done, record };
}

/** The workflow id of the run the burst is for (a sub-loop's own, not its parent's instance id). */
const runOf = (input: RunBurstInput): string =>
  currentContext()?.info.workflowExecution?.workflowId ?? input.action.instanceId;

/** The worker's clock, never before the workflow's when it asked. */
const now = (input: RunBurstInput): number => Math.max(Date.now(), input.now);
