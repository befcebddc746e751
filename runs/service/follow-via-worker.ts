/**
 * The runs service's `follow` through the checkout's worker (via-worker.ts): the worker follows
 * the run on the client it holds and streams its events over its socket
 * (runs/follow/follow-through-worker.ts), so the caller loads no Temporal SDK. When no worker of
 * this build serves the checkout, or it refuses, `direct` follows; when its stream breaks (the
 * worker died), the checkout's worker is brought back — the run needs one to go on — and `direct`
 * follows on, without the events already delivered. A run the worker started is followed through
 * that worker even when the checkout's record no longer shows it (it is exiting, or died just
 * now): the stream then breaks at once and the same fallback brings the worker back; following
 * such a run on the caller's connection alone would wait for a worker that nobody starts.
 */
import { checkoutWorkerTarget, startingWorkerTarget } from '../worker-ask.js';
import type { FollowedRun } from '../follow/follow-events.js';
import { eventKey, followThroughWorker } from '../follow/follow-through-worker.js';
import type { RunFollow } from '../follow/run-follow.js';
import { onAbort } from '../follow/interrupt.js';
import type { RunsService } from './interface.js';

/** Brings the checkout's worker (back) up after its stream broke. */
export type WorkerBack = (cwd: string, address: string) => Promise<void>;

/** As every command brings it (runs/workers/checkout-worker.ts); a failure is the run's to show. */
async function bringWorkerBack(cwd: string, address: string): Promise<void> {
  const { ensureCheckoutWorker } = await import('../workers/checkout-worker.js');
  await ensureCheckoutWorker(cwd, address).catch(() => undefined);
}

/** Follow the run through the checkout's worker; `direct` follows when it cannot, or on from where its stream broke. */
export async function followViaWorker(
  env: NodeJS.ProcessEnv,
  direct: RunsService,
  req: RunFollow,
  workerBack: WorkerBack = bringWorkerBack,
): Promise<FollowedRun> {
  const target =
    checkoutWorkerTarget(req.cwd, env) ?? (req.startedBy ? startingWorkerTarget(req.startedBy) : undefined);
  if (target === undefined) return direct.follow(req);
  const following = followThroughWorker(
    target.path,
    {
      kind: 'follow',
      code_id: target.code_id,
      root: target.root,
      workflow_id: req.workflowId,
      ...(req.firstRunId === undefined ? {} : { first_run_id: req.firstRunId }),
      ...(req.eventsFile === undefined ? {} : { events_file: req.eventsFile }),
      action_output: req.actionOutput,
      ...(req.fileWaitMs === undefined ? {} : { file_wait_ms: req.fileWaitMs }),
      ...(req.onInput ? { want_input: true } : {}),
      ...(req.lock?.wait ? { lock: req.lock } : {}),
    },
    {
      onEvent: req.onEvent,
      ...(req.onInput ? { onInput: req.onInput } : {}),
      ...(req.onNote ? { onNote: req.onNote } : {}),
      ...(req.onDisconnect ? { onDisconnect: req.onDisconnect } : {}),
      ...(req.onReconnect ? { onReconnect: req.onReconnect } : {}),
    },
  );
  onAbort(req.cancelRun, () => following.cancel());
  onAbort(req.signal, () => following.stop());
  const outcome = await following.done;
  if (outcome.kind === 'followed') return outcome.followed;
  await workerBack(req.cwd, target.address);
  // The worker whose stream broke may still look alive for a moment (its socket closes before it
  // is gone), and then no worker was brought back: keep the checkout's worker up while following
  // on, as `status --follow` does (runs/follow/keep-worker.ts).
  const { keepCheckoutWorker } = await import('../follow/keep-worker.js');
  const stopKeeping = keepCheckoutWorker(req.cwd, () => undefined);
  const { shown } = outcome;
  try {
    return await direct.follow({
      ...req,
      onEvent: (event) => {
        if (!shown.has(eventKey(event))) req.onEvent(event);
      },
    });
  } finally {
    stopKeeping();
  }
}
