/**
 * The runs service a command uses ({@link runsService}), the one place an implementation of the
 * interface (interface.ts) is chosen: `direct`, on the Temporal SDK with a session of the
 * caller's own (direct.ts, loaded when first used), or through the checkout's worker, which
 * already holds one (via-worker.ts: the command then loads no Temporal SDK). Light on purpose: a
 * command loads this before it knows whether it needs the SDK.
 */
import type { Session } from '../../temporal/session.js';
import { choosesWorker } from '../worker-ask.js';
import type { RunsService } from './interface.js';
import { viaWorker } from './via-worker.js';

/**
 * The runs service a command uses, chosen here: `direct` on an external server or with
 * `LL_START_SOCKET=0` (runs/worker-ask.ts choosesWorker), else through the checkout's worker,
 * which delegates to `direct` whenever the worker cannot serve (none of this build, a refusal).
 */
export function runsService(env: NodeJS.ProcessEnv = process.env): RunsService {
  const direct = deferred(() => directRunsService());
  return choosesWorker(env) ? viaWorker(env, direct) : direct;
}

/** A runs service whose implementation is loaded by its first operation (the SDK only when needed). */
function deferred(load: () => Promise<RunsService>): RunsService {
  return {
    status: async (cwd, target) => (await load()).status(cwd, target),
    logs: async (query) => (await load()).logs(query),
    history: async (query) => (await load()).history(query),
    running: async (cwd, allProjects) => (await load()).running(cwd, allProjects),
    inbox: async (query) => (await load()).inbox(query),
    queues: async (cwd) => (await load()).queues(cwd),
    start: async (req) => (await load()).start(req),
    follow: async (req) => (await load()).follow(req),
    stop: async (req) => (await load()).stop(req),
    pause: async (target) => (await load()).pause(target),
    unpause: async (target) => (await load()).unpause(target),
    steer: async (target, steer) => (await load()).steer(target, steer),
    answer: async (req) => (await load()).answer(req),
    rerun: async (req) => (await load()).rerun(req),
    resume: async (req) => (await load()).resume(req),
  };
}

/**
 * The implementation on the Temporal SDK, loaded when first needed: on `session` when given (a
 * long-lived caller's, `ll-loop ui`'s), else each operation on a session of its own.
 */
async function directRunsService(session?: Session): Promise<RunsService> {
  return (await import('./direct.js')).directRuns(session);
}
