/**
 * Starting a loop workflow the way every ll-loop command does (`run`, `run --background`,
 * `resume`): the instance id, the task queue, the memo, the Web UI summary and the search
 * attributes. One place, so a resumed run looks exactly like a fresh one.
 */
import { buildInfo } from '../../host/build-info.js';
import { removeRunEnv, serverKey, writeRunEnv } from '../../host/run-env.js';
import {
  WorkflowExecutionAlreadyStartedError,
  type Client,
  type Connection,
  type WorkflowHandleWithFirstExecutionRunId,
} from '@temporalio/client';
import { defineSearchAttributeKey, WorkflowIdReusePolicy } from '@temporalio/common';
import type { LoopDefinition } from '../../fsm/schema.js';
import type {
  LOOP_WORKFLOW_TYPE as LoopWorkflowType,
  LoopWorkflowInput,
  ScopeLockRequest,
} from '../../workflows/definitions.js';
import { CURRENT_RUN_RULES } from '../../workflows/run-rules.js';
import { recordedRunOptions, type RunTuning } from '../../workflows/run-options.js';
import type { loopWorkflow } from '../../workflows/loop-workflow.js';
import { checkoutKey } from '../../host/checkout.js';
import { loopVersion } from '../../loader/loop-version.js';
import { waitUntilServed } from '../../temporal/cluster-setup.js';
import { ensureSearchAttributes } from '../../temporal/search-attributes.js';
import { precheckScopes } from '../scopes/scope-lock.js';
import { CliError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { detailsDescription, payloadRefusal } from './start-limits.js';
import { claimAttempt, instanceIdFor, withSuffix } from './instance-id.js';

export { instanceIdFor };

/**
 * workflows/definitions.ts's LOOP_WORKFLOW_TYPE, checked against it by its type: importing that
 * module's values would load @temporalio/workflow (for its query definitions) on `run`'s way to
 * the start, which needs only this name.
 */
const LOOP_WORKFLOW_TYPE: typeof LoopWorkflowType = 'loopWorkflow';

/** A started loop run. */
export type LoopHandle = WorkflowHandleWithFirstExecutionRunId<typeof loopWorkflow>;

/** Prefix of the per-run task queues (`ll-loop-run.<workflow id>`), polled by one process. */
const PER_RUN_QUEUE_PREFIX = 'll-loop-run.';

/** The task queue `ll-loop worker` polls by default (a shared pool of workers). */
export const DEFAULT_SHARED_QUEUE = 'll-loop';

/**
 * Shell actions whose timeout is at most this many seconds run as local activities: in the
 * worker's workflow task, without a server round trip per action (docs/architecture.md).
 */
const DEFAULT_LOCAL_ACTIVITY_MAX_TIMEOUT_S = 30;

/** Whether a task queue is a per-run one (as opposed to a shared worker pool's). */
export function isPerRunQueue(taskQueue: string): boolean {
  return taskQueue.startsWith(PER_RUN_QUEUE_PREFIX);
}

/** `LL_LOCAL_ACTIVITY_MAX_TIMEOUT_S`, or the default. */
function localActivityMax(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.LL_LOCAL_ACTIVITY_MAX_TIMEOUT_S;
  const n = raw === undefined ? DEFAULT_LOCAL_ACTIVITY_MAX_TIMEOUT_S : Number(raw);
  return Number.isFinite(n) && n >= 0 ? n : DEFAULT_LOCAL_ACTIVITY_MAX_TIMEOUT_S;
}

/**
 * The least `LL_HEARTBEAT_TIMEOUT_S` taken: workers beat every second, and a timeout near that
 * would call a worker dead for one slow second.
 */
export const MIN_HEARTBEAT_TIMEOUT_S = 5;

/**
 * `LL_HEARTBEAT_TIMEOUT_S`: how long a running action may go unheard before its worker is presumed
 * dead (workflows/activity-proxies.ts; 30 s unset). A value below the minimum counts as the
 * minimum; one that is not a number is ignored.
 */
export function heartbeatTimeout(env: NodeJS.ProcessEnv = process.env): Pick<RunTuning, 'heartbeatTimeoutS'> {
  const raw = env.LL_HEARTBEAT_TIMEOUT_S;
  const n = Number(raw);
  if (raw === undefined || raw.trim() === '' || !Number.isFinite(n)) return {};
  return { heartbeatTimeoutS: Math.max(MIN_HEARTBEAT_TIMEOUT_S, Math.round(n)) };
}

/** The tuning a new run (or a schedule's runs) records, from the environment of the command. */
export function runTuning(env: NodeJS.ProcessEnv = process.env): RunTuning {
  return { localActivityMaxTimeoutS: localActivityMax(env), ...heartbeatTimeout(env) };
}

export interface StartRunRequest {
  client: Client;
  definition: LoopDefinition;
  /** The loop file (memo `file`, so `resume` can reload it). */
  file: string;
  /**
   * Where the actions run (memo `cwd`, and the workflow's `options.cwd`): the project root the
   * command was run in (also for pool and worktree runs), whose checkout the run belongs to.
   */
  cwd: string;
  /** The queue its workflow tasks go to: the checkout's (host/checkout.ts) or a pool's. */
  taskQueue: string;
  /** Whether the server has ll-loop's search attributes. */
  searchAttributes: boolean;
  /** The start time the instance id is derived from. */
  started: Date;
  /**
   * The instance id without its clash suffix, when the caller derived it (a command handing its
   * start to the checkout's worker: the id is in the command's time zone, not the worker's).
   */
  idBase?: string;
  /**
   * A client on the connection of a worker of this process that polls `taskQueue`: the start is
   * made on it with Temporal's eager start (the server answers with the first workflow task, which
   * that worker runs at once). Only the checkout's worker starting a run for `ll-loop run` has one.
   */
  eagerOn?: Client;
  /**
   * A fixed workflow id (`resume`): one attempt, rejected if that id was ever used, so two
   * concurrent resumes cannot both start. Without it: `<loop>-<stamp>`, `-2`, `-3`… on a clash.
   */
  workflowId?: string;
  continueFrom?: LoopWorkflowInput['continueFrom'];
  /** Extra memo fields (e.g. `resumed_from`). */
  memo?: Record<string, unknown>;
  /** Extra workflow options (e.g. `actionQueue` of a pinned pool run), per workflow id when a function. */
  options?: Partial<LoopWorkflowInput['options']> | ((workflowId: string) => Partial<LoopWorkflowInput['options']>);
  /**
   * The environment the run's actions see (host/run-env.ts), left for the worker before each
   * start attempt under that attempt's id. Default: this process's environment.
   */
  env?: NodeJS.ProcessEnv;
  /** The run's scope lock (lockRequestFor); omitted: the run takes none (`--no-lock`). */
  lock?: ScopeLockRequest;
  /** Context keys given on the command line (`--context`): data, not code (LoopWorkflowInput.dataContext). */
  dataContext?: string[];
}

/**
 * How many ids a start tries before it gives up: `-2` up to `-1000` of one second. Only runs started
 * in that second by other processes than this one can take them first (claimAttempt).
 */
const MAX_ID_TRIES = 1000;

/**
 * Start the loop workflow. With a fixed `workflowId`, a clash surfaces as Temporal's
 * WorkflowExecutionAlreadyStartedError for the caller to explain. A run whose scopes are busy
 * (and that would not wait) is refused with ScopeBusyError before anything is started.
 */
export async function startLoopRun(
  req: StartRunRequest,
): Promise<{ handle: LoopHandle; instanceId: string; taskQueue: string }> {
  const { client, definition, file, cwd, searchAttributes } = req;
  if (req.lock) await precheckScopes(client, req.lock);
  // The command's environment: a run the checkout's worker starts for `run` is tuned as the
  // command asked, not as the worker's own environment says.
  const env = req.env ?? process.env;
  const inputFor = (workflowId: string): LoopWorkflowInput => ({
    definition,
    options: {
      ...recordedRunOptions({
        placement: { cwd, searchAttributes },
        tuning: runTuning(env),
        rules: CURRENT_RUN_RULES,
      }),
      ...(typeof req.options === 'function' ? req.options(workflowId) : req.options),
    },
    ...(req.continueFrom ? { continueFrom: req.continueFrom } : {}),
    ...(req.dataContext?.length ? { dataContext: req.dataContext } : {}),
    ...(req.lock ? { lock: req.lock } : {}),
  });
  // Which ll-loop started the run (shown by `list --running` and in the Web UI's memo and details).
  const build = buildInfo();
  // The loop's own version (loader/loop-version.ts), for `history` and `report`.
  const version = loopVersion(definition);
  const queueOf = (): string => req.taskQueue;
  // Which server the run is on, so that only a worker of that server sweeps its file.
  const address = (client.connection as { options?: { address?: string } }).options?.address;
  const server = address ? serverKey(address, client.options.namespace) : undefined;
  const start = async (workflowId: string) => {
    // Left before the start, since the worker may take the first action at once; never over the
    // file of a run that already has this id (a clash), so only created here if absent.
    const created = writeRunEnv(workflowId, env, { exclusive: true, ...(server ? { server } : {}) });
    try {
      const handle = await startWorkflow(workflowId);
      // The id is ours: a file that was there belonged to an earlier, ended run of the same id.
      if (!created) writeRunEnv(workflowId, env, server ? { server } : {});
      return handle;
    } catch (err) {
      if (created) removeRunEnv(workflowId);
      throw payloadRefusal(err, Buffer.byteLength(JSON.stringify(inputFor(workflowId)), 'utf8')) ?? err;
    }
  };
  const startWorkflow = (workflowId: string) =>
    (req.eagerOn ?? client).workflow.start<typeof loopWorkflow>(LOOP_WORKFLOW_TYPE, {
      workflowId,
      ...(req.eagerOn ? { requestEagerStart: true } : {}),
      taskQueue: queueOf(),
      args: [inputFor(workflowId)],
      memo: {
        cwd,
        file,
        loop: definition.name,
        loop_version: version,
        version: build.version,
        build_id: build.build_id,
        ...(req.memo ?? {}),
      },
      staticSummary: `ll-loop: ${definition.name}`.slice(0, 190),
      staticDetails:
        `${detailsDescription(definition.description)}\n\nfile: ${file}\ncwd: ${cwd}\nll-loop ${build.version} (build ${build.build_id})`.trim(),
      // A run id names one run, from any project: an id used before, even by a run that has
      // closed (another project's run of a loop of the same name in the same second), is a clash.
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      ...(searchAttributes
        ? {
            typedSearchAttributes: [
              { key: defineSearchAttributeKey('LoopName', 'KEYWORD'), value: definition.name },
              { key: defineSearchAttributeKey('LoopCategory', 'KEYWORD'), value: definition.category ?? '' },
              // The checkout whose run this is: loop names resolve among a checkout's own runs (find-runs.ts).
              { key: defineSearchAttributeKey('LoopCheckout', 'KEYWORD'), value: checkoutKey(cwd) },
            ],
          }
        : {}),
    });
  if (req.workflowId) return { handle: await start(req.workflowId), instanceId: req.workflowId, taskQueue: queueOf() };
  const base = req.idBase ?? instanceIdFor(definition.name, req.started);
  for (let tries = 1; ; tries += 1) {
    const instanceId = withSuffix(base, claimAttempt(base));
    try {
      return { handle: await start(instanceId), instanceId, taskQueue: queueOf() };
    } catch (err) {
      // The id is taken: the environment left under it belongs to the run that has it.
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      if (tries >= MAX_ID_TRIES)
        throw new CliError(
          `no free run id for ${definition.name}: ${base} and ${MAX_ID_TRIES - 1} of its suffixes are taken (runs of this loop started in the same second, or ids used before on this server)`,
          `run it again: the next second has ids of its own`,
          EXIT.infrastructure,
        );
    }
  }
}

/**
 * Whether runs on this server can carry ll-loop's search attributes: always on the embedded
 * server (registered at start-up), elsewhere when they are (or can be) registered.
 */
export async function searchAttributesAvailable(
  endpoint: { mode?: 'external' | 'embedded'; namespace: string },
  connection: Connection,
  note?: (line: string) => void,
): Promise<boolean> {
  return (
    endpoint.mode === 'embedded' ||
    ensureSearchAttributes(connection, endpoint.namespace).then(
      async (added) => {
        // Just registered: the server refuses runs that carry them until its namespace registry
        // has caught up (seconds), so the first run waits for that instead of failing.
        if (added.length === 0) return true;
        note?.(
          `note: registered ll-loop's search attributes in namespace ${endpoint.namespace}; waiting for the server to serve them (once; \`ll-loop cluster setup\` does this ahead)\n`,
        );
        await waitUntilServed(connection, endpoint.namespace);
        return true;
      },
      () => false,
    )
  );
}
