/**
 * `ll-loop run` in the foreground once the checkout's worker has started the run
 * (start-through-worker.ts): the worker also follows it for the command and streams its events
 * over the same socket (runs/follow/follow-through-worker.ts), so the common `run` never loads
 * the Temporal SDK. Same display, same JSON, same exit codes as following on the command's own
 * connection (run-connected.ts), which stays the way when the worker cannot serve: then the
 * display goes on without repeating what it showed.
 */
import type { LoopDefinition } from '../../fsm/schema.js';
import { codeId } from '../../host/build-info.js';
import { armInterrupt, type Interrupt } from '../follow/interrupt.js';
import { eventKey, followThroughWorker } from '../follow/follow-through-worker.js';
import { createReporter, endOfRun, LOCAL_WRITER_WAIT_MS } from '../follow/run-end.js';
import type { Reporter } from '../../reporters/reporter.js';
import type { RunOptions } from './run-options.js';
import { runInfoOfStarted, type StartedByWorker } from './start-through-worker.js';
import { startSocketPath } from '../../host/worker-socket.js';

/** What the ordinary follower takes over with when the worker could not follow to the end. */
export interface FollowFallback {
  /** The display already started: it shows no header again, nor the events it showed. */
  reporter: Reporter;
  why: string;
}

/** Follow the run through its worker: the exit code, or how the ordinary follower goes on. */
export async function followThroughItsWorker(
  opts: RunOptions,
  run: {
    definition: LoopDefinition;
    started: StartedByWorker;
    interruption: { interrupt: Interrupt } | undefined;
  },
): Promise<number | FollowFallback> {
  const out = opts.out ?? ((t: string) => process.stdout.write(t));
  const err = opts.err ?? ((t: string) => process.stderr.write(t));
  const { started } = run;
  const info = runInfoOfStarted(opts.cwd, started);
  const reporter = createReporter(opts.json, out, run.definition.max_iterations, opts.colour, opts.detail);
  reporter.onStart?.(info);
  const following = followThroughWorker(
    startSocketPath(started.worker.root),
    {
      kind: 'follow',
      code_id: codeId(),
      root: started.worker.root,
      workflow_id: started.instanceId,
      first_run_id: started.runId,
      ...(info.eventsFile === undefined ? {} : { events_file: info.eventsFile }),
      action_output: true,
      // The worker that writes the run's events file is the one reading it.
      file_wait_ms: LOCAL_WRITER_WAIT_MS,
      ...(started.lock?.wait ? { lock: started.lock } : {}),
    },
    { onEvent: (event) => reporter.onEvent(event), err },
  );
  if (run.interruption) armInterrupt(run.interruption.interrupt, async () => following.cancel());
  const outcome = await following.done;
  if (outcome.kind === 'followed') {
    for (const warning of outcome.followed.warnings) err(`warning: ${warning}\n`);
    return endOfRun(outcome.followed, reporter, info);
  }
  const { shown } = outcome;
  return {
    why: outcome.why,
    reporter: {
      onEvent: (event) => {
        if (!shown.has(eventKey(event))) reporter.onEvent(event);
      },
      onResult: (result, at) => reporter.onResult(result, at),
    },
  };
}
