/**
 * Carrying out one effect the core asked for — an action, an LLM evaluation, a `git diff --stat`,
 * a durable sleep, a wait on a handoff, a sub-loop — under the loop's deadline, and turning what
 * happened into the fact the core is fed next. Infrastructure faults become `*_failed` facts; a
 * cancellation (`ll-loop stop`) propagates; the deadline becomes a `timeout` fact once the effect's
 * work (and its process group) is gone.
 */
import { CancellationScope, isCancellation, sleep } from '@temporalio/workflow';
import { loopEnvNames } from '../fsm/definition/env-names.js';
import { llmReplyFact } from '../fsm/run/facts.js';
import type { RunEvent, RunningSnapshot, Snapshot, WorkEffect } from '../fsm/run/snapshot.js';
import type { LoopDefinition } from '../fsm/schema.js';
import type { ActionResult } from '../fsm/types.js';
import type { ActionCall } from './activity-types.js';
import { ActionCalls } from './action-calls.js';
import { actionActivity, diffStatActivity, isLocal, llmActivity, sleepSummary } from './activity-proxies.js';
import type { FanoutProgress, LoopWorkflowInput } from './definitions.js';
import { failureOf } from './error-text.js';
import type { Placement } from './placement.js';
import { runChild } from './run-child.js';
import { inSpan, usageAttributes } from './run-trace.js';
import { carriedResults } from './fanout-carry.js';
import { runFanout, type FanoutHooks } from './run-fanout.js';
import { burstAllowed, mayBurst, mayBurstAfter, type BurstAfter } from '../fsm/run/burst.js';
import { LEARNED_BRIEF_MS, QuickRecord } from './quick-record.js';
import { LOCAL_FLUSH_AFTER_ACTIONS, LOCAL_FLUSH_AFTER_MS, burstAfterS, runBurst, type BurstDone } from './burst.js';

/** A definition whose JSON is longer runs what follows an action as bursts of their own (`burstsAfterActions`). */
const MAX_BURST_AFTER_DEFINITION_CHARS = 64 * 1024;
/**
 * Under `briefAfterActions`, no action starts in an action's activity after this much of the
 * actions after it (ms): how far the run's history and status may lag behind what runs.
 */
const BRIEF_AFTER_MAX_MS = 10_000;

/** What the loop's deadline resolves with when it passes. */
export const TIMED_OUT = Symbol('timed-out');

export interface EffectContext {
  input: LoopWorkflowInput;
  instanceId: string;
  placement: Placement;
  /** Resolves with TIMED_OUT when the loop's `timeout` passes (never, without one). */
  timedOut: Promise<typeof TIMED_OUT>;
  /** When the loop's `timeout` passes (epoch ms), if it has one: a burst enforces it itself. */
  deadline?: number;
  /** The definition the run follows (a sub-loop's, with what its parent bound). */
  def: LoopDefinition;
  /** The run's snapshot as it is now (a sleep's summary names its state). */
  snapshot: () => Snapshot;
  /** Resolves once the run waiting on a handoff is continued. */
  handoff: () => Promise<void>;
  /** Resolves once a paused run is unpaused or steered (fsm/run/control.ts). */
  released: () => Promise<void>;
  /** Waits for a person's answer to a human state, or its deadline (workflows/human-desk.ts). */
  human: (work: Extract<WorkEffect, { type: 'await_human' }>) => Promise<RunEvent>;
  /** A parallel state's items: what ended before a continue-as-new, and how the fan-out reports (workflows/run-fanout.ts). */
  fanout: { resumed: () => FanoutProgress | undefined } & FanoutHooks;
  /** Whether a burst watches for the run's stop (the `stopInBursts` rule, workflows/burst.ts BurstStops). */
  watchStop: () => boolean;
  /** Told when a burst begins (`true`) and when its facts are the run's to feed (`false`). */
  bursting: (on: boolean) => void;
}

/**
 * What the run's rules add to its activities' inputs (rules every served release sets:
 * workflows/run-rules.ts): the variables to mask, the schema check, rate-limit and stdout-signal
 * detection. A retried or journaled activity carries them as it was scheduled.
 */
