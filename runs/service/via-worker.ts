/**
 * The runs service through the checkout's worker (runs/transport/ask.ts): each read asked of
 * the worker, which makes the report on the client it already holds, so the command loads no
 * Temporal SDK. When the worker cannot serve — none of this build for this checkout and server,
 * no socket, a refusal, no answer in time — the operation is `direct`'s: a read changes nothing,
 * so making it again is safe. An error the worker's report ended in (an unknown run) is thrown
 * as the command's own, and the report is not made twice. A run on the checkout's queue is
 * started by the worker (runs/start/start-through-worker.ts: it is brought up when none is), else
 * by `direct`; a run is followed through the worker too (follow-via-worker.ts). The worker serves
 * no write: those are `direct`'s.
 */
import { askCheckoutWorker } from '../transport/ask.js';
import type { HistoryReport } from '../follow/history-report.js';
import type { RunsService } from './interface.js';
import type { WorkerBack } from './follow-via-worker.js';

/** How long the worker may take before the command asks Temporal itself, by what it does. */
const ANSWER_MS = {
  /** A status query waits at most 2 s for the run's worker (longer only on a server that has just restarted). */
  status: 15_000,
  /** A long run's history is replayed to find its actions, which the command would have to do too. */
  logs: 60_000,
  history: 60_000,
  /** Each run's status query waits at most 2 s for its worker, all of them at once. */
  running: 15_000,
  /** Far longer than a listing takes (tens of ms), short enough that a wedged worker costs little. */
  inbox: 15_000,
  /** One describe per lock. */
  queues: 15_000,
};

/** The reads and following asked of the worker; everything else, and what it cannot serve, `direct`'s. */
export function viaWorker(env: NodeJS.ProcessEnv, direct: RunsService, workerBack?: WorkerBack): RunsService {
  const at = (cwd: string, kind: keyof typeof ANSWER_MS) => ({ cwd, env, timeoutMs: ANSWER_MS[kind] });
  return {
    ...direct,
    async status(cwd, target) {
      const answer = await askCheckoutWorker('status', { cwd, target }, at(cwd, 'status'));
      return answer?.report ?? direct.status(cwd, target);
    },
    async logs(query) {
      const answer = await askCheckoutWorker('logs', query, at(query.cwd, 'logs'));
      return answer?.report ?? direct.logs(query);
    },
    async history(query): Promise<HistoryReport> {
      const answer = await askCheckoutWorker('history', query, at(query.cwd, 'history'));
      return answer?.report ?? direct.history(query);
    },
    async running(cwd, allProjects) {
      const answer = await askCheckoutWorker('running', { cwd, all_projects: allProjects }, at(cwd, 'running'));
      return answer?.runs ?? direct.running(cwd, allProjects);
    },
    async inbox(query) {
      const { cwd, project, here } = query;
      const answer = await askCheckoutWorker('inbox', { project: project ?? null, here }, at(cwd, 'inbox'));
      return answer?.waiting ?? direct.inbox(query);
    },
    async queues(cwd) {
      const answer = await askCheckoutWorker('queues', { cwd }, at(cwd, 'queues'));
      return answer?.reports ?? direct.queues(cwd);
    },
    async start(req) {
      if ((req.place ?? { kind: 'checkout' }).kind === 'checkout') {
        const { startThroughWorker } = await import('../start/start-through-worker.js');
        const run = await startThroughWorker(req, env);
        if (run) return { kind: 'started', run };
      }
      return direct.start(req);
    },
    // Loaded when a run is followed: the reads need none of it.
    follow: async (req) => (await import('./follow-via-worker.js')).followViaWorker(env, direct, req, workerBack),
  };
}
