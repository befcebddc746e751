/**
 * A fan-out of 2,000 items of a quick loop on a real Temporal server: in the parent's lanes
 * (the `laneItems` rule) every item runs once and is joined once, in item order, and the run's
 * history stays far within Temporal's limits (a flush per 100 bursts).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ParallelItemResult } from '../../fsm/types.js';
import { closeTemporal, definition, project, runLoop, temporal, toolEnv } from './harness.js';

afterAll(closeTemporal);

const ITEM = `
name: mark
description: one item
initial: run
parameters:
  n: { type: string, required: true }
states:
  run:
    action: echo \${context.n} >> ran.log
    timeout: 10
    next: done
  done: { terminal: true }
`;

describe('a fan-out of many items', () => {
  it('2,000 quick items in lanes: each runs once, joined once in order, the history within limits', async () => {
    const p = project();
    mkdirSync(join(p.cwd, '.loops'));
    writeFileSync(join(p.cwd, '.loops', 'mark.yaml'), ITEM);
    const count = 2000;
    const items = Array.from({ length: count }, (_, i) => `n${i}`);
    const def = definition({
      name: 'many',
      initial: 'fan',
      states: {
        fan: {
          parallel: { items, loop: 'mark', with: { n: '${item}' }, max_workers: 50 },
          on_yes: 'done',
          on_no: 'failed',
        },
        done: { terminal: true },
        failed: { terminal: true, failure: true },
      },
    });
    const run = await runLoop(def, { cwd: p.cwd, env: toolEnv(p), localActivityMaxTimeoutS: 30, laneItems: true });
    expect(run.result.final_state).toBe('done');
    const ran = readFileSync(join(p.cwd, 'ran.log'), 'utf8').trim().split('\n');
    expect(ran).toHaveLength(count);
    expect(new Set(ran).size).toBe(count);
    const join_ = run.snapshot!.captured.fan as unknown as {
      results: ParallelItemResult[];
      succeeded: number;
      unlisted: number;
    };
    expect(join_.succeeded).toBe(count);
    // Past 1,000 items the join lists 1,000 (here all succeeded: the first, in item order).
    expect(join_.results.map((r) => r.item)).toEqual(items.slice(0, 1000));
    expect(join_.unlisted).toBe(count - 1000);
    const done = run.events.filter((e) => e.event === 'item_done').map((e) => Number(e.index));
    expect(done.sort((a, b) => a - b)).toEqual(items.map((_, i) => i));
    const { client } = await temporal();
    const history = await client.workflow.getHandle(run.workflowId).fetchHistory();
    // One marker per item's burst, flushed 100 at a time: about 1.1 events an item.
    expect(history.events!.length).toBeLessThan(count * 1.5);
  }, 300_000);
});
