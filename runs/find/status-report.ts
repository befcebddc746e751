/**
 * The report `ll-loop status` prints: a run named by its id or its loop's name,
 * answered by the run itself (its `status` query) while it is open, or its result once closed.
 * Made by the command on its own session, or by the checkout's worker on its own
 * (worker/socket/requests.ts); both make it here.
 */
import { closedFailure } from './closed-failure.js';
import { closedResult, mayHaveResult, resolveRun, runUrl, workflowTaskInFlight } from './run-target.js';
import { projectScope, type RunSummary } from './find-runs.js';
import { awaitNamespace, queryStatusSettled, retryTransient, SERVER_SETTLE_MS } from './server-settle.js';
import type { ExecutionResult } from '../../fsm/types.js';
import type { LiveStatus } from './run-target.js';
import { withSession, type Session } from '../../temporal/session.js';
import { embeddedServerOptions } from '../../temporal/embedded.js';
import { startedWithin } from '../../temporal/server-pid.js';
import { statePath } from '../../host/run-files.js';
import type { RunStateFile } from '../../workflows/definitions.js';
import { readFileSync, statSync } from 'node:fs';

/** What `status --json` prints. */
export interface StatusReport {
  id: string;
  loop: string;
  open: boolean;
  /** Temporal's execution status, lower case: running, completed, terminated, failed, … */
  status: string;
  started_at: string;
  closed_at?: string;
  /** Open runs: false when no worker answered the status query. */
  worker?: boolean;
  /** No answer, but a worker holds the run's workflow task (busy in a local action, or just died). */
  busy?: boolean;
  /**
   * A busy run whose worker on this machine keeps its state file (`.loops/.running/<id>.state.json`):
   * where the run was when that file was last written — in a quick action, which holds the run's
   * workflow task (so its `status` query) until the action ends.
   */
  in_action?: {
    state: string;
    phase: string;
    iteration: number;
    steps: number;
    captured: string[];
    updated_at?: string;
  };
  /** Open runs with a worker: the workflow's own answer. */
  live?: LiveStatus;
  /** Closed runs that completed: the loop's result. */
  result?: ExecutionResult;
  /**
   * Closed runs that failed in Temporal without a loop result: the failure's type and message
   * (`ScopeBusy`: its scope lock denied it, and `details` say who was in the way).
   */
  failure?: { type: string; message: string; details?: unknown };
  url?: string;
}

/** The status of the run `target` names (a run id, or a loop's open run, else its latest). */
export async function runStatus(cwd: string, target: string): Promise<StatusReport> {
  return withSession(cwd, (session) => statusReportOf(session, cwd, target));
}

/** {@link runStatus} on a session already open (the checkout worker's). */
export async function statusReportOf(
  { client, connection, endpoint }: Pick<Session, 'client' | 'connection' | 'endpoint'>,
  cwd: string,
  target: string,
): Promise<StatusReport> {
  // A server that has just (re)started is waited for: its namespace, then a worker's answer.
  const deadline = Date.now() + SERVER_SETTLE_MS;
  const restarted =
    endpoint.started === true ||
    (endpoint.mode === 'embedded' &&
      !endpoint.foreign &&
      startedWithin(embeddedServerOptions(cwd).dataDir, SERVER_SETTLE_MS));
  if (restarted) await awaitNamespace(connection, endpoint.namespace, deadline);
  const run: RunSummary = await retryTransient(deadline, () =>
    resolveRun(client, target, { latest: true, project: projectScope(cwd) }),
  );
  const handle = client.workflow.getHandle(run.id);
  const url = runUrl(endpoint.uiUrl, endpoint.namespace, run.id);
  const report: StatusReport = {
    id: run.id,
    loop: run.loop,
    open: run.open,
    status: run.status.toLowerCase(),
    started_at: run.startTime.toISOString(),
    ...(run.closeTime ? { closed_at: run.closeTime.toISOString() } : {}),
    ...(url ? { url } : {}),
  };
  if (run.open) {
    const live = await queryStatusSettled(connection, handle, { restarted, deadline });
    report.worker = live !== null;
    if (live) report.live = live;
    else {
      report.busy = await workflowTaskInFlight(handle).catch(() => false);
      const inAction = report.busy && run.cwd ? fromStateFile(run.cwd, run.id) : undefined;
      if (inAction) report.in_action = inAction;
    }
  } else if (mayHaveResult(run.status)) {
    const result = await closedResult(connection, handle);
    if (result) report.result = result;
    else if (report.status === 'failed') {
      const failure = await closedFailure(handle).catch(() => undefined);
      if (failure) report.failure = failure;
    }
  }
  return report;
}

/**
 * Where the run's state file (written by the worker that runs it, on this machine) says an open
 * run is; undefined when there is no such file or it says the run ended.
 */
function fromStateFile(cwd: string, id: string): StatusReport['in_action'] {
  try {
    const path = statePath(cwd, id);
    const file = JSON.parse(readFileSync(path, 'utf8')) as Partial<RunStateFile>;
    if (file.result !== null || typeof file.current_state !== 'string') return undefined;
    return {
      state: file.current_state,
      phase: String(file.phase),
      iteration: Number(file.iteration),
      steps: Number(file.steps),
      captured: Object.keys(file.captured ?? {}),
      updated_at: (file as { updated_at?: string }).updated_at ?? statSync(path).mtime.toISOString(),
    };
  } catch {
    return undefined;
  }
}