function ruleInputs(def: LoopDefinition) {
  // Mask every variable the loop names in what the worker returns.
  const maskEnv = { mask_env: loopEnvNames(def) };
  const checkAnswers = { check_schema: true as const };
  // Pause on rate limits (fsm/run/rate-limit.ts).
  const detectLimits = { detect_rate_limits: true as const };
  // Act on stdout signals (fsm/run/on-signal.ts).
  const threshold = def.config?.handoff_threshold;
  const detectSignals = {
    detect_signals: true as const,
    ...(threshold === undefined ? {} : { handoff_threshold: threshold }),
  };
  return { maskEnv, checkAnswers, detectLimits, detectSignals };
}

/** A function that performs one effect and returns the fact to feed back to the core. */
export function effectRunner(ctx: EffectContext): (work: WorkEffect) => Promise<RunEvent | BurstDone> {
  const { input, instanceId, placement } = ctx;
  const localMaxS = input.options.localActivityMaxTimeoutS ?? 0;
  const heartbeatS = input.options.heartbeatTimeoutS;
  const { maskEnv, checkAnswers, detectLimits, detectSignals } = ruleInputs(ctx.def);
  const unflushed = { actions: 0, ms: 0 };
  const calls = new ActionCalls(placement);
  // Local activities run on the worker that has the run's task: none where actions run elsewhere.
  const seen = new QuickRecord(input.options.learnedQuick === true && localMaxS > 0 && !placement.remote);
  // States the run saw quick go on in a burst one after another (the `learnedChains` rule).
  const chains = input.options.learnedChains === true;
  // An action's activity runs the quick actions after it (the `burstsAfterActions` rule).
  // Not for a definition so large that carrying it in every such action's input would swell the
  // history (its JSON, measured once: the definition does not change within a run).
  const burstsAfter =
    input.options.burstsAfterActions === true && JSON.stringify(ctx.def).length <= MAX_BURST_AFTER_DEFINITION_CHARS;
  // ... and those the run saw brief too (the `briefAfterActions` rule).
  const briefAfter = input.options.briefAfterActions === true;
  // A terminal's quick action is a burst's last, not a burst of its own (the `terminalsInBursts` rule).
  const terminals = input.options.terminalsInBursts === true ? { terminals: true } : {};

  /** Record pending local-activity results in history (see LOCAL_FLUSH_AFTER_MS). */
  const flushLocal = async (result: ActionResult, local: boolean): Promise<void> => {
    if (!local) {
      unflushed.actions = 0;
      unflushed.ms = 0;
      return;
    }
    unflushed.actions += 1;
    unflushed.ms += result.duration_ms;
    if (unflushed.actions >= LOCAL_FLUSH_AFTER_ACTIONS || unflushed.ms >= LOCAL_FLUSH_AFTER_MS) {
      unflushed.actions = 0;
      unflushed.ms = 0;
      await sleep(1);
    }
  };

  /** Quick actions back to back in one local activity (workflows/burst.ts), within the flush's bounds. */
  const burst = async (work: Extract<WorkEffect, { type: 'run_action' }>): Promise<BurstDone> => {
    const snapshot = ctx.snapshot();
    if (snapshot.status !== 'running') throw new Error('internal: a burst of a finished run');
    ctx.bursting(true);
    try {
      return await burstOf(work, snapshot);
    } finally {
      ctx.bursting(false);
    }
  };

  const burstOf = async (
    work: Extract<WorkEffect, { type: 'run_action' }>,
    snapshot: RunningSnapshot,
  ): Promise<BurstDone> => {
    const done = await runBurst({
      definition: ctx.def,
      snapshot,
      first: work.input,
      action: { instanceId, cwd: placement.current.cwd, ...maskEnv, ...detectSignals },
      bounds: {
        maxActions: Math.max(1, LOCAL_FLUSH_AFTER_ACTIONS - unflushed.actions),
        maxMs: Math.max(1, LOCAL_FLUSH_AFTER_MS - unflushed.ms),
        localMaxS,
        ...(chains ? { learned: seen.learned() } : {}),
        ...terminals,
      },
      ...(ctx.deadline === undefined ? {} : { deadline_ms: ctx.deadline }),
      now: Date.now(),
      ...(ctx.watchStop() ? { watch_stop: true as const } : {}),
    });
    const first = done.outcome.facts[0];
    if (first) seen.saw(work.input, first.result.duration_ms);
    if (chains)
      done.outcome.facts.forEach((fact, i) => {
        const state = done.outcome.states?.[i];
        if (i > 0 && state !== undefined) seen.sawInBurst(state, fact.result.duration_ms);
      });
    // The facts are the run's now: a deadline or stop during the flush's timer must not lose them.
    await CancellationScope.nonCancellable(async () => {
      for (const fact of done.outcome.facts) await flushLocal(fact.result, true);
    });
    return done;
  };

  /**
   * What an action's activity needs to run the quick actions after it (the `burstsAfterActions`
   * rule, activities/burst-after.ts): only where a burst could run (the run's own worker, a quick
   * lane), with no person's pause or steer on the run, and when the state routes to one whose
   * action may run in a burst (the definition goes into the activity's input, and so its history).
   */
  const burstAfterOf = (
    work: Extract<WorkEffect, { type: 'run_action' }>,
    snapshot: Snapshot,
  ): BurstAfter | undefined => {
    if (!burstsAfter || placement.remote || localMaxS <= 0 || snapshot.status !== 'running') return undefined;
    if (snapshot.pause !== undefined || snapshot.steer !== undefined) return undefined;
    const bounds = {
      maxActions: LOCAL_FLUSH_AFTER_ACTIONS,
      maxMs: briefAfter ? BRIEF_AFTER_MAX_MS : LOCAL_FLUSH_AFTER_MS,
      localMaxS,
      learned: briefAfter ? seen.learned(LEARNED_BRIEF_MS) : seen.learned(),
      ...terminals,
    };
    if (!mayBurstAfter(ctx.def, work.input.state, bounds)) return undefined;
    return {
      definition: ctx.def,
      snapshot,
      bounds,
      ...(ctx.deadline === undefined ? {} : { deadline_ms: ctx.deadline }),
    };
  };

  const runAction = async (work: Extract<WorkEffect, { type: 'run_action' }>): Promise<RunEvent | BurstDone> => {
    try {
      const local = !placement.remote && isLocal(work.input, localMaxS);
      const snapshot = ctx.snapshot();
      if (local && snapshot.status === 'running' && mayBurst(ctx.def, snapshot, work.input, localMaxS))
        return await burst(work);
      // An action the run saw quick runs in a burst where one may run; else as an activity, as its timeout says.
      if (seen.quick(work.input) && snapshot.status === 'running' && burstAllowed(ctx.def, snapshot, work.input))
        return await burst(work);
      // Every schedule of this call carries its name (workflows/action-calls.ts).
      const call = calls.next();
      const after = local ? undefined : burstAfterOf(work, snapshot);
      const { burst_after: ran, ...result } = await placement.run((place) => {
        const full: ActionCall = {
          ...work.input,
          instanceId,
          cwd: place.cwd,
          ...maskEnv,
          ...(work.input.kind === 'prompt' ? detectLimits : {}),
          ...(work.input.kind === 'mcp' ? {} : detectSignals),
          ...call(),
          ...(after === undefined ? {} : { burst_after: after }),
        };
        return actionActivity(full, local, placement.activityOptions(), heartbeatS, after && burstAfterS(after))(full);
      });
      seen.saw(work.input, result.duration_ms);
      await flushLocal(result, local);
      if (ran === undefined) return { type: 'action_done', result, now: Date.now() };
      // The quick actions its activity ran after it: the action's fact first, as the activity fed it to the core.
      ran.facts.forEach((fact, i) => {
        const state = ran.states?.[i];
        if (state !== undefined) seen.sawInBurst(state, fact.result.duration_ms);
      });
      const { now, ...rest } = ran;
      return {
        type: 'burst',
        outcome: {
          ...rest,
          facts: [{ type: 'action_done', result, now }, ...ran.facts],
          states: [work.input.state, ...(ran.states ?? [])],
        },
      };
    } catch (err) {
      if (isCancellation(err)) throw err;
      return { type: 'action_failed', failure: failureOf(err), now: Date.now() };
    }
  };

  const evaluateLlm = async (work: Extract<WorkEffect, { type: 'evaluate_llm' }>): Promise<RunEvent> => {
    const model = work.input.llm?.model ?? work.input.model;
    const attributes = { 'gen_ai.operation.name': 'chat', 'll_loop.state': work.input.state };
    try {
      // Its span (workflows/run-trace.ts) carries the model and what the call used.
      const reply = await inSpan(`evaluate ${work.input.state}`, attributes, async (span) => {
        const r = await placement.run((place) =>
          llmActivity(
            work.input.timeout_s,
            work.input.state,
            placement.activityOptions(),
            heartbeatS,
          )({ ...work.input, instanceId, cwd: place.cwd, ...maskEnv, ...checkAnswers, ...detectLimits }),
        );
        span.setAttributes(usageAttributes(r.usage, model));
        return r;
      });
      return llmReplyFact(reply, Date.now());
    } catch (err) {
      if (isCancellation(err)) throw err;
      return { type: 'llm_failed', failure: failureOf(err), now: Date.now() };
    }
  };

  const diffStat = async (work: Extract<WorkEffect, { type: 'diff_stat' }>): Promise<RunEvent> => {
    try {
      const reply = await placement.run((place) =>
        diffStatActivity(work.input.state, placement.activityOptions())({ ...work.input, cwd: place.cwd }),
      );
      const now = Date.now();
      return 'stat' in reply
        ? { type: 'diff_stat_done', stat: reply.stat, now }
        : { type: 'diff_stat_error', error: reply.error, now };
    } catch (err) {
      if (isCancellation(err)) throw err;
      return { type: 'diff_stat_failed', failure: failureOf(err), now: Date.now() };
    }
  };

  const effect = async (work: WorkEffect): Promise<RunEvent | BurstDone> => {
    switch (work.type) {
      case 'run_action':
        return runAction(work);
      case 'evaluate_llm':
        return evaluateLlm(work);
      case 'diff_stat':
        return diffStat(work);
      case 'sleep':
        // A rate limit's pause ends at an instant (continued as new mid-pause, it waits only the rest).
        await sleep('until_ms' in work ? Math.max(1, work.until_ms - Date.now()) : work.ms, {
          summary: sleepSummary(work, ctx.snapshot()),
        });
        return { type: 'sleep_done', now: Date.now() };
      case 'await_handoff':
        // No timer of its own: the loop's timeout and `ll-loop stop` still end the wait.
        await ctx.handoff();
        return { type: 'handoff_resumed', now: Date.now() };
      case 'await_release':
        // No timer of its own either: the loop's timeout keeps counting while a run is paused.
        await ctx.released();
        return { type: 'released', now: Date.now() };
      case 'await_human':
        return ctx.human(work);
      case 'run_loop':
        // A sub-loop runs where its parent's actions run (a portable parent's claimed checkout).
        await placement.ensureClaimed();
        return runChild({ ...input, options: { ...placement.carried(), portable: undefined } }, work.input, instanceId);
      case 'run_parallel': {
        await placement.ensureClaimed();
        const resumed = ctx.fanout.resumed();
        const done =
          resumed !== undefined && resumed.state === work.input.state && resumed.step === work.input.step
            ? carriedResults(resumed)
            : [];
        const parent = { ...input, options: { ...placement.carried(), portable: undefined } };
        return runFanout(parent, work.input, instanceId, done, ctx.fanout);
      }
    }
  };

  /** Run one effect under the loop deadline; the result is the fact to feed back to the core. */
  return async (work) => {
    const scope = new CancellationScope();
    const running = scope.run(() => effect(work));
    const winner = await Promise.race([running, ctx.timedOut]);
    if (winner !== TIMED_OUT) return winner;
    scope.cancel();
    // WAIT_CANCELLATION_COMPLETED: the process group is gone. A burst that ended by itself at the
    // deadline still brings the facts of the actions it completed.
    const ended = await running.catch(() => undefined);
    if (ended?.type === 'burst')
      return { type: 'burst', outcome: { ...ended.outcome, deadline_at: ended.outcome.deadline_at ?? Date.now() } };
    return { type: 'timeout', now: Date.now() };
  };
}
