import { makeEvaluateLlm } from './evaluate-llm.js';
import { loadSubloop } from './load-subloop.js';
import { type ActivityDeps, makeRunAction } from './run-action.js';
import { makeScopeLockActivities } from './scope-lock.js';
import type { LoopActivities } from '../workflows/activity-types.js';

export type { ActivityDeps } from './run-action.js';
export type { LoopActivities } from '../workflows/activity-types.js';

/**
 * The worker's activities. A factory so tests (and embedders) can inject the worker environment;
 * the keys are the activity type names the workflow proxies.
 */
export function createActivities(deps: ActivityDeps = {}): LoopActivities {
  return {
    runAction: makeRunAction(deps),
    evaluateLlm: makeEvaluateLlm(deps),
    loadSubloop,
    ...makeScopeLockActivities(deps.client),
  };
}
