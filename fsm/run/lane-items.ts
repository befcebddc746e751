/**
 * Which fan-out items run in a lane (the `laneItems` rule, workflows/fanout-lanes.ts): an item
 * whose loop is quick shell actions and pure decisions runs inside its parent's workflow, its
 * actions as bursts, instead of as a child run. Decided from the definition alone, before any
 * item starts, so every item of the fan-out takes the same path. Pure.
 *
 * A loop runs in a lane only when nothing in it needs a run of its own: no sub-loop or fan-out,
 * no person, no judge (an LLM or file judge, `diff_stall`), no budget, tamper guard or prepatch
 * check, no scopes to hold, no loop timeout, no durable sleep (backoff, a retry's delay, maintain
 * mode), and every action a shell action quick enough to run as a local activity (timeout at most
 * the run's `localActivityMaxTimeoutS`). The state's own
 * `timeout:`, `isolation: worktree` and a budget keep children too.
 */
import { actionKind, actionTimeout } from '../action.js';
import { effectiveEvaluator, llmJudged } from '../evaluate-state.js';
import { isHumanState } from '../human.js';
import { prepatchPolicy } from '../prepatch-check.js';
import type { LoopDefinition } from '../schema.js';
import { tamperPolicy } from '../tamper-guard.js';
import type { ParallelRequest } from '../types.js';

/** Why the items of `request` (all of loop `def`) each need a child run; undefined when they run in lanes. */
export function laneRefusal(
  def: LoopDefinition,
  request: Pick<ParallelRequest, 'isolation' | 'timeout_s' | 'budget'>,
  localMaxS: number,
): string | undefined {
  if (request.isolation !== 'none') return 'isolation: worktree';
  if (request.timeout_s !== undefined) return "the state's timeout";
  if (request.budget !== undefined) return 'a budget';
  if (def.timeout !== undefined) return "the loop's timeout";
  if (def.budget !== undefined) return "the loop's budget";
  if (def.scope !== undefined && def.scope.length > 0) return "the loop's scopes";
  // A durable sleep between an item's actions is a timer, which a lane does not interleave with bursts.
  if (def.backoff !== undefined && def.backoff > 0) return "the loop's backoff";
  if (def.maintain) return 'maintain mode';
  if (llmJudged(def).length > 0) return 'a judged state';
  for (const [name, state] of Object.entries(def.states)) {
    if (state.loop !== undefined) return `state "${name}" is a sub-loop`;
    if (state.parallel !== undefined) return `state "${name}" is a fan-out`;
    if (isHumanState(state)) return `state "${name}" asks a person`;
    if (state.budget !== undefined) return `state "${name}" has a budget`;
    if (state.retry !== undefined && state.retry.attempts > 1 && state.retry.backoff > 0)
      return `state "${name}" retries after a delay`;
    if (effectiveEvaluator(def, state).type === 'diff_stall') return `state "${name}" reads git diff`;
    if (state.action === undefined) continue;
    if (actionKind(state) !== 'shell') return `state "${name}" is not a shell action`;
    if (actionTimeout(def, state) > localMaxS) return `state "${name}" is not quick`;
    if (tamperPolicy(def, state) !== undefined || prepatchPolicy(def, state) !== undefined)
      return `state "${name}" is guarded`;
  }
  return undefined;
}
