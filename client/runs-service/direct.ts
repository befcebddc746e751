/**
 * The runs service on the Temporal SDK (runs-service.ts): each operation on a session of the
 * caller's own, the report made by its room's function, as the checkout's worker makes it too.
 */
import { withSession } from '../temporal/session.js';
import { runStatus } from '../runs/status-report.js';
import { logsReportOf } from '../follow/logs-report.js';
import { historyReportOf } from '../follow/history-report.js';
import { runningListingsOn } from '../hosting/running-listings.js';
import { waitingRuns } from '../human/find-waiting.js';
import { listLockQueues } from '../scopes/scope-queues.js';
import type { RunsService } from './runs-service.js';

export const direct: RunsService = {
  status: (cwd, target) => runStatus(cwd, target),
  logs: (query) => withSession(query.cwd, (session) => logsReportOf(session, query)),
  history: (query) => withSession(query.cwd, (session) => historyReportOf(session, query)),
  running: (cwd, allProjects) => withSession(cwd, (session) => runningListingsOn(session, cwd, { allProjects })),
  inbox: ({ cwd, project, here }) =>
    withSession(cwd, ({ client, connection }) => waitingRuns(client, connection, project, here)),
  queues: (cwd) => withSession(cwd, ({ client }) => listLockQueues(client)),
};
