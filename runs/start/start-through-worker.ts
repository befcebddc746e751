/**
 * `ll-loop run`'s fast start: when this checkout's worker of this very build is up and polls the
 * server this command would use, the command hands it the loaded loop over the worker's socket
 * (the `start` request of runs/transport/schemas.ts) and the worker starts the run with the
 * client it already holds; when none is up, the command starts it, waits for it and does the same. The command then
 * follows the run through the worker, or loads the Temporal client while the first action runs.
 *
 * Undefined means "start it yourself": no such worker (runs/worker-ask.ts says which may be
 * asked), no socket (a stale one: nobody listens), or a refusal. Once the
 * request is sent, an error of the start is the command's error (the run may exist: starting it
 * again would make a second one).
 */
import type { LoopDefinition } from '../../fsm/schema.js';
import type { WorkerRecord } from '../../host/checkout.js';
import { CliError } from '../../errors/errors.js';
import { checkoutWorkerRoute, checkoutWorkerTarget, type CheckoutWorkerTarget } from '../worker-ask.js';
import { ensureCheckoutWorker } from '../workers/checkout-worker.js';
import { instanceIdFor } from './instance-id.js';
import type { RunInfo } from '../../reporters/reporter.js';
import { runInfo } from '../find/run-info.js';
import type { WorkerStartReply, WorkerStartRequest } from '../transport/schemas.js';
import { askToStart } from '../transport/ask.js';
import type { BackgroundStart } from './background-start.js';
import type { StartedRun } from './run-start.js';

/** A run the checkout's worker started: on that worker's server (its namespace and Web UI, when it said). */
export type StartedByWorker = StartedRun & { by: 'worker'; worker: WorkerRecord };

/** Where to find a run the worker started: its events file, and its Web UI page on the worker's server. */
export function runInfoOfStarted(cwd: string, started: StartedByWorker): RunInfo {
  const endpoint = {
    address: started.address,
    namespace: started.namespace,
    ...(started.uiUrl ? { uiUrl: started.uiUrl } : {}),
  };
  return runInfo(endpoint, cwd, started.instanceId);
}

/** A run the checkout's worker started: its answer names the run, the worker and its server. */
export function startedInBackground(cwd: string, started: StartedByWorker): BackgroundStart {
  const { instanceId, taskQueue, worker } = started;
  return { instanceId, taskQueue, worker, cwd, uiUrl: runInfoOfStarted(cwd, started).uiUrl };
}

export interface WorkerStartInput {
  cwd: string;
  definition: LoopDefinition;
  file: string;
  env: NodeJS.ProcessEnv;
  dataContext: string[];
  started: Date;
  lock: WorkerStartRequest['lock'];
  /** `run --background`: the worker answers once the scope lock has (runs/scopes/scopes-settled.ts). */
  background?: boolean;
  /** Called once the worker has the request (the command may load what follows meanwhile). */
  sent?: () => void;
}

/** Start the run through the checkout's worker, or undefined when the command must start it. */
export async function startThroughWorker(
  input: WorkerStartInput,
  /** The environment that says which worker to ask (runs/worker-ask.ts; the run's own by default). */
  asking: NodeJS.ProcessEnv = input.env,
): Promise<StartedByWorker | undefined> {
  const target = checkoutWorkerTarget(input.cwd, asking) ?? (await workerBroughtUp(input.cwd, asking));
  if (target === undefined) return undefined;
  const { path, address, root, worker } = target;
  const request: WorkerStartRequest = {
    kind: 'start',
    code_id: target.code_id,
    address,
    root,
    definition: input.definition,
    file: input.file,
    cwd: input.cwd,
    id_base: instanceIdFor(input.definition.name, input.started),
    env: Object.fromEntries(Object.entries(input.env).filter((e): e is [string, string] => e[1] !== undefined)),
    data_context: input.dataContext,
    lock: input.lock,
    ...(input.background ? { background: true } : {}),
  };
  const reply = await askToStart<WorkerStartReply>(path, request, input.sent);
  if (reply === undefined || reply.kind === 'refused') return undefined;
  if (reply.kind === 'error') throw new CliError(reply.message, reply.fix, reply.exit_code);
  return startedOf(reply, worker);
}

/** The run a worker's `started` answer names. */
export function startedOf(reply: WorkerStartReply & { kind: 'started' }, worker: WorkerRecord): StartedByWorker {
  return {
    instanceId: reply.instance_id,
    taskQueue: reply.task_queue,
    runId: reply.run_id,
    lock: reply.lock,
    place: { kind: 'checkout' },
    worker,
    by: 'worker',
    address: worker.address,
    namespace: reply.namespace ?? 'default',
    ...(reply.ui_url === undefined ? {} : { uiUrl: reply.ui_url }),
  };
}

/**
 * No worker of this build serves the checkout yet: start one (or wait for the one starting) and
 * ask it once it listens. The run needs that worker either way, and waiting for it costs this
 * command less than starting the run itself, which loads the Temporal client SDK (about a second
 * of CPU, on the machine the worker is starting on). Undefined when the command may not ask a
 * worker, or the worker did not come up: the command then starts the run itself and reports
 * what stands in the way in its own words (a server that cannot start, a newer worker).
 */
async function workerBroughtUp(cwd: string, env: NodeJS.ProcessEnv): Promise<CheckoutWorkerTarget | undefined> {
  const route = checkoutWorkerRoute(cwd, env);
  if (route === undefined) return undefined;
  try {
    await ensureCheckoutWorker(cwd, route.address);
  } catch {
    return undefined;
  }
  return checkoutWorkerTarget(cwd, env);
}
