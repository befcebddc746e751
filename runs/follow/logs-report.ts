/**
 * The report `ll-loop logs` prints (without --follow): the run the target names (a run id, or a
 * loop name: its open run, else its latest; with an item, that item's child run), then every
 * action that ended and a person's part, read from the run's history and its files on this host.
 * Made by the command on its own session, or by the checkout's worker for it (worker/socket/requests.ts).
 */
import type { Client, Connection } from '@temporalio/client';
import { UsageError } from '../../errors/errors.js';
import { actionLogCollector, type ActionLogRecord } from './action-logs.js';
import { followEvents } from './follow-events.js';
import { personRecord, type PersonRecord } from './person-events.js';
import type { LoopWorkflowInput } from '../../workflows/definitions.js';
import { carriedResults } from '../../workflows/fanout-carry.js';
import { unknownState } from './logs-state.js';
import { projectScope, type RunSummary } from '../find/find-runs.js';
import { queryStatus, resolveRun } from '../find/run-target.js';

/** Which run's logs, and which of them. */
export interface LogsQuery {
  /** The command's directory (its project: a loop name means this project's runs). */
  cwd: string;
  /** A run id or a loop name, as given to the command. */
  target: string;
  /** Only actions (and a person's events) of this state. */
  state?: string;
  /** A parallel state's item: that item's child run instead. */
  item?: number;
}

/** What `logs --json` prints, and what the human output is made from. */
export interface LogsReport {
  id: string;
  loop: string;
  /** Temporal's execution status, lower case. */
  status: string;
  /** The run was still open when its history was read. */
  open: boolean;
  /** The actions that ended, in time order (a sub-loop's among its parent's). */
  actions: ActionLogRecord[];
  /** A person's part: waits, answers, deadlines, pauses, steers. */
  people: PersonRecord[];
  /** Notes for stderr (e.g. a sub-loop whose history could not be read). */
  warnings: string[];
}

/** The run a query names: the target's, or its item's child run. */
export async function logsRunOf(
  session: { client: Client; connection: Connection },
  q: LogsQuery,
): Promise<RunSummary> {
  const { client, connection } = session;
  const parent = await resolveRun(client, q.target, { latest: true, project: projectScope(q.cwd) });
  if (q.item === undefined) return parent;
  return resolveRun(client, await itemRunId(client, connection, parent.id, q.item), { latest: true });
}

export async function logsReportOf(
  session: { client: Client; connection: Connection },
  q: LogsQuery,
): Promise<LogsReport> {
  const run = await logsRunOf(session, q);
  const actions: ActionLogRecord[] = [];
  const people: PersonRecord[] = [];
  // Every state the run has or ran in (a sub-loop's included), for an unknown --state.
  const states = new Set<string>();
  const collect = actionLogCollector(run.id, (r) => {
    states.add(r.state);
    if (q.state === undefined || r.state === q.state) actions.push(r);
  });
  const followed = await followEvents(session.client, run.id, {
    follow: false,
    children: true,
    actionOutput: true,
    onInput: (input) => Object.keys(input.definition.states).forEach((s) => states.add(s)),
    onEvent: (event) => {
      collect(event);
      const p = personRecord(event);
      if (p && p.state !== '?') states.add(p.state);
      if (p && (q.state === undefined || p.state === q.state)) people.push(p);
    },
  });
  const unknown = q.state === undefined || states.size === 0 ? undefined : unknownState(run.id, q.state, states);
  if (unknown) throw unknown;
  // A sub-loop's history is read beside its parent's, so its actions may arrive first: order by time.
  const ordered = actions
    .map((r, i) => ({ r, i }))
    .sort((a, b) => a.r.ts.localeCompare(b.r.ts) || a.i - b.i)
    .map(({ r }) => r);
  return {
    id: run.id,
    loop: run.loop,
    status: run.status.toLowerCase(),
    open: followed.end === undefined,
    actions: ordered,
    people,
    warnings: followed.warnings,
  };
}

/**
 * The child run of item `index` of a parallel state of run `id`: a running item's from the run's
 * status, else the last that ended with that index in its events (a later pass's over an earlier).
 */
async function itemRunId(client: Client, connection: Connection, id: string, index: number): Promise<string> {
  const live = await queryStatus(connection, client.workflow.getHandle(id)).catch(() => null);
  const running = live?.fanout?.running.find((r) => r.index === index);
  if (running?.lane) throw inLane(id, index);
  if (running) return running.run_id;
  let ended: string | undefined;
  let laneEnded = false;
  let items = 0;
  let input: LoopWorkflowInput | undefined;
  await followEvents(client, id, {
    follow: false,
    onInput: (given) => (input = given),
    onEvent: (event) => {
      if (event.event === 'fanout_start') items = Math.max(items, Number(event.count));
      if (event.event === 'item_done' && event.index === index && typeof event.run_id === 'string')
        ended = event.run_id;
      else if (event.event === 'item_done' && event.index === index && event.outcome !== 'skipped') laneEnded = true;
    },
  });
  if (ended !== undefined) return ended;
  if (laneEnded) throw inLane(id, index);
  // An item a resumed run carried from the run it resumed ended there, under that run's id.
  const fanout = input?.continueFrom?.fanout;
  const carried = fanout ? carriedResults(fanout).find((r) => r.index === index) : undefined;
  if (carried?.run_id !== undefined) return carried.run_id;
  throw new UsageError(
    items === 0
      ? `run ${id} has no parallel state that ran items`
      : index >= items
        ? `run ${id}'s fan-out has items 0 to ${items - 1}, not ${index}`
        : `item ${index} of run ${id} has not started yet`,
    items === 0
      ? `ll-loop logs ${id} shows its own actions`
      : `ll-loop status ${id} shows which items run and which ended`,
  );
}

/** Item `index` of run `id` ran inside it (a quick loop's item: workflows/fanout-lanes.ts), with no run of its own. */
function inLane(id: string, index: number): UsageError {
  return new UsageError(
    `item ${index} of run ${id} runs inside the run (its loop is quick shell actions), with no run or logs of its own`,
    `its result (captured values included) is entry ${index} of the join, \${captured.<state>.results}; ` +
      'an action timeout over 30 s gives each item a run of its own',
  );
}
