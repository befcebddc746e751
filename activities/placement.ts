/**
 * The activities of portable runs (workflows/placement.ts): a worker claims a run's checkout by
 * preparing it on its own host (activities/git-checkout.ts) and answering with its host queue;
 * at the end the checkout is released (removed unless it holds work). Only workers that know
 * where they are (a pool worker, or a checkout worker for `--worktree`) can take portable runs.
 */
import { join } from 'node:path';
import { expectedFailure } from './expected-failure.js';
import type { ClaimedCheckout, PlacementActivities } from '../workflows/activity-types.js';
import { finishCheckout, prepareCheckout } from './git-checkout.js';
import { GitCheckoutError } from './git.js';

/** Where this worker is: its host, the queue only it polls, and where it keeps run checkouts. */
export interface WorkerPlace {
  host: string;
  queue: string;
  dataDir: string;
}

/** A git failure that retrying cannot fix goes back to the workflow as such (non-retryable). */
function asFailure(err: unknown): unknown {
  if (err instanceof GitCheckoutError) return expectedFailure(err.message, 'GitCheckoutError');
  return err;
}

export function makePlacementActivities(place: WorkerPlace | undefined): PlacementActivities {
  const here = (): WorkerPlace => {
    if (place) return place;
    throw expectedFailure('this worker does not take portable runs: it serves one checkout', 'NoPlacement');
  };
  return {
    async claimCheckout(input): Promise<ClaimedCheckout> {
      const me = here();
      try {
        const dir = await prepareCheckout({ ...input, baseDir: me.dataDir });
        return { host: me.host, queue: me.queue, dir, cwd: input.path ? join(dir, input.path) : dir };
      } catch (err) {
        throw asFailure(err);
      }
    },
    async releaseCheckout(input) {
      try {
        const outcome = await finishCheckout({
          dir: input.dir,
          repository: input.repository,
          branch: input.branch,
          commit: input.commit,
          worktree: input.worktree,
        });
        return outcome.kept ? { kept: true, why: outcome.why } : { kept: false };
      } catch (err) {
        throw asFailure(err);
      }
    },
  };
}
