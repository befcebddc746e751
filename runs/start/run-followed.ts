/**
 * `ll-loop run` in the foreground once the checkout's worker has started the run
 * (start-through-worker.ts): followed through the runs service's `follow` (runs/service), which
 * asks that worker to stream the run's events over its socket, so the common `run` never loads
 * the Temporal SDK; when the worker cannot go on, the service follows on its own connection
 * without repeating what was shown. Same display, same JSON, same exit codes as following on the
 * command's own connection (run-connected.ts).
 */
import type { LoopDefinition } from '../../fsm/schema.js';
import { armInterrupt, type Interrupt } from '../follow/interrupt.js';
import { createReporter } from '../follow/run-end.js';
import { followRun, type RunFollow } from '../follow/follow-run.js';
import type { FollowedRun } from '../follow/follow-events.js';
import type { RunOptions } from './run-options.js';
import { runInfoOfStarted, type StartedByWorker } from './start-through-worker.js';

/** Follow the run its worker started to its end, by `follow`; returns the exit code. */
export async function followThroughItsWorker(
  opts: RunOptions,
  run: {
    definition: LoopDefinition;
    started: StartedByWorker;
    interruption: { interrupt: Interrupt } | undefined;
    /** The runs service's `follow`. */
    follow: (req: RunFollow) => Promise<FollowedRun>;
  },
): Promise<number> {
  const out = opts.out ?? ((t: string) => process.stdout.write(t));
  const err = opts.err ?? ((t: string) => process.stderr.write(t));
  const { started } = run;
  // Ctrl-C cancels the run; its end is followed still.
  const cancel = new AbortController();
  if (run.interruption) armInterrupt(run.interruption.interrupt, async () => cancel.abort());
  return followRun({
    via: (req) => run.follow({ ...req, cwd: opts.cwd }),
    workflowId: started.instanceId,
    firstRunId: started.runId,
    startedBy: started.worker,
    reporter: createReporter(opts.json, out, run.definition.max_iterations, opts.colour, opts.detail),
    info: runInfoOfStarted(opts.cwd, started),
    err,
    // The worker that writes the run's events file is the one reading it.
    localWriter: true,
    ...(started.lock ? { lock: started.lock } : {}),
    cancelRun: cancel.signal,
  });
}
