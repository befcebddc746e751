/**
 * Where a new run goes, from `run`'s flags (see workflows/placement.ts for what the workflow does
 * with it):
 * - the checkout's worker (default): the workflow and its actions on the checkout's queue;
 * - `--task-queue Q`: a shared queue of `ll-loop worker --task-queue Q` workers (as before pools);
 * - `--pool NAME` (pinned): workflow tasks to any worker of the pool, actions only to this
 *   checkout's worker;
 * - `--pool NAME --checkout git` (portable): the first pool worker to take it prepares its own
 *   clone of the repository at HEAD and keeps the actions on its host;
 * - `--worktree`: portable on this machine, in a git worktree on branch `ll-loop/<run id>`.
 */
import { checkoutAt, poolQueue, type Checkout, type WorkerRecord } from '../../host/checkout.js';
import type { RunPlacement, RunTuning } from '../../workflows/run-options.js';
import { CliError } from '../../errors/errors.js';
import type { RunPlace } from './run-place.js';

export { checkPoolName, type RunPlace } from './run-place.js';
import { EXIT } from '../../errors/exit-codes.js';
import { checkoutRootOf, checkoutWorkerForStart } from '../workers/checkout-worker.js';

/** How a run is placed: its queue, who must serve it, and its workflow options. */
export interface Placed {
  place: RunPlace;
  queue: string;
  checkout: Checkout;
  /** The checkout's worker, when this machine's must serve the run (waited for by `run`). */
  worker: Promise<WorkerRecord | undefined>;
  /**
   * The placement (and the tuning it implies: a pinned run's actions are never local activities)
   * of the run that gets `workflowId` (a portable run's branch is named after it); never a rule.
   */
  optionsFor(workflowId: string): Partial<RunPlacement & RunTuning>;
  memo: Record<string, unknown>;
  /** The scope-lock domain: the checkout, or the repository of a portable run. */
  lockDomain: string;
}

/** `LL_HOST_NOTICE_S`: how long a pool run's action waits for its host before saying it is gone. */
function hostNotice(env: NodeJS.ProcessEnv = process.env): Pick<RunPlacement, 'hostNoticeS'> {
  const n = Number(env.LL_HOST_NOTICE_S);
  return env.LL_HOST_NOTICE_S !== undefined && Number.isFinite(n) && n >= 1 ? { hostNoticeS: n } : {};
}

/** Decide where the run goes; starts the checkout's worker when this machine must serve it. */
export async function placeRun(place: RunPlace, cwd: string, address: string): Promise<Placed> {
  const checkout = checkoutAt(checkoutRootOf(cwd));
  // An object, not the promise itself: awaiting it must not wait for the worker to be ready.
  const serveHere = (): Promise<{ ready: Promise<WorkerRecord | undefined> }> => checkoutWorkerForStart(cwd, address);
  const none = Promise.resolve(undefined);
  switch (place.kind) {
    case 'checkout':
      return {
        place,
        queue: checkout.queue,
        checkout,
        worker: (await serveHere()).ready,
        optionsFor: () => ({}),
        memo: {},
        lockDomain: checkout.lockDomain,
      };
    case 'queue':
      return {
        place,
        queue: place.queue,
        checkout,
        worker: none,
        optionsFor: () => ({}),
        memo: {},
        lockDomain: checkout.lockDomain,
      };
    case 'pinned':
      // Local activities would run on whichever pool worker runs the workflow task: none.
      return {
        place,
        queue: poolQueue(place.pool),
        checkout,
        worker: (await serveHere()).ready,
        optionsFor: () => ({ actionQueue: checkout.queue, localActivityMaxTimeoutS: 0, ...hostNotice() }),
        memo: { action_queue: checkout.queue, pool: place.pool },
        lockDomain: checkout.lockDomain,
      };
    case 'portable':
    case 'worktree': {
      const worktree = place.kind === 'worktree';
      // Loaded only for portable runs: git and its helpers are not on an ordinary run's path.
      const { GitCheckoutError, portableSource } = await import('../../worker/portable.js');
      const source = await portableSource(checkout.root, { worktree }).catch((err: unknown) => {
        throw err instanceof GitCheckoutError ? new CliError(`${err.message}`, err.fix, EXIT.usage) : err;
      });
      const claimQueue = worktree ? checkout.queue : poolQueue(place.pool);
      return {
        place,
        queue: claimQueue,
        checkout,
        worker: worktree ? (await serveHere()).ready : none,
        optionsFor: (workflowId) => ({
          localActivityMaxTimeoutS: 0,
          ...hostNotice(),
          portable: {
            claimQueue,
            repository: source.repository,
            commit: source.commit,
            branch: `ll-loop/${workflowId}`,
            worktree,
            path: source.path,
          },
        }),
        memo: worktree ? { checkout_mode: 'worktree' } : { pool: place.pool, checkout_mode: 'git' },
        lockDomain: `repo:${source.repository}`,
      };
    }
  }
}
