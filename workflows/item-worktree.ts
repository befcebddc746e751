/**
 * `isolation: worktree` seen from the fan-out (activities/item-worktrees.ts does the git work):
 * the source checked once, each item's worktree prepared before its child starts and finished
 * (removed, or kept with its branch when it holds work) after the child ended, even when the
 * item was stopped.
 */
import { CancellationScope, proxyActivities } from '@temporalio/workflow';
import type { ParallelItemResult } from '../fsm/types.js';
import type { ItemWorktreeActivities, ItemWorktreeSource } from './activity-types.js';
import type { LoopWorkflowInput } from './definitions.js';

const GIT_OPTIONS = { startToCloseTimeout: '5m', retry: { maximumAttempts: 3 } };

/** The git work runs where the actions run: on the pinned or claimed host's queue when there is one. */
function git(parent: LoopWorkflowInput): ItemWorktreeActivities {
  const queue = parent.options.actionQueue;
  return proxyActivities<ItemWorktreeActivities>(queue ? { ...GIT_OPTIONS, taskQueue: queue } : GIT_OPTIONS);
}

export function worktreeSource(parent: LoopWorkflowInput): Promise<ItemWorktreeSource | { error: string }> {
  return git(parent).itemWorktreeSource({ cwd: parent.options.cwd });
}

/** The branch of item `index`: `ll-loop/<run>/<index>`. */
function itemBranch(parentId: string, index: number): string {
  return `ll-loop/${parentId}/${index}`;
}

/** Run one item in its own worktree; the result says where the worktree is and whether it was kept. */
export async function inItemWorktree(
  parent: LoopWorkflowInput,
  source: ItemWorktreeSource,
  parentId: string,
  item: { index: number; item: unknown; loop: string },
  run: (cwd: string) => Promise<ParallelItemResult>,
): Promise<ParallelItemResult> {
  const branch = itemBranch(parentId, item.index);
  let place: { dir: string; cwd: string };
  try {
    place = await git(parent).prepareItemWorktree({ source, branch, runId: `${parentId}.${item.index}` });
  } catch (err) {
    const why = err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
    return {
      index: item.index,
      item: item.item,
      loop: item.loop,
      outcome: 'error',
      error: `its worktree could not be made: ${why}`,
    };
  }
  const finish = () =>
    CancellationScope.nonCancellable(() => git(parent).finishItemWorktree({ source, dir: place.dir, branch }));
  let result: ParallelItemResult;
  try {
    result = await run(place.cwd);
  } catch (err) {
    await finish();
    throw err;
  }
  const kept = await finish();
  return { ...result, worktree: { path: place.dir, branch, kept: kept.kept } };
}
