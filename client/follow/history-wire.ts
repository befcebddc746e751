/**
 * `ll-loop history` (without --write) asks the checkout's worker over its socket
 * (client/worker-ask.ts), one JSON line each way: the worker makes the report the command would
 * make (history-report.ts) on its own client, so the command loads no Temporal SDK and replays no
 * history. Light on purpose: types only.
 */
import type { LoopOutcome } from '../../fsm/run/outcome.js';
import type { TimedEvent } from '../../fsm/run/events.js';
import type { Spend, TerminatedBy } from '../../fsm/types.js';
import type { Lineage } from '../runs/lineage.js';
import type { RunEnd } from './run-close.js';

/** What `history` is asked for. */
export interface HistoryQuery {
  /** The command's directory (its project: a loop name means this project's runs). */
  cwd: string;
  /** A loop name, or a run id in its place. */
  loop: string;
  runId?: string;
  /** Only these event types (`--event`, repeatable). */
  events?: string[];
  /** Only events of this state (`--state`). */
  state?: string;
}

/** One past run, as `history <name>` lists it. */
export interface RunHistoryEntry {
  id: string;
  status: string;
  started_at: string;
  closed_at?: string;
  iterations: number | null;
  duration_ms: number | null;
  terminated_by: TerminatedBy | null;
  final_state: string | null;
  /** How it ended (fsm/run/outcome.ts); without a loop result, what its workflow's status means; `running` while open. */
  outcome: LoopOutcome | null;
  /** True when it ended in a terminal state marked `failure: true`. */
  failure: boolean | null;
  /** Open runs: false when no worker answered. */
  worker?: boolean;
  /** What its agent calls spent (runs whose calls reported usage). */
  spent?: Spend;
}

export type { Lineage };

/** One run's rebuilt events (after filters), as `history <name> <run-id> --json` prints them. */
export interface RunEventsReport extends Lineage {
  id: string;
  loop: string;
  status: string;
  end?: RunEnd;
  events: TimedEvent[];
  warnings: string[];
  written?: string;
}

/** A loop's past runs, or one run's events. */
export type HistoryReport =
  { kind: 'runs'; loop: string; entries: RunHistoryEntry[] } | { kind: 'events'; report: RunEventsReport };

export interface WorkerHistoryRequest extends HistoryQuery {
  kind: 'history';
  /** The command's build: a worker of another build refuses. */
  code_id: string;
  /** The Temporal server the command would use: another server's worker refuses. */
  address: string;
  /** The checkout root the command resolved: another checkout's worker refuses. */
  root: string;
}

/** The report, or a refusal (then the command makes it itself and reports its own errors). */
export type WorkerHistoryReply = { kind: 'history'; report: HistoryReport } | { kind: 'refused'; why: string };
