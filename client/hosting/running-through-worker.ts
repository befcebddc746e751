/**
 * `ll-loop list --running`'s fast path: the checkout's worker makes the listing (serve-running.ts)
 * and the command only prints it, loading no Temporal SDK and opening no connection. Undefined
 * means "list them yourself" (client/worker-ask.ts says when); listing changes nothing, so listing
 * again the ordinary way is always safe, and every error the command reports is its own.
 */
import { askCheckoutWorker } from '../worker-ask.js';
import type { RunningListing } from './running-listings.js';
import type { WorkerRunningReply, WorkerRunningRequest } from './running-wire.js';

/**
 * How long the worker may take before the command lists the runs itself: each run's status query
 * waits at most 2 s for its worker, all of them at once.
 */
const RUNNING_ANSWER_MS = 15_000;

export async function runningThroughWorker(
  cwd: string,
  allProjects: boolean,
  env: NodeJS.ProcessEnv = process.env,
): Promise<RunningListing[] | undefined> {
  const reply = await askCheckoutWorker<WorkerRunningRequest, WorkerRunningReply>(
    cwd,
    env,
    { kind: 'running', cwd, all_projects: allProjects },
    RUNNING_ANSWER_MS,
  );
  return reply?.kind === 'running' && Array.isArray(reply.runs) ? reply.runs : undefined;
}
