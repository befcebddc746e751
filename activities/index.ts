import { makeDiffStat } from './diff-stat.js';
import { makeEvaluateLlm } from './evaluate-llm.js';
import { loadSubloop } from './load-subloop.js';
import { type ActivityDeps, makeRunAction } from './run-action.js';
import { makePlacementActivities } from './placement.js';
import { burstRunner } from './run-burst.js';
import type { ItemWorktreeActivities, LoopActivities, PlacementActivities } from '../workflows/activity-types.js';
import { itemWorktreeActivities } from './item-worktrees.js';
import { makeScopeLockActivities } from './scope-lock.js';
import { makeNotifyHuman } from './notify-human.js';
import { ListingAhead } from './listing-ahead.js';
import { actionLaunch, aheadLister, burstSpawner, checkoutLister, spawnerHold } from './action-spawner.js';

export type { ActivityDeps } from './run-action.js';
export type { LoopActivities } from '../workflows/activity-types.js';

/**
 * The worker's activities. A factory so tests (and embedders) can inject the worker environment;
 * the keys are the activity type names the workflow proxies.
 */
export function createActivities(
  deps: ActivityDeps = {},
): LoopActivities & PlacementActivities & ItemWorktreeActivities {
  // Every activity that runs processes in a checkout counts itself in, so that a listing made
  // ahead for a guarded action is taken only while nothing else ran (activities/listing-ahead.ts).
  const ahead = new ListingAhead(aheadLister());
  // Bursts run as local activities, and after an action in its own activity (activities/burst-after.ts).
  const burst = burstRunner(deps, { spawner: burstSpawner() }, ahead);
  return {
    runAction: makeRunAction(deps, actionLaunch(), checkoutLister(), spawnerHold(), ahead, burst),
    runBurst: (input) => burst(input),
    evaluateLlm: ahead.around(makeEvaluateLlm(deps)),
    diffStat: makeDiffStat(),
    loadSubloop,
    notifyHuman: ahead.around(makeNotifyHuman(process.env, deps)),
    ...makePlacementActivities(deps.place),
    ...makeScopeLockActivities(deps.client),
    prepareItemWorktree: ahead.around(itemWorktreeActivities.prepareItemWorktree),
    finishItemWorktree: ahead.around(itemWorktreeActivities.finishItemWorktree),
    itemWorktreeSource: itemWorktreeActivities.itemWorktreeSource,
  };
}
