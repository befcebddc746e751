/**
 * `isolation: worktree` of a parallel state: each item's child runs in a git worktree of its own
 * (activities/git-checkout.ts, as `run --worktree` does), on branch `ll-loop/<run>/<index>`, under
 * `.loops/.worktrees/` of the repository (a runtime directory ll-loop makes git-ignored, so a kept
 * worktree never shows in `git status` nor is staged by `git add .loops`). At the
 * item's end the worktree is removed unless the child committed or changed something; then it is
 * kept with its branch and listed in the join. Refused (the state's `error` verdict) outside a git
 * repository, in one without a commit, or in one with uncommitted changes the items would not see.
 */
import { join } from 'node:path';
import { ensureRuntimeDir } from '../loader/runtime-dir.js';
import { finishCheckout, portableSource, prepareCheckout } from './git-checkout.js';
import { GitCheckoutError } from './git.js';
import { expectedFailure } from './expected-failure.js';
import type { ItemWorktreeActivities, ItemWorktreeSource } from '../workflows/activity-types.js';

export const itemWorktreeActivities: ItemWorktreeActivities = {
  async itemWorktreeSource(input): Promise<ItemWorktreeSource | { error: string }> {
    try {
      const source = await portableSource(input.cwd, { worktree: true });
      return { ...source, baseDir: join(source.repository, '.loops', '.worktrees') };
    } catch (err) {
      if (err instanceof GitCheckoutError)
        return { error: `isolation: worktree: ${err.message}${err.fix ? ` (fix: ${err.fix})` : ''}` };
      throw err;
    }
  },
  async prepareItemWorktree(input) {
    try {
      ensureRuntimeDir(input.source.baseDir);
      const dir = await prepareCheckout({ ...input.source, branch: input.branch, worktree: true, runId: input.runId });
      return { dir, cwd: input.source.path ? join(dir, input.source.path) : dir };
    } catch (err) {
      if (err instanceof GitCheckoutError) throw expectedFailure(err.message, 'GitCheckoutError');
      throw err;
    }
  },
  async finishItemWorktree(input) {
    try {
      const outcome = await finishCheckout({ ...input.source, dir: input.dir, branch: input.branch, worktree: true });
      return outcome.kept ? { kept: true, why: outcome.why } : { kept: false };
    } catch (err) {
      if (err instanceof GitCheckoutError) throw expectedFailure(err.message, 'GitCheckoutError');
      throw err;
    }
  },
};
