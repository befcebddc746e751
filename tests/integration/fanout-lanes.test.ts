/**
 * Fan-out items in lanes (the `laneItems` rule, workflows/fanout-lanes.ts) on a real Temporal
 * server: the items of a quick loop run inside the parent's workflow, their actions as bursts, no
 * child run started; each once, never more than `max_workers` at once (from the actions' own start
 * and end times), joined in item order with their captured values; a failing item; fail_fast; a
 * stopped parent; a continue-as-new mid-fan-out; the history replays; `logs --item` names where an
 * item's result is. Without the rule (a run of
 * an older release) the same items are child workflows, as they were.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { temporal as temporal_ } from '@temporalio/proto';
import type { Connection } from '@temporalio/client';
import { afterAll, describe, expect, it } from 'vitest';
import { formatDiagnostic } from '../../fsm/diagnostics.js';
import type { LoopDefinition } from '../../fsm/schema.js';
import type { ParallelItemResult } from '../../fsm/types.js';
import { loadLoopFile } from '../../loader/load.js';
import { replayExecution } from '../../worker/replay-events.js';
import { logsRunOf } from '../../runs/follow/logs-report.js';
import { actionResultsOf } from '../../runs/follow/action-results.js';
import type { HistoryEvent } from '../../runs/find/temporal-history.js';
import { liveProcesses, waitFor } from '../support/processes.js';
import { closeTemporal, project, runLoop, temporal, toolEnv, type RunOutcome } from './harness.js';

afterAll(closeTemporal);

/** As `ll-loop run` starts a run: quick shell actions (timeout ≤ 30 s) are local activities. */
const QUICK = { localActivityMaxTimeoutS: 30 };

/** A quick item loop: marks its start and end in marks/<item>, captures its output, fails for bad*. */
function work(secs: number, marker = 'lanes-it'): string {
  return `
name: work
description: one item
initial: run
parameters:
  item: { type: string, required: true }
states:
  run:
    action: |
      echo "start $(date +%s%N)" >> "marks/\${context.item}"
      sleep ${secs} # ${marker}
      echo "end $(date +%s%N)" >> "marks/\${context.item}"
      echo "did \${context.item}"
      case "\${context.item}" in bad*) exit 1;; esac
    timeout: 20
    capture: out
    on_yes: done
    on_no: failed
  done: { terminal: true }
  failed: { terminal: true, failure: true }
`;
}

function fan(items: string[], more = ''): string {
  return `
name: fan
description: fan-out
initial: fan
states:
  fan:
    parallel:
      items: ${JSON.stringify(items)}
      loop: work
      with: { item: "\${item}" }
      max_workers: 3${more}
    on_yes: done
    on_no: gave_up
  done: { terminal: true }
  gave_up: { terminal: true, failure: true }
`;
}

function setUp(files: Record<string, string>) {
  const p = project();
  mkdirSync(join(p.cwd, '.loops'));
  mkdirSync(join(p.cwd, 'marks'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(p.cwd, '.loops', `${name}.yaml`), text);
  const loaded = loadLoopFile(join(p.cwd, '.loops', 'fan.yaml'), {}, p.cwd);
  if (!loaded.definition) throw new Error(loaded.diagnostics.map(formatDiagnostic).join('\n'));
  return { p, def: loaded.definition as LoopDefinition };
}

/** Each item's runs from its marks file: how many started, and [start, end] (µs) of those that ended. */
function marks(cwd: string): Map<string, { starts: number; spans: [number, number][] }> {
  const out = new Map<string, { starts: number; spans: [number, number][] }>();
  for (const name of readdirSync(join(cwd, 'marks'))) {
    const lines = readFileSync(join(cwd, 'marks', name), 'utf8')
      .trim()
      .split('\n');
    const time = (l: string) => Number(BigInt(l.split(' ')[1]!) / 1000n);
    const starts = lines.filter((l) => l.startsWith('start')).map(time);
    const ends = lines.filter((l) => l.startsWith('end')).map(time);
    out.set(name, { starts: starts.length, spans: ends.map((e, i) => [starts[i]!, e]) });
  }
  return out;
}

function peak(spans: [number, number][]): number {
  const points = spans.flatMap(([s, e]) => [
    [s, 1],
    [e, -1],
  ]);
  points.sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!);
  let now = 0;
  let most = 0;
  for (const [, d] of points) most = Math.max(most, (now += d!));
  return most;
}

