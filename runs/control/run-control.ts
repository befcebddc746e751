/**
 * `ll-loop pause`, `unpause` and `steer`: find the open run named (a run id of any project, or a
 * loop's open run in this project), send it the update
 * (the workflow validates it with the core, fsm/run/control.ts: a refused update changes nothing)
 * and say where the run is. Each error is one line with its fix and exit code 1 (usage); a run
 * whose worker does not take the update in time is exit 5.
 */
import { WorkflowUpdateFailedError, type Client, type Connection } from '@temporalio/client';
import {
  pauseUpdate,
  steerUpdate,
  unpauseUpdate,
  type ControlAnswer,
  type SteerArgs,
} from '../../workflows/control-definitions.js';
import { CliError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { projectScope, type RunSummary } from '../find/find-runs.js';
import { bounded, isTimeout, resolveRun } from '../find/run-target.js';
import { reviveRunCheckout } from '../workers/revive-run-checkout.js';
import { withSession } from '../../temporal/session.js';
import { whoAmI } from './who.js';

/** How long a command waits for the run's worker to take its update. */
const UPDATE_TIMEOUT_MS = 30_000;

/**
 * A run refuses pause and steer until it holds its scope lock. One started a moment ago (`run
 * --background`, then `pause`) is granted it within moments: the update is sent again until then,
 * for at most this long; a run queued behind another keeps refusing and is told so.
 */
const BEGIN_WAIT_MS = 10_000;
const BEGIN_LOOK_MS = 200;

export type ControlRequest =
  | { kind: 'pause' }
  | { kind: 'unpause' }
  | { kind: 'steer'; to: string; note?: string; context?: Record<string, string> };

export interface ControlOptions {
  cwd: string;
  target: string;
  json: boolean;
  out: (text: string) => void;
  /** `user@host`; defaults to this command line's. */
  by?: string;
}

/** The workflow refused the update (its validator's reason). */
class ControlRefusedError extends CliError {
  override readonly name = 'ControlRefusedError';
}

/** The fix for a refusal, by what it says. */
function fixFor(req: ControlRequest, run: RunSummary, why: string): string {
  const id = run.id;
  if (/has no state/.test(why)) return `steer to one of the states listed (ll-loop show ${run.loop} draws them)`;
  if (/has no context key/.test(why)) return 'set only keys the loop declares under context:';
  const typed = /^parameter "([^"]+)" of loop .*: expected (.*), got /.exec(why);
  if (typed) return `give --context ${typed[1]} ${typed[2]} (ll-loop show ${run.loop} lists its parameters)`;
  if (/already paused/.test(why))
    return `ll-loop unpause ${id} lets it go on; ll-loop status ${id} shows who paused it`;
  if (/waits on a handoff/.test(why))
    return `ll-loop resume ${id} continues it: the state that handed off runs again with the handoff's payload`;
  if (/not paused/.test(why)) return `ll-loop pause ${id} pauses it`;
  if (/without pause and steer/.test(why))
    return `stop it (ll-loop stop ${id}) and rerun it: ll-loop rerun ${id} --from STATE`;
  if (/has not begun/.test(why))
    return `it waits for its scope lock behind another run (ll-loop queue shows it): ${req.kind} it once it runs`;
  if (/already ended/.test(why)) return `ll-loop rerun ${id} --from STATE starts a new run from one of its states`;
  return `ll-loop status ${id} shows where the run is (${req.kind} was refused)`;
}

async function send(
  client: Client,
  connection: Connection,
  run: RunSummary,
  req: ControlRequest,
  by: string,
): Promise<ControlAnswer> {
  const id = run.id;
  const handle = client.workflow.getHandle(id);
  const call = (): Promise<ControlAnswer> => {
    if (req.kind === 'pause') return handle.executeUpdate(pauseUpdate, { args: [{ by }] });
    if (req.kind === 'unpause') return handle.executeUpdate(unpauseUpdate, { args: [{ by }] });
    const args: SteerArgs = {
      by,
      to: req.to,
      ...(req.note === undefined ? {} : { note: req.note }),
      ...(req.context === undefined ? {} : { context: req.context }),
    };
    return handle.executeUpdate(steerUpdate, { args: [args] });
  };
  const until = Date.now() + BEGIN_WAIT_MS;
  const untilBegun = async (): Promise<ControlAnswer> => {
    for (;;) {
      try {
        return await call();
      } catch (err) {
        // A refused update changes nothing in the run: asking again is safe.
        const refusal =
          err instanceof WorkflowUpdateFailedError ? ((err.cause as Error | undefined)?.message ?? '') : '';
        if (!/has not begun/.test(refusal) || Date.now() >= until) throw err;
        await new Promise((r) => setTimeout(r, BEGIN_LOOK_MS));
      }
    }
  };
  try {
    return await bounded(connection, UPDATE_TIMEOUT_MS, untilBegun);
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError) {
      const cause = (err.cause as Error | undefined)?.message ?? err.message;
      const why = cause.replace(new RegExp(`^run ${id}: `), '');
      throw new ControlRefusedError(`cannot ${req.kind} run ${id}: ${why}`, fixFor(req, run, why), EXIT.usage);
    }
    if (isTimeout(err))
      throw new CliError(
        `run ${id} did not take the ${req.kind} within ${UPDATE_TIMEOUT_MS / 1000}s: no worker serves it now`,
        `start its worker (any ll-loop command in its project does; a pool's: ll-loop worker --pool NAME), then run this again`,
        EXIT.runError,
      );
    throw err;
  }
}

/** A control update the run took: which run, what it was asked, by whom, and its answer. */
export interface ControlOutcome {
  id: string;
  by: string;
  answer: ControlAnswer;
}

/** Send one control update to the run `opts.target` names, printing nothing; throws its refusal. */
export async function controlRun(
  opts: Pick<ControlOptions, 'cwd' | 'target' | 'by'>,
  req: ControlRequest,
): Promise<ControlOutcome> {
  const by = opts.by ?? whoAmI();
  const project = projectScope(opts.cwd);
  return withSession(opts.cwd, async ({ client, connection }) => {
    // A run id reaches a run of any project; a loop name, this project's runs (runs/find/find-runs.ts).
    const run = await resolveRun(client, opts.target, { latest: false, project });
    reviveRunCheckout(run, opts.cwd);
    return { id: run.id, by, answer: await send(client, connection, run, req, by) };
  });
}
