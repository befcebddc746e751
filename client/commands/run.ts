/**
 * `ll-loop run <name|path>`: validate, connect (embedded dev server by default), start the loop
 * workflow, run an in-process worker for it, show progress, and exit with the run's outcome.
 */
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { defineSearchAttributeKey } from '@temporalio/common';
import type { LoopDefinition } from '../../fsm/schema.js';
import type { ExecutionResult } from '../../fsm/types.js';
import { createLoopWorker, installQuietRuntime } from '../../worker/create-worker.js';
import { eventsPath } from '../../worker/run-files.js';
import { LOOP_WORKFLOW_TYPE, type LoopWorkflowInput } from '../../workflows/definitions.js';
import type { loopWorkflow } from '../../workflows/loop-workflow.js';
import { connectClient, connectWorkerConnection, resolveEndpoint, resolveTemporalTarget, TemporalUnavailableError } from '../connection.js';
import { CliError, InfrastructureError, UsageError } from '../errors.js';
import { EXIT, exitCodeFor } from '../exit-codes.js';
import { loadLoop, parseContextArgs } from '../load.js';
import { printDiagnostics } from './validate.js';
import { embeddedServerOptions } from '../embedded.js';
import { ensureSearchAttributes } from '../search-attributes.js';
import { printPlan } from './dry-run.js';
import { createHumanReporter } from '../reporters/human.js';
import { createJsonReporter } from '../reporters/json.js';
import type { Reporter } from '../reporters/reporter.js';
import { colourWanted, createStyle } from '../reporters/style.js';

export interface RunOptions {
  cwd: string;
  target: string;
  maxIterations?: number;
  context: string[];
  dryRun: boolean;
  noLlm: boolean;
  llmModel?: string;
  json: boolean;
  out?: (text: string) => void;
  err?: (text: string) => void;
}

/** Seed 001's instance ids: `<loop>-<YYYYMMDDTHHMMSS>` (local time). */
export function instanceIdFor(loop: string, date: Date, attempt = 0): string {
  const p = (n: number) => String(n).padStart(2, '0');
  const stamp = `${date.getFullYear()}${p(date.getMonth() + 1)}${p(date.getDate())}T${p(date.getHours())}${p(date.getMinutes())}${p(date.getSeconds())}`;
  const safe = loop.replace(/[^A-Za-z0-9._-]+/g, '-');
  return attempt === 0 ? `${safe}-${stamp}` : `${safe}-${stamp}-${attempt + 1}`;
}

/**
 * Shell actions whose timeout is at most this many seconds run as local activities: in the
 * worker's workflow task, without a server round trip per action (docs/architecture.md).
 */
export const DEFAULT_LOCAL_ACTIVITY_MAX_TIMEOUT_S = 30;

function localActivityMax(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.LL_LOCAL_ACTIVITY_MAX_TIMEOUT_S;
  const n = raw === undefined ? DEFAULT_LOCAL_ACTIVITY_MAX_TIMEOUT_S : Number(raw);
  return Number.isFinite(n) && n >= 0 ? n : DEFAULT_LOCAL_ACTIVITY_MAX_TIMEOUT_S;
}

function load(opts: RunOptions): { definition: LoopDefinition; file: string } {
  const overrides = {
    context: parseContextArgs(opts.context),
    noLlm: opts.noLlm,
    ...(opts.maxIterations === undefined ? {} : { maxIterations: opts.maxIterations }),
    ...(opts.llmModel === undefined ? {} : { llmModel: opts.llmModel }),
  };
  const loaded = loadLoop(opts.target, opts.cwd, overrides);
  if (!loaded.definition) {
    printDiagnostics(loaded.diagnostics, opts.json, opts.out ?? ((t) => process.stdout.write(t)), opts.err ?? ((t) => process.stderr.write(t)));
    throw new CliError(`${loaded.file} is not a valid loop; nothing was run`, 'fix the errors above, then run again', EXIT.usage);
  }
  return { definition: loaded.definition, file: loaded.file };
}

/** Run a loop to its end in this process. Returns the process exit code. */
export async function runCommand(opts: RunOptions): Promise<number> {
  const out = opts.out ?? ((t: string) => process.stdout.write(t));
  const { definition, file } = load(opts);
  if (opts.dryRun) {
    printPlan(definition, opts.json, out);
    return EXIT.ok;
  }
  installQuietRuntime();
  // Ctrl-C from here on is a graceful stop: before the workflow exists it is noted, after, it
  // cancels the run (which kills its action and records the outcome).
  const interrupt: { requested: boolean; cancel?: () => void } = { requested: false };
  const stop = onInterrupt(() => {
    interrupt.requested = true;
    interrupt.cancel?.();
  });
  try {
    return await runWithInterrupt(opts, definition, file, out, interrupt);
  } finally {
    stop();
  }
}

