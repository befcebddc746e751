/**
 * `ll-loop status` asks the checkout's worker over its socket (client/worker-ask.ts), one JSON
 * line each way: the worker makes the report the command would make (status-report.ts) on its
 * own client, so the command loads no Temporal SDK. Light on purpose: types only.
 */
import type { ExecutionResult } from '../../fsm/types.js';
import type { LiveStatus } from './run-target.js';

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

export interface WorkerStatusRequest {
  kind: 'status';
  /** The command's build: a worker of another build refuses. */
  code_id: string;
  /** The Temporal server the command would use: another server's worker refuses. */
  address: string;
  /** The checkout root the command resolved: another checkout's worker refuses. */
  root: string;
  /** The command's directory (its project: a loop name means this project's runs). */
  cwd: string;
  /** A run id or a loop name, as given to the command. */
  target: string;
}

/**
 * The report the command would have made, or a refusal (another build, server or checkout;
 * draining; any error of the report), after which the command makes it itself and so reports
 * every error as it always has.
 */
export type WorkerStatusReply = { kind: 'status'; report: StatusReport } | { kind: 'refused'; why: string };
