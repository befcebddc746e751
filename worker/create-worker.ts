/**
 * The composition root: a Temporal worker with the loop workflow, the activities and the event
 * sinks. Used in-process by `ll-loop run`, by tests, and (later) by `ll-loop worker`.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Context } from '@temporalio/activity';
import { Client } from '@temporalio/client';
import {
  bundleWorkflowCode,
  DefaultLogger,
  makeTelemetryFilterString,
  Runtime,
  Worker,
  type LogLevel,
  type LogMetadata,
  type NativeConnection,
  type WorkflowBundleOption,
} from '@temporalio/worker';
import { isScopeBusyMessage, SCOPE_BUSY } from '../workflows/scope-lock-definitions.js';
import { LOOP_FAILED } from '../workflows/definitions.js';
import { isLoopFailedMessage } from '../fsm/run/outcome.js';
import { startGroupWatchdog } from '../activities/group-reaper.js';
import { createActivities, type ActivityDeps } from '../activities/index.js';
import { EventHub } from './event-hub.js';
import { stateDir } from '../host/run-env.js';
import { minimalEnvNote, runEnvSource } from '../activities/action-env.js';
import { join } from 'node:path';
import { sweepJournal } from '../activities/action-journal.js';
import { sweepDeadActionDirs } from '../activities/shell-launch.js';
import { PREBUILT_BUNDLE, tracedBundle, TRACING_WORKFLOW_MODULE, workflowsEntry } from '../host/paths.js';
import { loadTracing } from './tracing-config.js';
import { withoutWorkflowStackTraces } from './workflow-stack-traces.js';

export interface LoopWorkerOptions {
  connection: NativeConnection;
  namespace?: string;
  taskQueue: string;
  /** Defaults to a fresh hub; pass one to listen to events. */
  events?: EventHub;
  activityDeps?: ActivityDeps;
  /** A prebuilt bundle file; defaults to dist/workflow-bundle.js, else bundles from source. */
  bundlePath?: string;
  /** The identity Temporal shows for this worker (default: the SDK's `<pid>@<host>`). */
  identity?: string;
  /** How long running activities may finish after shutdown starts (default 2 s). */
  shutdownGraceTime?: string;
  /** Runs kept in the worker's cache between their workflow tasks (default {@link DEFAULT_MAX_CACHED_WORKFLOWS}). */
  maxCachedWorkflows?: number;
  /**
   * How long one activation may run without yielding before its workflow task fails (default
   * {@link WORKFLOW_DEADLOCK_TIMEOUT}); the deadlock detector's test shortens it.
   */
  deadlockTimeout?: string;
  /**
   * This worker's server as serverKey (host/run-env.ts) names it: where the environment files of
   * schedules are found (host/schedule-env.ts). Unset: scheduled runs have none here.
   */
  server?: string;
  /**
   * How long a run's next workflow task waits on this worker's sticky queue before Temporal hands
   * it to the task queue (default: the SDK's, 10 s). Recorded with each task the worker completes,
   * so it is how long a task (or query) waits for this worker once it has died — until the worker
   * that takes over resets the runs' stickiness (worker/fail-over.ts).
   */
  stickyQueueScheduleToStartTimeout?: string;
}

/** How long one activation's workflow code may run without yielding (the SDK's default off the main thread). */
export const WORKFLOW_DEADLOCK_TIMEOUT = '5s';

/** The worker's cache of runs: see the comment where it is set in {@link createLoopWorker}. */
const DEFAULT_MAX_CACHED_WORKFLOWS = 250;

/** The native core's retrying gRPC client: the log target of its "retried N times" lines. */
const CORE_RETRY_TARGET = 'temporalio_client::retry';

/**
 * The SDK logs every failed workflow and activity at WARN, with its stack. Some failures are
 * outcomes, not faults, and the CLI reports them itself: a run that did not succeed closes Failed
 * with `LoopFailed` (fsm/run/outcome.ts; exit 2–5), a run denied its scopes fails with ScopeBusy
 * (exit 8). Those are not logged. The error may reach the logger as a plain Error (its failure
 * type is lost when workflows run on a thread of their own), so it is also known by its message.
 */
