/** What `ll-loop run` is asked to do: its command line read (client/commands/run-flags.ts). */
import type { LoadOverrides } from '../../loader/load.js';
import type { Detail } from '../../reporters/human.js';
import type { BackgroundStart } from './background-start.js';
import type { EarlyStart } from './early-start.js';
import type { RunPlace } from './run-place.js';

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
  /** `--background`: told the started run instead of printing it (a caller that is not the command). */
  onBackgroundStart?: (started: BackgroundStart) => void;
  /** The start the bin already asked the checkout's worker for (early-start.ts), if it did. */
  early?: EarlyStart;
}
