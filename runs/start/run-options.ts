/** What `ll-loop run` is asked to do: its command line read (client/commands/run-flags.ts), and the scope lock it asks for. */
import type { LoadOverrides } from '../../loader/load.js';
import type { Detail } from '../../reporters/human.js';
import type { EarlyStart } from './early-start.js';
import type { RunPlace } from './run-place.js';
import type { FollowedRun } from '../follow/follow-events.js';
import type { RunFollow } from '../follow/run-follow.js';
import type { RunStart, StartOutcome } from './run-start.js';

export interface RunOptions {
  cwd: string;
  target: string;
  maxIterations?: number;
  /** More of the loop's fields the command line sets (`--max-steps`, `--delay`, `--handoff-threshold`). */
  definitionOverrides?: Pick<LoadOverrides, 'maxSteps' | 'backoff' | 'handoffThreshold'>;
  context: string[];
  /** `--context-allow-unknown`: hand the loop `--context` keys it does not use. */
  allowUnknownContext?: boolean;
  dryRun: boolean;
  noLlm: boolean;
  llmModel?: string;
  json: boolean;
  /** Start, hand the run to a worker outside this process, and return at once. */
  background?: boolean;
  /** Where the run goes (runs/start/where-to-run.ts); default: the checkout's worker. */
  place?: RunPlace;
  /** `--queue`: wait in FIFO order for busy scopes (else a busy scope ends the run, exit 8). */
  queue?: boolean;
  /** `--queue-timeout`: give up waiting after this many seconds. */
  queueTimeoutS?: number;
  /** `--no-lock`: take no scope lock at all (dangerous: overlapping runs work at once). */
  noLock?: boolean;
  /** Ask human states' questions inline (stdin and stdout are a terminal; runs/human/inline-ask.ts). */
  ask?: boolean;
  /** Colour in the progress display (stdout is a terminal that wants it). */
  colour?: boolean;
  /** `--verbose` / `--quiet`: how much of the progress display (reporters/human.ts). */
  detail?: Detail;
  out?: (text: string) => void;
  err?: (text: string) => void;
  /** The start the bin already asked the checkout's worker for (early-start.ts), if it did. */
  early?: EarlyStart;
  /**
   * The runs service (the commands that run a loop pass runsService()): the run is started by its
   * `start` when the checkout's worker can start it, and then followed by its `follow`; else the
   * command starts it and follows it on its own connection, as it does without a service.
   */
  runs?: { start(req: RunStart): Promise<StartOutcome>; follow(req: RunFollow): Promise<FollowedRun> };
}

/** The scope lock `run`'s options ask for. */
export function lockOptionsOf(opts: RunOptions): RunStart['lock'] {
  return {
    none: opts.noLock === true,
    wait: opts.queue === true,
    ...(opts.queueTimeoutS === undefined ? {} : { queue_timeout_s: opts.queueTimeoutS }),
  };
}
