/**
 * `ll-loop logs` (without --follow) asks the checkout's worker over its socket (client/worker-ask.ts),
 * one JSON line each way: the worker makes the report the command would make (logs-report.ts) on
 * its own client, reading the same files on the same host, so the command loads no Temporal SDK
 * and replays nothing. Light on purpose: types only.
 */
import type { ActionLogRecord } from './action-logs.js';
import type { PersonRecord } from './person-events.js';

/** Which run's logs, and which of them. */
export interface LogsQuery {
  /** The command's directory (its project: a loop name means this project's runs). */
  cwd: string;
  /** A run id or a loop name, as given to the command. */
  target: string;
  /** Only actions (and a person's events) of this state. */
  state?: string;
  /** A parallel state's item: that item's child run instead. */
  item?: number;
}

/** What `logs --json` prints, and what the human output is made from. */
export interface LogsReport {
  id: string;
  loop: string;
  /** Temporal's execution status, lower case. */
  status: string;
  /** The run was still open when its history was read. */
  open: boolean;
  /** The actions that ended, in time order (a sub-loop's among its parent's). */
  actions: ActionLogRecord[];
  /** A person's part: waits, answers, deadlines, pauses, steers. */
  people: PersonRecord[];
  /** Notes for stderr (e.g. a sub-loop whose history could not be read). */
  warnings: string[];
}

export interface WorkerLogsRequest extends LogsQuery {
  kind: 'logs';
  /** The command's build: a worker of another build refuses. */
  code_id: string;
  /** The Temporal server the command would use: another server's worker refuses. */
  address: string;
  /** The checkout root the command resolved: another checkout's worker refuses. */
  root: string;
}

/**
 * The report the command would have made, or a refusal (another build, server or checkout;
 * draining; any error of the report, such as an unknown run), after which the command makes it
 * itself and so reports every error as it always has.
 */
export type WorkerLogsReply = { kind: 'logs'; report: LogsReport } | { kind: 'refused'; why: string };
