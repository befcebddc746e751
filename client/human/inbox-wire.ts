/**
 * `ll-loop inbox` asks the checkout's worker for the runs waiting for a person over the worker's
 * local socket (host/worker-socket.ts), one JSON line each way: the worker already holds a
 * Temporal client, so the command loads none. Light on purpose: nothing here loads the SDK.
 */
import type { ProjectScope } from '../runs/project-scope.js';
import type { WaitingRun } from './find-waiting.js';

export interface WorkerInboxRequest {
  kind: 'inbox';
  /** The command's build (host/build-info.ts codeId()): a worker of another build refuses. */
  code_id: string;
  /** The Temporal server the command would use (`host:port`): another server's worker refuses. */
  address: string;
  /** The checkout root the command resolved: another checkout's worker refuses. */
  root: string;
  /** The runs of this project only; null: of every project (`--all-projects`). */
  project: ProjectScope | null;
  /** The command's project: a run of another one is answered from its own directory. */
  here: ProjectScope;
}

/**
 * The worker's answer: the inbox as the command would have made it, or a refusal (another build,
 * server or checkout; draining; the listing failed), after which the command lists the runs itself
 * (and so reports any error as it always has).
 */
export type WorkerInboxReply = { kind: 'inbox'; waiting: WaitingRun[] } | { kind: 'refused'; why: string };
