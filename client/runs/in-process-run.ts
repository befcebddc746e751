/**
 * Following a run whose worker lives in this process (`run`, `resume`): the progress display is
 * fed by the worker's event hub, the worker runs until the workflow closes, and the outcome
 * becomes the exit code.
 */
import type { WorkflowHandle } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import type { ExecutionResult } from '../../fsm/types.js';
import type { EventHub } from '../../worker/event-hub.js';
import { eventsPath } from '../../worker/run-files.js';
import { awaitResult } from './await-result.js';
import type { TemporalEndpoint } from '../temporal/connection.js';
import { exitCodeFor } from '../exit-codes.js';
import { createHumanReporter } from '../reporters/human.js';
import { createJsonReporter } from '../reporters/json.js';
import type { Reporter, RunInfo } from '../reporters/reporter.js';
import { colourWanted, createStyle } from '../reporters/style.js';

/** Where to find a run: its id, events file and (embedded server) Web UI page. */
export function runInfo(endpoint: TemporalEndpoint & { uiUrl?: string }, cwd: string, instanceId: string): RunInfo {
  return {
    instanceId,
    eventsFile: eventsPath(cwd, instanceId),
    ...(endpoint.uiUrl ? { uiUrl: `${endpoint.uiUrl}/namespaces/${endpoint.namespace}/workflows/${encodeURIComponent(instanceId)}` } : {}),
  };
}

/** The human progress display, or nothing until the JSON result with `--json`. */
export function createReporter(json: boolean, out: (text: string) => void, maxIterations: number): Reporter {
  return json ? createJsonReporter(out) : createHumanReporter(out, createStyle(colourWanted(process.stdout)), maxIterations);
}

export interface InProcessRun {
  handle: WorkflowHandle;
  worker: Worker;
  events: EventHub;
  reporter: Reporter;
  info: RunInfo;
  /** Notices (lost connection…) go here, never into stdout's progress or JSON. */
  err: (text: string) => void;
  /** Runs once the display is attached and the worker is running, before the result is awaited. */
  onRunning?: () => Promise<void> | void;
}

/** Run the worker until the workflow closes; show progress; return the run's exit code. */
export async function followInProcess(run: InProcessRun): Promise<number> {
  const { handle, worker, events, reporter, info } = run;
  events.subscribe(info.instanceId, (e) => reporter.onEvent(e));
  reporter.onStart?.(info);
  let result: ExecutionResult;
  try {
    result = await worker.runUntil(async () => {
      await run.onRunning?.();
      return awaitResult(handle, {
        onDisconnect: (why) => run.err(`note: lost the connection to Temporal (${why}); the run is safe on the server, waiting for it to come back\n`),
        onReconnect: () => run.err('note: reconnected to Temporal\n'),
      });
    });
  } finally {
    await events.close();
  }
  reporter.onResult(result, info);
  return exitCodeFor(result);
}