async function runWithInterrupt(
  opts: RunOptions,
  definition: LoopDefinition,
  file: string,
  out: (t: string) => void,
  interrupt: { requested: boolean; cancel?: () => void },
): Promise<number> {
  const endpoint = await connectOrExplain(opts.cwd);
  // Connections, worker creation and the workflow start overlap: time to the first action counts.
  const [{ client, connection }, native] = await Promise.all([connectClient(endpoint), connectWorkerConnection(endpoint)]);
  try {
    const searchAttributes = endpoint.mode === 'embedded' || (await ensureSearchAttributes(connection, endpoint.namespace).then(() => true, () => false));
    const started = new Date();
    let instanceId = instanceIdFor(definition.name, started);
    const taskQueue = `ll-loop-run/${instanceId}`;
    const workerReady = createLoopWorker({ connection: native, namespace: endpoint.namespace, taskQueue });
    workerReady.catch(() => undefined);
    const style = createStyle(colourWanted(process.stdout));
    const reporter: Reporter = opts.json ? createJsonReporter(out) : createHumanReporter(out, style, definition.max_iterations);
    const input: LoopWorkflowInput = {
      definition,
      options: { cwd: opts.cwd, searchAttributes, localActivityMaxTimeoutS: localActivityMax() },
    };
    let handle;
    for (let attempt = 0; ; attempt += 1) {
      instanceId = instanceIdFor(definition.name, started, attempt);
      try {
        handle = await client.workflow.start<typeof loopWorkflow>(LOOP_WORKFLOW_TYPE, {
          workflowId: instanceId,
          taskQueue,
          args: [input],
          memo: { cwd: opts.cwd, file, loop: definition.name },
          staticSummary: `ll-loop: ${definition.name}`.slice(0, 190),
          staticDetails: `${definition.description ?? ''}\n\nfile: ${file}\ncwd: ${opts.cwd}`.trim(),
          ...(searchAttributes
            ? { typedSearchAttributes: [
                  { key: defineSearchAttributeKey('LoopName', 'KEYWORD'), value: definition.name },
                  { key: defineSearchAttributeKey('LoopCategory', 'KEYWORD'), value: definition.category ?? '' },
                ] }
            : {}),
        });
        break;
      } catch (err) {
        if (!(err instanceof WorkflowExecutionAlreadyStartedError) || attempt > 20) throw err;
      }
    }
    const runHandle = handle;
    interrupt.cancel = () => void runHandle.cancel().catch(() => undefined);
    if (interrupt.requested) interrupt.cancel();
    const { worker, events } = await workerReady.catch(async (err: unknown) => {
      // Nothing can run the workflow without this worker: end it rather than leave it waiting.
      await handle.terminate(`ll-loop could not start its worker: ${(err as Error).message}`).catch(() => undefined);
      throw err;
    });
    const info = { instanceId, eventsFile: eventsPath(opts.cwd, instanceId), ...(endpoint.uiUrl ? { uiUrl: `${endpoint.uiUrl}/namespaces/${endpoint.namespace}/workflows/${instanceId}` } : {}) };
    events.subscribe(instanceId, (e) => reporter.onEvent(e));
    reporter.onStart?.(info);
    let result: ExecutionResult;
    try {
      result = await worker.runUntil(handle.result());
    } finally {
      await events.close();
    }
    reporter.onResult(result, info);
    return exitCodeFor(result);
  } finally {
    await native.close().catch(() => undefined);
    await connection.close().catch(() => undefined);
  }
}

async function connectOrExplain(cwd: string) {
  try {
    return await resolveEndpoint(resolveTemporalTarget(), embeddedServerOptions(cwd));
  } catch (err) {
    if (err instanceof CliError) throw err;
    if (err instanceof TemporalUnavailableError) throw new InfrastructureError(err.message);
    throw new InfrastructureError(`cannot start or reach Temporal: ${(err as Error).message}`, 'see docs/temporal.md');
  }
}

/** First Ctrl-C stops the run gracefully (its action is killed, the outcome recorded); a second exits. */
function onInterrupt(cancel: () => void): () => void {
  let count = 0;
  const handler = () => {
    count += 1;
    if (count === 1) {
      process.stderr.write('\nstopping: cancelling the running action (Ctrl-C again to exit at once)\n');
      cancel();
    } else process.exit(EXIT.cancelled);
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
}

export { UsageError };
