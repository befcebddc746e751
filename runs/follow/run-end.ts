/**
 * What every follower of a run shares, whoever feeds it the events (the Temporal history,
 * follow-run.ts, or the checkout's worker over its socket, follow-through-worker.ts): the
 * progress display and the exit code of the run's end. Loads no Temporal SDK.
 */
import { CliError } from '../../errors/errors.js';
import { EXIT, exitCodeFor } from '../../errors/exit-codes.js';
import { createHumanReporter, type Detail } from '../../reporters/human.js';
import { createJsonReporter } from '../../reporters/json.js';
import type { Reporter, RunInfo } from '../../reporters/reporter.js';
import { createStyle } from '../../reporters/style.js';
import type { FollowedRun } from './follow-events.js';
import { ScopeBusyError } from '../scopes/scope-busy-error.js';
import { removeRunEnv } from '../../host/run-env.js';
import type { ScopeBusyDetails } from '../../workflows/scope-lock-definitions.js';
import { SCOPE_BUSY } from '../../workflows/scope-busy.js';

/** How long a follower waits for this host's worker to write the events it announced (FollowEventsOptions.fileWaitMs). */
export const LOCAL_WRITER_WAIT_MS = 2_000;

/** The notes on stderr when the connection to Temporal is lost and back (the run is safe meanwhile). */
export function disconnectNote(why: string): string {
  return `note: lost the connection to Temporal (${why}); the run is safe on the server, waiting for it to come back\n`;
}
export const RECONNECT_NOTE = 'note: reconnected to Temporal\n';

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
