/**
 * Finding loop runs in Temporal by loop name or run id (the workflow id), for status, stop,
 * resume and history. Temporal's visibility store is the source of truth, so runs started on
 * other machines are found too.
 *
 * Invariant: a run id finds its run from anywhere; a loop name, given a project, finds only
 * that project's runs (one server serves every project of a machine, and two projects may each
 * have a loop of the same name). A run belongs to the checkout in its `LoopCheckout` search
 * attribute; runs of releases that did not set it belong to the directory in their memo `cwd`.
 */
import { resolve } from 'node:path';
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { CliError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { LOOP_WORKFLOW_TYPE, type LoopStatus } from '../../workflows/definitions.js';
import { recentLocalRunIds } from './local-run-ids.js';
import { builtinLoopFile } from '../../loader/catalog.js';
import { projectLoopFile } from '../../loader/load.js';

export interface RunSummary {
  /** The run id users type: the workflow id (`<loop>-<YYYYMMDDTHHMMSS>`). */
  id: string;
  /** Temporal's run id of the latest execution in the chain. */
  temporalRunId: string;
  loop: string;
  status: string;
  open: boolean;
  taskQueue: string;
  startTime: Date;
  closeTime?: Date;
  cwd?: string;
  /** The ll-loop release that started the run and its build id (memo; absent for 0.1.0 runs). */
  version?: string;
  /** The version of the loop it ran (memo `loop_version`, loader/loop-version.ts; absent for earlier runs). */
  loopVersion?: string;
  /** Where its actions go when not its own queue (pinned pool runs). */
  actionQueue?: string;
  buildId?: string;
  /** The LoopStatus / LoopState search attributes, where the server has them (fsm/run/outcome.ts). */
  loopStatus?: string;
  loopState?: string;
  /** A sub-loop's parent run (memo). */
  parent?: string;
  /** The checkout it was started in (LoopCheckout; absent for runs of earlier releases). */
  checkout?: string;
  /** The question a run waiting for a person asks (memo `human`, kept by the run while it waits). */
  human?: NonNullable<LoopStatus['human']>;
}

// In a file of its own so that a command can name its project without loading this one's imports.
export { projectScope, type ProjectScope } from './project-scope.js';
import type { ProjectScope } from './project-scope.js';

/** Whether `run` belongs to `project` (see the invariant above). */
export function inProject(run: RunSummary, project: ProjectScope): boolean {
  if (run.checkout !== undefined) return run.checkout === project.key;
  return run.cwd !== undefined && resolve(run.cwd) === project.root;
}

/** Several runs match where one was needed: lists them so the user can pick a run id. */
export class AmbiguousRunError extends CliError {
  override readonly name = 'AmbiguousRunError';
  constructor(
    target: string,
    readonly runs: RunSummary[],
    what: string,
  ) {
    super(
      `"${target}" matches ${runs.length} ${what}:\n${runs.map((r) => `  ${r.id}  ${r.status.toLowerCase()}  started ${r.startTime.toISOString()}`).join('\n')}`,
      'pass one of these run ids instead of the loop name',
      EXIT.usage,
    );
  }
}

export class RunNotFoundError extends CliError {
  override readonly name = 'RunNotFoundError';
  /** `elsewhere`: runs of that loop name in other projects, which a name does not reach. */
  constructor(
    target: string,
    what: string,
    readonly elsewhere: RunSummary[] = [],
    /** The loop file `target` names in the project, when it names one (a loop that never ran). */
    loopHere?: string,
  ) {
    super(
      elsewhere.length === 0 && loopHere !== undefined
        ? `loop ${target} has no ${what === 'run' ? 'runs' : `${what}s`} here yet`
        : elsewhere.length === 0
          ? `no ${what} matches "${target}"`
          : `no ${what} of this project matches "${target}"; runs of that name in other projects:\n${elsewhere
              .slice(0, 5)
              .map((r) => `  ${r.id}  ${r.status.toLowerCase()}  ${r.cwd ?? 'unknown project'}`)
              .join('\n')}${elsewhere.length > 5 ? `\n  … and ${elsewhere.length - 5} more` : ''}`,
      elsewhere.length === 0 && loopHere !== undefined
        ? `start one: ll-loop run ${target} (ll-loop list --running shows the runs under way)`
        : elsewhere.length === 0
          ? 'check the loop name or run id with ll-loop history <name> or ll-loop list --running'
          : "a loop name means the runs of the project you are in: pass the run id (it works from any project), run the command in that project, or see every project's runs with ll-loop list --running --all-projects",
      EXIT.usage,
    );
  }
}

/**
 * The error for a name that matched none of `project`'s runs, naming the runs of that name in
 * other projects when there are some (a name never reaches them; their run ids do).
 */
export async function runNotFound(
  client: Client,
  target: string,
  what: string,
  project?: ProjectScope,
): Promise<RunNotFoundError> {
  if (!project) return new RunNotFoundError(target, what);
  const elsewhere = await findRuns(client, target, { limit: 20 }).then(
    (runs) => runs.filter((r) => !inProject(r, project)),
    () => [],
  );
  const loopHere = projectLoopFile(target, project.root) ?? builtinLoopFile(target);
  return new RunNotFoundError(target, what, elsewhere, loopHere);
}

function quote(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** A memo `human` as workflows/run-status.ts writes it (anything else is ignored). */
function isHumanMemo(value: unknown): value is NonNullable<LoopStatus['human']> {
  if (!value || typeof value !== 'object') return false;
  const v = value as Record<string, unknown>;
  return ['state', 'prompt', 'ask', 'since', 'answer'].every((k) => typeof v[k] === 'string');
}

/** A run as listed (`WorkflowExecutionInfo`) or described: the fields both have. */
function summarize(info: Omit<WorkflowExecutionInfo, 'raw'>): RunSummary {
  const memo = (info.memo ?? {}) as {
    loop?: unknown;
    cwd?: unknown;
    version?: unknown;
    loop_version?: unknown;
    build_id?: unknown;
    action_queue?: unknown;
    parent?: unknown;
    human?: unknown;
  };
  const attr = (name: string): unknown => info.typedSearchAttributes?.getAll().find((p) => p.key.name === name)?.value;
  const loopAttr = attr('LoopName');
  const status = info.status.name;
  const summary: RunSummary = {
    id: info.workflowId,
    temporalRunId: info.runId,
    loop:
      typeof memo.loop === 'string'
        ? memo.loop
        : typeof loopAttr === 'string'
          ? loopAttr
          : info.workflowId.replace(/-\d{8}T\d{6}(-\d+)?$/, ''),
    status,
    open: status === 'RUNNING',
    taskQueue: info.taskQueue,
    startTime: info.startTime,
  };
  if (info.closeTime) summary.closeTime = info.closeTime;
  if (typeof memo.cwd === 'string') summary.cwd = memo.cwd;
  if (typeof memo.version === 'string') summary.version = memo.version;
  if (typeof memo.build_id === 'string') summary.buildId = memo.build_id;
  if (typeof memo.loop_version === 'string') summary.loopVersion = memo.loop_version;
  if (typeof memo.action_queue === 'string') summary.actionQueue = memo.action_queue;
  if (typeof memo.parent === 'string') summary.parent = memo.parent;
  if (isHumanMemo(memo.human)) summary.human = memo.human;
  const checkout = attr('LoopCheckout');
  if (typeof checkout === 'string' && checkout !== '') summary.checkout = checkout;
  const [loopStatus, loopState] = [attr('LoopStatus'), attr('LoopState')];
  if (typeof loopStatus === 'string') summary.loopStatus = loopStatus;
  if (typeof loopState === 'string') summary.loopState = loopState;
  return summary;
}

/**
 * `run` as the server holds it now. The listing that found it is Temporal's visibility store,
 * which records a run's close a moment after the run closed (the server updates it in the
 * background: under load, a second or more). A run it still shows open is asked for directly,
 * so that a command right after a run ends (`ll-loop status` when `run` returns) sees it
 * closed, with its result, instead of an open run no worker answers for. A run that is open, or
 * that the server cannot describe now, is returned as listed.
 */
export async function settledRun(client: Client, run: RunSummary): Promise<RunSummary> {
  if (!run.open) return run;
  try {
    const now = summarize(await client.workflow.getHandle(run.id).describe());
    return now.open ? run : now;
  } catch {
    return run;
  }
}

/**
 * The loop run with workflow id `id`, asked of the server directly: a run started a moment ago
 * that the listing does not show yet. Undefined when there is none (or it is no loop run).
 */
async function describedRun(client: Client, id: string): Promise<RunSummary | undefined> {
  try {
    const described = await client.workflow.getHandle(id).describe();
    return described.type === LOOP_WORKFLOW_TYPE ? summarize(described) : undefined;
  } catch (err) {
    // By name: this module loads no SDK code (only its types), for the commands that need none.
    if ((err as Error | undefined)?.name === 'WorkflowNotFoundError') return undefined;
    throw err;
  }
}

async function collect(client: Client, query: string, limit: number): Promise<RunSummary[]> {
  const out: RunSummary[] = [];
  // Up to 1,000 a page (the server's default cap): a long list in one round trip, not ten.
  for await (const info of client.workflow.list({ query, pageSize: Math.min(limit, 1000) })) {
    out.push(summarize(info));
    if (out.length >= limit) break;
  }
  return out;
}

/**
 * The runs `query` matches that belong to `project` (all of them without one). The server is
 * asked for the project's runs and the runs that carry no checkout (earlier releases), which are
 * told apart by their memo here; a server without LoopCheckout is asked without that clause.
 */
async function collectIn(client: Client, query: string, limit: number, project?: ProjectScope): Promise<RunSummary[]> {
  if (!project) return collect(client, query, limit);
  const runs = await collect(
    client,
    `${query} AND (LoopCheckout = ${quote(project.key)} OR LoopCheckout IS NULL)`,
    limit,
  ).catch(() => collect(client, query, limit));
  return runs.filter((r) => inProject(r, project));
}

/**
 * Refuses an empty run id or loop name (`ll-loop status ""`): no run has one, and Temporal would
 * answer the lookup with a raw "WorkflowId is not set on request".
 */
export function requireTarget(target: string): void {
  if (target.trim() === '')
    throw new CliError(
      `the run id or loop name is empty (${JSON.stringify(target)})`,
      'give a run id or a loop name; ll-loop list --running shows the open runs, ll-loop list --failed the failed ones, ll-loop history <loop> the runs of a loop',
      EXIT.usage,
    );
}

/**
 * Runs whose workflow id is `target` (from any project), or whose loop is named `target` (of
 * `project` only, when given), newest first. Matching by name uses the LoopName search
 * attribute, and the workflow-id prefix where the attribute is not registered.
 */
export async function findRuns(
  client: Client,
  target: string,
  opts: { openOnly?: boolean; limit?: number; project?: ProjectScope } = {},
): Promise<RunSummary[]> {
  requireTarget(target);
  const limit = opts.limit ?? 200;
  const open = opts.openOnly ? ` AND ExecutionStatus = 'Running'` : '';
  const base = `WorkflowType = ${quote(LOOP_WORKFLOW_TYPE)}${open}`;
  // A run id: as the server holds the run now, whatever the listing says yet (settledRun).
  for (const id of [target, scheduledRunId(target)]) {
    if (id === undefined) continue;
    const byId = await collect(client, `${base} AND WorkflowId = ${quote(id)}`, limit);
    const found = byId.length
      ? await Promise.all(dedupe(byId).map((r) => settledRun(client, r)))
      : [await describedRun(client, id)].filter((r) => r !== undefined);
    const kept = opts.openOnly ? found.filter((r) => r.open) : found;
    if (kept.length) return kept;
  }
  let byName: RunSummary[];
  try {
    byName = await collectIn(client, `${base} AND LoopName = ${quote(target)}`, limit, opts.project);
  } catch {
    byName = (
      await collectIn(client, `${base} AND WorkflowId STARTS_WITH ${quote(`${target}-`)}`, limit, opts.project)
    ).filter((r) => r.loop === target);
  }
  if (opts.project) byName.push(...(await unlistedRecentRuns(client, target, byName, opts.project)));
  const found = opts.openOnly ? byName.filter((r) => r.open) : byName;
  return dedupe(found).sort((a, b) => b.startTime.getTime() - a.startTime.getTime());
}

/**
 * The runs of loop `name` started in `project` lately that `listed` (the visibility listing)
 * does not show yet, asked of the server by the ids their files name (local-run-ids.ts).
 */
async function unlistedRecentRuns(
  client: Client,
  name: string,
  listed: RunSummary[],
  project: ProjectScope,
): Promise<RunSummary[]> {
  const since = Math.max(0, ...listed.map((r) => r.startTime.getTime()));
  const ids = recentLocalRunIds(project.root, name, since, new Set(listed.map((r) => r.id)));
  const described = await Promise.all(ids.map((id) => describedRun(client, id).catch(() => undefined)));
  return described.filter((r): r is RunSummary => r !== undefined && r.loop === name && inProject(r, project));
}

/**
 * Temporal's id of a scheduled run written as its files are named (host/run-files.ts
 * `runFileStem`): `…-2026-11-24T03-00-00Z` → `…-2026-11-24T03:00:00Z`. Undefined for other ids.
 */
export function scheduledRunId(target: string): string | undefined {
  const m = /^(.*-\d{4}-\d{2}-\d{2}T\d{2})-(\d{2})-(\d{2}(?:\.\d+)?Z)$/.exec(target);
  return m ? `${m[1]}:${m[2]}:${m[3]}` : undefined;
}

/**
 * The loop runs of `project` (of every project without one), newest first (for `list --running`,
 * `list --failed` and history without a name); `where` narrows them with a visibility query.
 */
export async function listRuns(
  client: Client,
  opts: { openOnly?: boolean; limit?: number; where?: string; project?: ProjectScope } = {},
): Promise<RunSummary[]> {
  const open = opts.openOnly ? ` AND ExecutionStatus = 'Running'` : '';
  const where = opts.where ? ` AND (${opts.where})` : '';
  const runs = await collectIn(
    client,
    `WorkflowType = ${quote(LOOP_WORKFLOW_TYPE)}${open}${where}`,
    opts.limit ?? 200,
    opts.project,
  );
  return dedupe(runs).sort((a, b) => b.startTime.getTime() - a.startTime.getTime());
}

/** A continued-as-new chain shares one workflow id: keep its newest execution. */
function dedupe(runs: RunSummary[]): RunSummary[] {
  const byId = new Map<string, RunSummary>();
  for (const run of runs) {
    const seen = byId.get(run.id);
    if (!seen || seen.startTime < run.startTime) byId.set(run.id, run);
  }
  return [...byId.values()];
}
