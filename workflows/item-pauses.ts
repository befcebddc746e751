/**
 * An item of a fan-out that shares rate-limit pauses (workflows/fanout-pauses.ts), its side: when
 * its own call is paused for a rate limit (a `sleep` effect for `rate_limit`) it tells its parent
 * until when; when the parent says a sibling is paused, it makes no agent call — a prompt action,
 * an LLM evaluation — before that instant (a durable timer before the call; nothing else of the
 * run changes). Runs that are no such item (`input.child.pauses` unset) do nothing here.
 */
import { getExternalWorkflowHandle, setHandler, sleep, workflowInfo } from '@temporalio/workflow';
import type { Effect, Transition } from '../fsm/run/snapshot.js';
import type { LoopWorkflowInput } from './definitions.js';
import { fanoutPauseSignal, itemRateLimitedSignal } from './fanout-signals.js';

export interface ItemPauses {
  /** Tell the parent when the run has just paused for a rate limit. */
  report(at: Transition): void;
  /** Before an agent call: wait until a sibling's pause is over. */
  beforeEffect(effect: Effect): Promise<void>;
}

export function itemPauses(input: LoopWorkflowInput): ItemPauses | undefined {
  if (!input.child?.pauses) return undefined;
  const parent = getExternalWorkflowHandle(input.child.parent);
  const runId = workflowInfo().workflowId;
  let until = 0;
  let reported = 0;
  setHandler(fanoutPauseSignal, (pause) => {
    until = Math.max(until, pause.until_ms);
  });
  return {
    report: (at) => {
      const effect = at.effect;
      const paused = at.snapshot.status === 'running' ? at.snapshot.rateLimit : undefined;
      if (effect.type !== 'sleep' || effect.reason !== 'rate_limit' || paused === undefined) return;
      if (effect.until_ms <= reported) return;
      reported = effect.until_ms;
      const pause = { run_id: runId, until_ms: effect.until_ms, kind: paused.kind, message: paused.message };
      parent.signal(itemRateLimitedSignal, pause).catch(() => undefined);
    },
    beforeEffect: async (effect) => {
      if (!isAgentCall(effect) || until <= Date.now()) return;
      await sleep(until - Date.now());
    },
  };
}

function isAgentCall(effect: Effect): boolean {
  return effect.type === 'evaluate_llm' || (effect.type === 'run_action' && effect.input.kind === 'prompt');
}
