/**
 * The runs service on the Temporal SDK (runs-service.ts): each operation by its room's function,
 * on the caller's session when it has one (`ll-loop ui`), else on a session of its own; the
 * checkout's worker makes its reports with the same functions (client/transport/requests.ts).
 */
import { withSession, type Session } from '../temporal/session.js';
import { runStatus, statusReportOf } from '../runs/status-report.js';
import { logsReportOf } from '../follow/logs-report.js';
import { historyReportOf } from '../follow/history-report.js';
import { runningListingsOn } from '../hosting/running-listings.js';
import { waitingRuns } from '../human/find-waiting.js';
import { answerRun } from '../human/answer-run.js';
import { listLockQueues } from '../scopes/scope-queues.js';
import { stopRun } from '../control/stop-run.js';
import { controlRun } from '../control/run-control.js';
import { rerunInBackground } from '../control/rerun.js';
import { resumeInBackground } from '../resume/resume-run.js';
import type { RunsService } from './runs-service.js';

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
    stop: (req) => stopRun(req),
    pause: (target) => controlRun(target, { kind: 'pause' }),
    unpause: (target) => controlRun(target, { kind: 'unpause' }),
    steer: (target, steer) => controlRun(target, { kind: 'steer', ...steer }),
    answer: ({ cwd, target, reply, project, onFound }) => on(cwd, (s) => answerRun(s, target, reply, project, onFound)),
    rerun: (req) => rerunInBackground(req),
    resume: (req) => resumeInBackground(req),
  };
}