class QuietLogger extends DefaultLogger {
  override log(level: LogLevel, message: string, meta?: LogMetadata): void {
    if (message === 'Workflow failed' && isOutcomeFailure(meta?.error)) return;
    super.log(level, message, meta);
  }
}

function isOutcomeFailure(error: unknown): boolean {
  const e = error as { type?: unknown; stack?: unknown; message?: unknown } | undefined;
  if (e?.type === LOOP_FAILED || e?.type === SCOPE_BUSY) return true;
  // Crossing a thread leaves a plain Error whose stack still starts with the failure's class.
  const message = String(e?.message ?? '');
  return (
    isScopeBusyMessage(message) ||
    (String(e?.stack ?? '').startsWith('ApplicationFailure: ') && isLoopFailedMessage(message))
  );
}

/**
 * Keep the SDK's own logging to warnings so it does not interleave with the CLI's output. Called
 * before each worker and replay worker is made: the SDK ends its runtime when no worker holds it,
 * and the next one made would otherwise get a default (loud) runtime.
 */
export function installQuietRuntime(level: 'WARN' | 'ERROR' = 'WARN'): void {
  try {
    // No shutdown signals: the CLI handles Ctrl-C itself (it cancels the run, then waits for it).
    // The native core's own retry warnings (a flood while the server restarts) stay quiet: the CLI
    // explains lost connections itself; its errors still show. Its retrying client reports every
    // poll retry past the 15th as an ERROR (`gRPC call poll_… retried N times … tcp connect error`,
    // some 150 lines a minute from a worker's pollers while the server is down): those are off too;
    // a worker logs an outage itself (temporal/server-watch.ts).
    const filter = `${makeTelemetryFilterString({ core: 'ERROR', other: 'ERROR' })},${CORE_RETRY_TARGET}=off`;
    Runtime.install({ logger: new QuietLogger(level), shutdownSignals: [], telemetryOptions: { logging: { filter } } });
  } catch {
    // Already installed by the host process (tests): keep theirs.
  }
}

/** Where this machine's workers journal completed actions: `<state dir>/action-journal`. */
export function actionJournalDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(stateDir(env), 'action-journal');
}

/** A warning in the current activity's log (the worker's log); nothing outside an activity. */
function activityLog(line: string): void {
  try {
    Context.current().log.warn(line);
  } catch {
    // Not in an activity (a direct call): nobody to tell.
  }
}

/**
 * The prebuilt bundle (LL_WORKFLOW_BUNDLE in tests), else a bundle made from source now; with
 * `traced`, the one with Temporal's OpenTelemetry workflow interceptors beside it.
 */
export async function workflowBundle(bundlePath?: string, traced = false): Promise<WorkflowBundleOption> {
  const plain = bundlePath ?? process.env.LL_WORKFLOW_BUNDLE ?? PREBUILT_BUNDLE;
  const path = traced ? tracedBundle(plain) : plain;
  if (existsSync(path)) return { codePath: path };
  return bundleWorkflowCode({
    workflowsPath: workflowsEntry(),
    logger: new DefaultLogger('WARN'),
    ...(traced
      ? { workflowInterceptorModules: [createRequire(import.meta.url).resolve(TRACING_WORKFLOW_MODULE)] }
      : {}),
  });
}