function joined(run: RunOutcome) {
  return run.snapshot!.captured.fan as unknown as { results: ParallelItemResult[]; succeeded: number; count: number };
}

/** The event types of the run's history, all of its executions (continue-as-new) included. */
async function historyTypes(workflowId: string): Promise<string[]> {
  const { client } = await temporal();
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).map((e) => temporal_.api.enums.v1.EventType[e.eventType ?? 0] ?? '');
}

const ITEMS = ['i0', 'i1', 'i2', 'bad3', 'i4', 'i5', 'i6', 'i7'];

describe('fan-out items in lanes', () => {
  it("with laneItems a quick loop's items run in the parent's lanes: each once, max_workers at once, joined in order, no child run", async () => {
    const { p, def } = setUp({ work: work(0.4), fan: fan(ITEMS) });
    const run = await runLoop(def, { cwd: p.cwd, env: toolEnv(p), ...QUICK, laneItems: true });
    expect(run.result.final_state).toBe('gave_up'); // some failed, no on_partial: on_no
    const seen = marks(p.cwd);
    expect([...seen.keys()].sort()).toEqual([...ITEMS].sort());
    for (const [item, m] of seen) expect(m.starts, `item ${item} ran once`).toBe(1);
    const most = peak([...seen.values()].flatMap((m) => m.spans));
    expect(most).toBeLessThanOrEqual(3);
    expect(most).toBeGreaterThanOrEqual(2);
    const join = joined(run);
    expect(join).toMatchObject({ count: 8, succeeded: 7 });
    expect(join.results.map((r) => [r.index, r.item, r.outcome, r.terminated_by, r.final_state])).toEqual(
      ITEMS.map((item, i) => [
        i,
        item,
        item === 'bad3' ? 'no' : 'yes',
        'terminal',
        item === 'bad3' ? 'failed' : 'done',
      ]),
    );
    // No run of its own: no run id; what it captured is in the join.
    expect(join.results.every((r) => r.run_id === undefined)).toBe(true);
    expect(join.results.map((r) => (r.captured?.out as { output?: string } | undefined)?.output?.trim())).toEqual(
      ITEMS.map((item) => `did ${item}`),
    );
    const names = run.events.map((e) => e.event);
    expect(names.filter((n) => n === 'item_done')).toHaveLength(8);
    expect(names.lastIndexOf('item_done')).toBeLessThan(names.indexOf('fanout_join'));
    expect(run.childEvents).toEqual([]);
    const types = await historyTypes(run.workflowId);
    expect(types.filter((t) => t.includes('START_CHILD_WORKFLOW'))).toEqual([]);
    expect(types.filter((t) => t.includes('MARKER_RECORDED')).length).toBeGreaterThanOrEqual(8);
    // The history replays without non-determinism, giving the live events.
    const { client } = await temporal();
    const replayed = await replayExecution(
      await client.workflow.getHandle(run.workflowId).fetchHistory(),
      run.workflowId,
    );
    expect(replayed.error).toBeUndefined();
    expect(replayed.events).toEqual(run.events);
    // `ll-loop logs` pairs the run's own actions with their outputs: the items' bursts are not among them.
    const history = await client.workflow.getHandle(run.workflowId).fetchHistory();
    const completes = run.events.filter((e) => e.event === 'action_complete').map((e) => e.exit_code);
    expect(actionResultsOf((history.events ?? []) as HistoryEvent[]).map((r) => r.exit_code)).toEqual(completes);
    // `ll-loop logs --item` says the item has no run of its own, and where its result is.
    await expect(
      logsRunOf(
        { client, connection: client.connection as Connection },
        { cwd: p.cwd, target: run.workflowId, item: 2 },
      ),
    ).rejects.toThrow(`item 2 of run ${run.workflowId} runs inside the run`);
  });

  it('without laneItems (an older release) the same items run as child workflows', async () => {
    const { p, def } = setUp({ work: work(0), fan: fan(ITEMS.slice(0, 4)) });
    const run = await runLoop(def, { cwd: p.cwd, env: toolEnv(p), ...QUICK });
    expect(joined(run).results.map((r) => [r.outcome, r.run_id])).toEqual(
      ITEMS.slice(0, 4).map((item, i) => [item === 'bad3' ? 'no' : 'yes', `${run.workflowId}.fan.1.${i}`]),
    );
    const types = await historyTypes(run.workflowId);
    expect(types.filter((t) => t.includes('START_CHILD_WORKFLOW_EXECUTION_INITIATED'))).toHaveLength(4);
  });

  it('with laneItems fail_fast stops the running lane items (their processes killed) and skips the rest', async () => {
    const marker = `lanes-ff-${process.pid}-${Date.now()}`;
    const items = ['bad0', 'slow1', 'slow2', 'slow3', 'slow4'];
    const { p, def } = setUp({
      work: work(15, marker).replace('sleep 15', 'case "${context.item}" in bad*) sleep 0.3;; *) sleep 15;; esac'),
      fan: fan(items, '\n      fail_mode: fail_fast'),
    });
    const started = Date.now();
    const run = await runLoop(def, { cwd: p.cwd, env: toolEnv(p), ...QUICK, laneItems: true });
    expect(Date.now() - started).toBeLessThan(12_000); // not the 15 s the running items would sleep
    expect(joined(run).results.map((r) => r.outcome)).toEqual(['no', 'cancelled', 'cancelled', 'skipped', 'skipped']);
    expect(readdirSync(join(p.cwd, 'marks')).sort()).toEqual(['bad0', 'slow1', 'slow2']);
    expect(liveProcesses(marker)).toBe(0);
  });

  it('with laneItems stopping the parent stops its running lane items and kills their processes', async () => {
    const marker = `lanes-stop-${process.pid}-${Date.now()}`;
    const { p, def } = setUp({ work: work(15, marker), fan: fan(['a', 'b', 'c', 'd']) });
    const { client } = await temporal();
    const run = await runLoop(def, {
      cwd: p.cwd,
      env: toolEnv(p),
      ...QUICK,
      laneItems: true,
      stopInBursts: true,
      onStarted: async (workflowId) => {
        await waitFor('three items running', () => liveProcesses(marker) >= 3, 30_000);
        await client.workflow.getHandle(workflowId).cancel();
      },
    });
    expect(run.result.terminated_by).toBe('cancelled');
    expect(liveProcesses(marker)).toBe(0);
    expect(readdirSync(join(p.cwd, 'marks')).sort()).toEqual(['a', 'b', 'c']);
  });

  it('with laneItems a fan-out longer than the history limit continues as new and runs each item once', async () => {
    const items = Array.from({ length: 14 }, (_, i) => `n${i}`);
    // 0.5 s items: the lanes flush after 1 s of action time a lane, and the history grows with each flush.
    const { p, def } = setUp({ work: work(0.5), fan: fan(items) });
    const run = await runLoop(def, { cwd: p.cwd, env: toolEnv(p), ...QUICK, laneItems: true, historyEventLimit: 20 });
    expect(run.result.final_state).toBe('done');
    const seen = marks(p.cwd);
    expect(seen.size).toBe(14);
    for (const [item, m] of seen) expect(m.starts, `item ${item} ran once`).toBe(1);
    expect(joined(run).results.map((r) => r.item)).toEqual(items);
    const { client } = await temporal();
    const executions = [];
    for await (const e of client.workflow.list({ query: `WorkflowId = '${run.workflowId}'` })) executions.push(e);
    expect(executions.length).toBeGreaterThan(1);
  });
});
