/**
 * Following a run to its end on the terminal — `run`, `resume`, `status --follow` and `monitor`
 * alike, whoever runs its worker: the progress display is fed by the events of its history
 * (follow-events.ts), and the outcome becomes the exit code. When this process hosts the run's
 * worker, the worker runs until the run closes and the events are read.
 */
import { dirname, join } from 'node:path';
import { runFileStem } from '../../host/run-files.js';
import type { TimedEvent } from '../../fsm/run/events.js';
import type { Client } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import { CliError } from '../errors.js';
import { EXIT, exitCodeFor } from '../exit-codes.js';
import { createHumanReporter, type Detail } from '../reporters/human.js';
import { createJsonReporter } from '../reporters/json.js';
import type { Reporter, RunInfo } from '../reporters/reporter.js';
import { createStyle } from '../reporters/style.js';
import { followEvents, type FollowedRun } from './follow-events.js';
import { ScopeBusyError } from '../scopes/scope-lock.js';
import { removeRunEnv } from '../../host/run-env.js';
import { SCOPE_BUSY, type ScopeBusyDetails } from '../../workflows/scope-lock-definitions.js';

export { runInfo } from '../runs/run-info.js';

/** The human progress display (as detailed as `detail` says), or nothing until the JSON result with `--json`. */
export function createReporter(
  json: boolean,
  out: (text: string) => void,
  maxIterations: number,
  colour = false,
  detail: Detail = 'normal',
): Reporter {
  return json ? createJsonReporter(out) : createHumanReporter(out, createStyle(colour), maxIterations, detail);
}

export interface FollowRun {
  client: Client;
  workflowId: string;
  /** Made once the run's definition is known (from its history) when not given. */
  reporter: Reporter | ((maxIterations: number) => Reporter);
  info: RunInfo;
  /** Notices (lost connection…) go here, never into stdout's progress or JSON. */
  err: (text: string) => void;
  /** The run's worker (or workers), when this process hosts it: it runs until the run has closed. */
  worker?: Pick<Worker, 'runUntil'>;
  /** How an end without a loop result is shown with `--json` (else it is an error). */
  json?: (text: string) => void;
  /** This host's worker serves the run, so it writes the run's events file (FollowEventsOptions.fileWaitMs). */
  localWriter?: boolean;
  /** Another listener of the run's events (the inline question of a human state). */
  onEvent?: (event: TimedEvent) => void;
}

/** How long a follower waits for this host's worker to write the events it announced (see fileWaitMs). */
const LOCAL_WRITER_WAIT_MS = 2_000;

/** Show the run's progress until it closes; return its exit code. */
export async function followRun(f: FollowRun): Promise<number> {
  let reporter = typeof f.reporter === 'function' ? undefined : f.reporter;
  reporter?.onStart?.(f.info);
  const eventsFile = f.info.eventsFile;
  const follow = (): Promise<FollowedRun> =>
    followEvents(f.client, f.workflowId, {
      follow: true,
      // The progress display shows what actions printed; a JSON Lines stream stays as recorded.
      actionOutput: f.json === undefined,
      // A worker on this host writes the run's events (and its sub-loops') beside each other.
      ...(eventsFile === undefined
        ? {}
        : {
            ...(f.localWriter ? { fileWaitMs: LOCAL_WRITER_WAIT_MS } : {}),
            eventsFileOf: (id: string) =>
              id === f.workflowId ? eventsFile : join(dirname(eventsFile), `${runFileStem(id)}.events.jsonl`),
          }),
      onInput: (input) => {
        if (reporter || typeof f.reporter !== 'function') return;
        reporter = f.reporter(input.definition.max_iterations);
        reporter.onStart?.(f.info);
      },
      onEvent: (event) => {
        reporter?.onEvent(event);
        f.onEvent?.(event);
      },
      onDisconnect: (why) =>
        f.err(
          `note: lost the connection to Temporal (${why}); the run is safe on the server, waiting for it to come back\n`,
        ),
      onReconnect: () => f.err('note: reconnected to Temporal\n'),
    });
  const followed = f.worker ? await f.worker.runUntil(follow) : await follow();
  for (const warning of followed.warnings) f.err(`warning: ${warning}\n`);
  return endOfRun(followed, reporter, f.info, f.json);
}

/** The exit code of a followed run: its result's, or an error when it closed without one. */
export function endOfRun(
  followed: FollowedRun,
  reporter: Reporter | undefined,
  info: RunInfo,
  json?: (text: string) => void,
): number {
  const end = followed.end;
  // The run is over: the environment its command left (secrets included) goes now, whether or
  // not a worker saw it end (a run refused its scopes, or terminated, ends out of its sight).
  if (end) removeRunEnv(info.instanceId);
  const result = end?.status === 'completed' ? end.result : end?.result;
  if (result) {
    reporter?.onResult(result, info);
    return exitCodeFor(result);
  }
  const reason = end && end.status !== 'completed' ? end.reason : undefined;
  // Denied its scopes (busy, removed from the queue, out of patience): exit 8, naming who holds them.
  const failure = end && end.status === 'failed' ? end.failure : undefined;
  if (failure?.type === SCOPE_BUSY) {
    const busy = ScopeBusyError.fromFailure(
      info.instanceId,
      failure.message,
      failure.details as ScopeBusyDetails | undefined,
    );
    if (!json) throw busy;
    json(
      `${JSON.stringify({ instance_id: info.instanceId, status: 'scope_busy', reason: failure.message, scope_busy: failure.details ?? null })}\n`,
    );
    return busy.exitCode;
  }
  const why = end ? `${end.status.replace('_', ' ')}: ${reason ?? ''}` : 'closed';
  if (json) {
    json(`${JSON.stringify({ instance_id: info.instanceId, status: end?.status ?? 'closed', reason })}\n`);
    return EXIT.runError;
  }
  throw new CliError(
    `run ${info.instanceId} ended without a result (${why})`,
    `continue it from where it was with: ll-loop resume ${info.instanceId}`,
    EXIT.runError,
  );
}
