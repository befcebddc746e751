/**
 * The runs service on the Temporal SDK (interface.ts): each operation by its room's function,
 * on the caller's session when it has one (`ll-loop ui`, the checkout's worker answering its
 * socket: worker/socket/requests.ts), else on a session of its own. The writes' modules are
 * loaded when first used: the worker, which serves only the reads, does not load them.
 */
import { withSession, type Session } from '../../temporal/session.js';
import { runStatus, statusReportOf } from '../find/status-report.js';
import { logsReportOf } from '../follow/logs-report.js';
import { historyReportOf } from '../follow/history-report.js';
import { runningListingsOn } from '../find/running-listings.js';
import { waitingRuns } from '../human/find-waiting.js';
import { listLockQueues } from '../scopes/scope-queues.js';
import type { ControlRequest } from '../control/run-control.js';
import type { RunsService } from './interface.js';

export function directRuns(session?: Session): RunsService {
  const on = <T>(cwd: string, work: (s: Session) => Promise<T>): Promise<T> =>
    session ? work(session) : withSession(cwd, work);
  return {
    status: (cwd, target) => (session ? statusReportOf(session, cwd, target) : runStatus(cwd, target)),
    logs: (query) => on(query.cwd, (s) => logsReportOf(s, query)),
    history: (query) => on(query.cwd, (s) => historyReportOf(s, query)),
    running: (cwd, allProjects) => on(cwd, (s) => runningListingsOn(s, cwd, { allProjects })),
    inbox: ({ cwd, project, here }) => on(cwd, (s) => waitingRuns(s.client, s.connection, project, here)),
    queues: (cwd) => on(cwd, (s) => listLockQueues(s.client)),
    start: async (req) => {
      if (req.workerOnly) return { kind: 'refused', why: 'no checkout worker is asked' };
      const { startOn, servedRun } = await import('../start/start-on.js');
      return on(req.cwd, async (s) => ({ kind: 'started', run: await servedRun(s, await startOn(s, req), req) }));
    },
    follow: async (req) => {
      const { followOn } = await import('../follow/follow-on.js');
      return on(req.cwd, (s) => followOn(s.client, req));
    },
    stop: async (req) => (await import('../control/stop-run.js')).stopRun(req),
    pause: (target) => control(target, { kind: 'pause' }),
    unpause: (target) => control(target, { kind: 'unpause' }),
    steer: (target, steer) => control(target, { kind: 'steer', ...steer }),
    answer: async ({ cwd, target, reply, project, onFound }) => {
      const { answerRun } = await import('../human/answer-run.js');
      return on(cwd, (s) => answerRun(s, target, reply, project, onFound));
    },
    rerun: async (req) => (await import('../control/rerun.js')).rerun(req),
    resume: async (req) => (await import('../resume/resume-run.js')).resume(req),
  };
}

/** Pause, unpause or steer: one update to the run (runs/control/run-control.ts). */
async function control(target: Parameters<RunsService['pause']>[0], req: ControlRequest) {
  return (await import('../control/run-control.js')).controlRun(target, req);
}
