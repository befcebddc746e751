/**
 * `ll-loop list --running` asks the checkout's worker over its socket (client/worker-ask.ts), one
 * JSON line each way: the worker makes the listing the command would make (running-listings.ts)
 * on its own client, so the command loads no Temporal SDK. Light on purpose: types only.
 */
import type { RunningListing } from './running-listings.js';

export interface WorkerRunningRequest {
  kind: 'running';
  /** The command's build: a worker of another build refuses. */
  code_id: string;
  /** The Temporal server the command would use: another server's worker refuses. */
  address: string;
  /** The checkout root the command resolved: another checkout's worker refuses. */
  root: string;
  /** The command's directory: its project's runs are listed. */
  cwd: string;
  /** `--all-projects`: every project's runs on the server. */
  all_projects: boolean;
}

export type WorkerRunningReply = { kind: 'running'; runs: RunningListing[] } | { kind: 'refused'; why: string };
