/**
 * Where `ll-loop rerun --from STATE[#N]` starts: the snapshot a run had when it entered the N-th
 * visit of STATE (default the last). The run's history is replayed through the workflow bundle
 * (worker/replay-events.ts) — every execution of its continue-as-new chain — which gives its
 * events and each state it reported after a transition; the snapshot is the first report at or
 * after that `state_enter`, set back to the moment of entering: that state, its pass, the states
 * of the pass so far and the steps before it. Captured values are as they were then (an action's
 * capture happens only when it ends). Runs of earlier releases replay the same way.
 */
import type { Client } from '@temporalio/client';
import type { RunStreamEvent } from '../../fsm/run/events.js';
import { upgradeSnapshot } from '../../fsm/run/snapshot-upgrade.js';
import type { Snapshot } from '../../fsm/run/snapshot.js';
import { closest } from '../../fsm/suggest.js';
import { HistoryReplayer } from '../../worker/replay-events.js';
import type { RunStateFile } from '../../workflows/definitions.js';
import { CliError, UsageError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { GRPC } from '../../errors/grpc-status.js';
import { historyPages, type HistoryEvent } from '../find/temporal-history.js';

/** `STATE` or `STATE#N` (N ≥ 1). */
export interface ForkTarget {
  state: string;
  visit?: number;
}

export function parseFrom(text: string): ForkTarget {
  const m = /^([^#\s]+)(?:#(\d+))?$/.exec(text);
  const visit = m?.[2] === undefined ? undefined : Number(m[2]);
  if (!m || visit === 0)
    throw new UsageError(
      `--from "${text}" is not STATE or STATE#N`,
      'write --from fix or --from fix#2 (the 2nd visit)',
    );
  return { state: m[1]!, ...(visit === undefined ? {} : { visit }) };
}

/** The run's history is gone (deleted, or past the namespace's retention). */
export class HistoryGoneError extends CliError {
  override readonly name = 'HistoryGoneError';
  constructor(id: string, why: string) {
    super(
      `cannot rerun ${id}: ${why}`,
      'a rerun needs the run’s history (Temporal keeps closed runs for the namespace’s retention period); start a new run with ll-loop run <loop>',
      EXIT.runError,
    );
  }
}

export interface ForkPoint {
  snapshot: Snapshot;
  /** The `state_enter` event's number in the old run. */
  event: number;
  /** Which visit of the state it is, and how many there were. */
  visit: number;
  visits: number;
}

/** Every execution's history, in order (empty when the run has none any more). */
async function executions(client: Client, id: string): Promise<HistoryEvent[][]> {
  const out: Array<{ runId: string; events: HistoryEvent[] }> = [];
  try {
    for await (const page of historyPages(client, id)) {
      if (out.at(-1)?.runId !== page.runId) out.push({ runId: page.runId, events: [] });
      out.at(-1)!.events.push(...page.events);
    }
  } catch (err) {
    if ((err as { code?: number }).code === GRPC.notFound || /not found/i.test((err as Error).message)) return [];
    throw err;
  }
  return out.map((e) => e.events);
}

type Enter = Extract<RunStreamEvent, { event: 'state_enter' }>;

/** The states of the pass up to `enter` (inclusive), read from the events before it. */
function visitedAt(events: RunStreamEvent[], at: number): string[] {
  const enter = events[at] as Enter;
  const states: string[] = [];
  for (let i = at; i >= 0; i -= 1) {
    const e = events[i]!;
    if (e.event === 'maintain_restart' || e.event === 'loop_resume' || e.event === 'loop_fork') break;
    if (e.event !== 'state_enter') continue;
    if (e.iteration !== enter.iteration) break;
    states.unshift(e.state);
  }
  return states;
}

/** The snapshot run `id` had when it entered `target`, from its history. */
export async function forkPoint(client: Client, id: string, target: ForkTarget, known: string[]): Promise<ForkPoint> {
  const histories = await executions(client, id);
  if (histories.length === 0) throw new HistoryGoneError(id, 'its history is gone');
  return forkPointIn(histories, id, target, known);
}

/** The same, from the histories of the run's executions (first to last). */
async function forkPointIn(
  histories: HistoryEvent[][],
  id: string,
  target: ForkTarget,
  known: string[],
): Promise<ForkPoint> {
  const replayer = new HistoryReplayer({ everyState: true });
  try {
    return forkPointOf(await replayRun(histories, id, replayer), id, target, known);
  } finally {
    await replayer.close();
  }
}

/** What a run's replay gave: its events, every state it reported, and why it stopped early if it did. */
export interface ReplayedRun {
  events: RunStreamEvent[];
  states: RunStateFile[];
  failed?: Error;
}

/** Replay the run's executions, first to last, with `replayer` (made with `everyState`). */
export async function replayRun(
  histories: HistoryEvent[][],
  id: string,
  replayer: HistoryReplayer,
): Promise<ReplayedRun> {
  const run: ReplayedRun = { events: [], states: [] };
  for (const history of histories) {
    const replayed = await replayer.replay({ events: history }, id);
    run.events.push(...replayed.events);
    run.states.push(...(replayed.states ?? []));
    if (replayed.error) {
      run.failed = replayed.error;
      break;
    }
  }
  return run;
}

/** The fork point of `target` in a replayed run: pure, so one replay serves every visit asked for. */
export function forkPointOf(run: ReplayedRun, id: string, target: ForkTarget, known: string[]): ForkPoint {
  const { events, states, failed } = run;
  const enters = events.flatMap((e, i) => (e.event === 'state_enter' && e.state === target.state ? [i] : []));
  if (enters.length === 0) {
    if (!known.includes(target.state)) {
      const near = closest(target.state, known);
      throw new UsageError(
        `loop of run ${id} has no state "${target.state}"${near ? ` (did you mean "${near}"?)` : ''}`,
        `--from one of: ${known.join(', ')}`,
      );
    }
    const entered = [...new Set(events.flatMap((e) => (e.event === 'state_enter' ? [e.state] : [])))];
    const why = failed ? ` (this ll-loop could read its history only in part: ${failed.message.split('\n')[0]})` : '';
    throw new UsageError(
      `run ${id} never entered state "${target.state}"${why}`,
      entered.length ? `--from one of the states it entered: ${entered.join(', ')}` : 'the run entered no state',
    );
  }
  const visits = enters.length;
  const visit = target.visit ?? visits;
  if (visit > visits)
    throw new UsageError(
      `run ${id} entered state "${target.state}" ${visits} time${visits === 1 ? '' : 's'}, not ${visit}`,
      `--from ${target.state}#${visits} is its last visit (or leave out #N)`,
    );
  const at = enters[visit - 1]!;
  const enter = events[at] as Enter;
  const report = states.find((s) => s.seq >= enter.seq) ?? states.at(-1);
  if (report === undefined) throw new HistoryGoneError(id, 'its history holds no state it reported');
  const steps = events.slice(0, at).filter((e) => e.event === 'state_enter').length;
  const snapshot = {
    ...upgradeSnapshot(report.snapshot),
    current: target.state,
    iteration: enter.iteration,
    visited: visitedAt(events, at),
    steps,
  } as Snapshot;
  return { snapshot, event: enter.seq, visit, visits };
}