export async function createLoopWorker(options: LoopWorkerOptions): Promise<{ worker: Worker; events: EventHub }> {
  const events = options.events ?? new EventHub();
  // Before any action can be spawned: an action is guarded from the moment its group is known.
  startGroupWatchdog();
  // Completed actions are journaled on this machine (activities/action-journal.ts); old runs' entries go.
  const journalDir = options.activityDeps?.journalDir ?? actionJournalDir();
  sweepJournal(journalDir);
  // Large values' files of actions whose worker or spawner was killed (activities/shell-launch.ts).
  sweepDeadActionDirs();
  withoutWorkflowStackTraces();
  // Traced only when the OpenTelemetry variables say so; nothing of it is loaded otherwise.
  const tracing = (await loadTracing())?.workerTracing();
  const traced = tracing !== undefined;
  const worker = await Worker.create({
    connection: options.connection,
    namespace: options.namespace ?? 'default',
    taskQueue: options.taskQueue,
    workflowBundle: await workflowBundle(options.bundlePath, traced),
    ...(tracing ? { interceptors: tracing.interceptors } : {}),
    // Each run's processes see its environment, never the worker's (activities/action-env.ts); the
    // scope lock's activities call Temporal, on the worker's own connection unless given a client.
    activities: createActivities({
      envFor: runEnvSource({
        ...(options.server === undefined ? {} : { server: options.server }),
        onMinimal: (workflowId, env) => activityLog(minimalEnvNote(workflowId, env)),
      }),
      ...options.activityDeps,
      journalDir,
      // What an activity decided ahead of the run shows in the run's live events at once.
      eventsAhead: (workflowId, list) => events.ahead(workflowId, list),
      client:
        options.activityDeps?.client ??
        new Client({
          connection: options.connection,
          namespace: options.namespace ?? 'default',
          // Traced: the scope lock's signals carry the asking run's trace.
          ...(tracing ? { interceptors: { workflow: tracing.client } } : {}),
        }),
    }),
    sinks: { ...events.sinks(), ...tracing?.sinks },
    // Workflows run on the worker's main thread, in the SDK's reusable V8 context (the same sandbox
    // its workflow thread runs): a second thread is a second V8 isolate and Node environment, some
    // 17–24 MB of an idle worker's 135–150, and hands every activation across by message. Measured
    // (docs/decisions.md, "Running on Temporal"): idle RSS 147 → 116 MB with the
    // memory settings of runs/workers/checkout-worker.ts, a remote transition 21.5 → 19.2 ms,
    // 1,000 concurrent loops at the same 241–251 transitions/s. The SDK calls this mode `debugMode`
    // because a debugger can then attach to workflows; its only other effect is to lift the
    // deadlock detector's default, which is set here again: workflow code that runs 5 s without
    // yielding fails its task, as on the workflow thread. That option is missing from the SDK's
    // public type ("not exposed at the moment") but read all the same: its defaults are spread
    // under the given options. The SDK's version is pinned, and
    // tests/integration/deadlock-detector.test.ts fails if the option stops being read.
    debugMode: true,
    ...({ isolateExecutionTimeout: options.deadlockTimeout ?? WORKFLOW_DEADLOCK_TIMEOUT } as object),
    shutdownGraceTime: options.shutdownGraceTime ?? '2s',
    ...(options.identity ? { identity: options.identity } : {}),
    // Cancellation (ll-loop stop, a timeout, a stopped parent) reaches a running activity only in
    // the answer to a heartbeat the SDK actually sends; by default it sends one per 0.8 × the
    // heartbeat timeout (24 s), so a stop could wait that long. Actions beat every second
    // (activities/heartbeat.ts HEARTBEAT_MS); this lets each beat through.
    maxHeartbeatThrottleInterval: '1s',
    // Memory. A run kept in the worker's cache between its workflow tasks costs 1.5–1.9 MB
    // (measured: 1,000 runs parked on a timer grew a checkout worker to 1.7 GB). The SDK sizes
    // the cache from the heap limit (about 2,300 runs with Node's default 4 GB heap), so a
    // checkout worker had no practical bound; it serves one checkout, where a few hundred runs
    // open at once is already a lot. An evicted run is replayed from its history on its next
    // task. Measured with the same 1,000 parked runs: 1.08 GB steady (1.5 GB peak: V8 collects
    // the evicted runs late), against 1.7 GB. docs/decisions.md, "The checkout's worker".
    maxCachedWorkflows: options.maxCachedWorkflows ?? DEFAULT_MAX_CACHED_WORKFLOWS,
    ...(options.stickyQueueScheduleToStartTimeout === undefined
      ? {}
      : { stickyQueueScheduleToStartTimeout: options.stickyQueueScheduleToStartTimeout }),
  });
  return { worker, events };
}
