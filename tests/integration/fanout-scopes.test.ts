/**
 * Scope locks of a fan-out's items (the `itemScopes` rule) on the real dev server: two items
 * whose loop declares `scope: [src]` on the parent's checkout run one after the other, never at
 * once, and neither is refused; an item on `docs` runs beside them. Each item's action marks itself running, looks
 * for another running item, and says whom it saw.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fanoutLines } from '../../reporters/fanout-line.js';
import type { ParallelItemResult } from '../../fsm/types.js';
import type { FanoutStatus } from '../../workflows/definitions.js';
import { statusQuery } from '../../workflows/definitions.js';
import { closeTemporal, definition, project, runLoop, temporal, toolEnv } from './harness.js';
import { waitFor } from '../support/processes.js';

afterAll(closeTemporal);

/**
 * An item looks for another running item of the names `looksFor` matches, for `waitS` seconds
 * at most: once it saw one it says so (`<item>.saw`) and leaves, and an item that finds another
 * saw it leaves too (they ran at once, nothing more to learn), instead of looking out its time.
 */
function fanProject(waitS: number) {
  const p = project();
  mkdirSync(join(p.cwd, '.loops'));
  mkdirSync(join(p.cwd, 'marks'));
  const loop = (name: string, scope: string, looksFor: string) => `
name: ${name}
initial: work
scope: [${scope}]
parameters:
  item: { type: string, required: true }
states:
  work:
    action: |
      echo "start $(date +%s%N)" >> "marks/\${context.item}.log"
      touch "marks/\${context.item}.running"
      seen=
      for i in $(seq ${waitS * 10}); do
        for f in marks/${looksFor}*.running; do
          [ -e "$f" ] && [ "$f" != "marks/\${context.item}.running" ] && seen=$(basename "$f" .running)
        done
        [ -n "$seen" ] && touch "marks/\${context.item}.saw" && break
        for f in marks/${looksFor}*.saw; do
          [ -e "$f" ] && [ "$f" != "marks/\${context.item}.saw" ] && break 2
        done
        sleep 0.1
      done
      rm "marks/\${context.item}.running"
      echo "end $(date +%s%N)" >> "marks/\${context.item}.log"
      echo "seen=$seen"
    capture: seen
    next: done
  done: { terminal: true }
`;
  writeFileSync(join(p.cwd, '.loops', 'edit-src.yaml'), loop('edit-src', 'src', 'src'));
  writeFileSync(join(p.cwd, '.loops', 'edit-docs.yaml'), loop('edit-docs', 'docs', 'src'));
  return p;
}

const fan = definition({
  name: 'fan-scopes',
  initial: 'fan',
  states: {
    fan: {
      parallel: {
        branches: [
          { loop: 'edit-src', with: { item: 'src-a' } },
          { loop: 'edit-src', with: { item: 'src-b' } },
          { loop: 'edit-docs', with: { item: 'docs' } },
        ],
        max_workers: 3,
      },
      on_yes: 'done',
      on_no: 'gave_up',
    },
    done: { terminal: true },
    gave_up: { terminal: true, failure: true },
  },
});

function seen(run: Awaited<ReturnType<typeof runLoop>>): string[] {
  const results = (run.result.captured['fan'] as unknown as { results: ParallelItemResult[] }).results;
  expect(results.map((r) => r.outcome)).toEqual(['yes', 'yes', 'yes']);
  return results.map((r) => String(r.captured?.['seen']?.output));
}

const span = (cwd: string, item: string) => {
  const lines = readFileSync(join(cwd, 'marks', `${item}.log`), 'utf8')
    .trim()
    .split('\n');
  const at = (prefix: string) => BigInt(lines.find((l) => l.startsWith(prefix))!.split(' ')[1]!);
  return { start: at('start'), end: at('end') };
};

describe('scope locks of fan-out items', () => {
  it('with itemScopes items on the same scope run one after the other; others run at once', async () => {
    const p = fanProject(3);
    const { client } = await temporal();
    let waiting: FanoutStatus['waiting'];
    let lines: string[] = [];
    const run = await runLoop(fan, {
      cwd: p.cwd,
      env: toolEnv(p),
      itemScopes: true,
      // While one src item runs, `status` shows the other waiting for the scope it holds.
      onStarted: async (workflowId) => {
        const running = () => readdirSync(join(p.cwd, 'marks')).some((f) => /^src-[ab]\.running$/.test(f));
        await waitFor('a src item running', running, 60_000);
        const live = await client.workflow.getHandle(workflowId).query(statusQuery);
        waiting = live.fanout?.waiting;
        lines = live.fanout ? fanoutLines(live.fanout) : [];
      },
    });
    expect(waiting).toHaveLength(1);
    expect([0, 1]).toContain(waiting![0]!.index);
    expect(waiting![0]!.scopes).toEqual(['src']);
    expect(lines[0]).toMatch(/^fan: \d\/3 done, \d running, 1 waiting for a scope$/);
    expect(lines).toContain(`item ${waiting![0]!.index}: waiting for src (another item holds it)`);
    // Neither src item saw the other running; the docs item saw one of them (it did not wait).
    const [a, b, docs] = seen(run);
    expect([a, b]).toEqual(['seen=', 'seen=']);
    expect(docs).toMatch(/^seen=src-[ab]$/);
    const first = span(p.cwd, 'src-a');
    const second = span(p.cwd, 'src-b');
    expect(second.start).toBeGreaterThan(first.end);
  }, 120_000);
});
