/**
 * The checkout's worker starts runs for `ll-loop run` over a local Unix socket (docs/decisions.md,
 * "`ll-loop run` starts through the checkout's worker"): what both sides send, one JSON line each
 * way, and where the socket is. Light on purpose: `run` reads this before the start, and nothing
 * here may load the Temporal SDK.
 *
 * The socket lives in a directory only its owner can enter (0700), so only the user who runs the
 * worker can reach it: a request runs the loop's shell actions as that user.
 */
import type { LoopDefinition } from '../../fsm/schema.js';
import type { ScopeLockRequest } from '../../workflows/definitions.js';

export { socketPathUsable, startSocketDir, startSocketPath } from '../../host/worker-socket.js';

/** `ll-loop run`'s request: a loop already loaded and validated by the command. */
export interface WorkerStartRequest {
  kind: 'start';
  /** The command's build (host/build-info.ts codeId()): a worker of another build refuses. */
  code_id: string;
  /** The Temporal server the command would use (`host:port`): another server's worker refuses. */
  address: string;
  /** The checkout root the command resolved: another checkout's worker refuses. */
  root: string;
  definition: LoopDefinition;
  file: string;
  cwd: string;
  /** The run's instance id without a clash suffix (start-run.ts instanceIdFor, in the command's time zone). */
  id_base: string;
  /** The environment the run's actions see (host/run-env.ts): left in the run's env file, never in history. */
  env: Record<string, string>;
  data_context: string[];
  lock: { none: boolean; wait: boolean; queue_timeout_s?: number };
  /**
   * `run --background`: the reply waits for the scope lock's answer to a run that would not wait,
   * and is the ScopeBusy error (exit 8) when it was denied (client/scopes/scopes-settled.ts).
   */
  background?: boolean;
}

/** The worker's answer. `refused`: nothing was started; the command starts the run itself. */
export type WorkerStartReply =
  | {
      kind: 'started';
      instance_id: string;
      task_queue: string;
      run_id: string;
      /** The scope lock the run asked for (for the queue note), when it took one. */
      lock?: ScopeLockRequest;
      /** The worker's server's namespace and Web UI (the follower's RunInfo, without connecting). */
      namespace?: string;
      ui_url?: string;
    }
  | { kind: 'refused'; why: string }
  | { kind: 'error'; name: string; message: string; fix?: string; exit_code: number };

/**
 * `ll-loop run`'s early start (client/start/early-start.ts): sent by the bin before the CLI is
 * loaded, with the command line itself. The worker parses and loads the loop as the command
 * would (client/start/start-from-argv.ts) and starts it like a `start` request; anything the
 * command would report on its own (a usage error, an invalid loop, a missing key, a dry run,
 * another place to run) is refused, and the command then does it all the ordinary way.
 */
export interface WorkerArgvStartRequest {
  kind: 'start_argv';
  code_id: string;
  address: string;
  root: string;
  /** `run` and its arguments, as typed. */
  argv: string[];
  /** Where the command was started (its paths are relative to it). */
  cwd: string;
  env: Record<string, string>;
  /** When the command started, as `YYYYMMDDTHHMMSS` in its time zone (instance-id.ts localStamp). */
  stamp: string;
}

/**
 * `--background`: the worker accepted the run and queued its start durably
 * (client/hosting/start-queue-runner.ts); the workflow exists a moment later. All the bin needs
 * to print the command's output and exit without loading the CLI (early-start.ts).
 */
interface WorkerQueuedReply {
  kind: 'queued';
  instance_id: string;
  task_queue: string;
  /** The run's page in the Web UI, when the server has one. */
  run_url?: string;
  /** `--json`, as the worker read the command line. */
  json: boolean;
}

/** The answer: a start's, with the loop as the worker loaded it (the command follows that one). */
export type WorkerArgvStartReply =
  | ((WorkerStartReply & { kind: 'started' }) & { definition: LoopDefinition; file: string; data_context: string[] })
  | WorkerQueuedReply
  | Exclude<WorkerStartReply, { kind: 'started' }>;
