import { makeDiffStat } from './diff-stat.js';
import { makeEvaluateLlm } from './evaluate-llm.js';
import { loadSubloop } from './load-subloop.js';
import { type ActivityDeps, makeRunAction } from './run-action.js';
import { makePlacementActivities } from './placement.js';
import { makeRunBurst } from './run-burst.js';
import type { ItemWorktreeActivities, LoopActivities, PlacementActivities } from '../workflows/activity-types.js';
import { itemWorktreeActivities } from './item-worktrees.js';
import { makeScopeLockActivities } from './scope-lock.js';
import { makeNotifyHuman } from './notify-human.js';

export type { ActivityDeps } from './run-action.js';
export type { LoopActivities } from '../workflows/activity-types.js';

/**
 * The worker's activities. A factory so tests (and embedders) can inject the worker environment;
 * the keys are the activity type names the workflow proxies.
 */
export function createActivities(
  deps: ActivityDeps = {},
): LoopActivities & PlacementActivities & ItemWorktreeActivities {
  return {
    runAction: makeRunAction(deps),
    runBurst: makeRunBurst(deps),
    evaluateLlm: makeEvaluateLlm(deps),
    diffStat: makeDiffStat(),
    loadSubloop,
    notifyHuman: makeNotifyHuman(process.env, deps),
    ...makePlacementActivities(deps.place),
    ...makeScopeLockActivities(deps.client),
    ...itemWorktreeActivities,
  };
}
