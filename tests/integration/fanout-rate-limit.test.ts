/**
 * A rate-limit pause of one fan-out item holds its running siblings (the `shareRateLimits` rule)
 * on the real dev server: the host CLI (a scripted fake) answers the first item's prompt with a
 * 429 and `retry-after: 6`; the second item, let go only once that pause began, makes its own
 * prompt call no earlier than the instant the first waits for.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { temporal as temporalApi } from '@temporalio/proto';
import { afterAll, describe, expect, it } from 'vitest';
import type { ParallelItemResult } from '../../fsm/types.js';
import { closeTemporal, definition, project, runLoop, script, temporal, toolEnv } from './harness.js';

afterAll(closeTemporal);

type HistoryEvent = temporalApi.api.history.v1.IHistoryEvent;
const LIMIT_429 =
  'API Error: 429 {"type":"error","error":{"type":"rate_limit_error","message":"rate limited"}} retry-after: 6';

function fanProject() {
  const p = project(['agent']);
  mkdirSync(join(p.cwd, '.loops'));
  mkdirSync(join(p.cwd, 'marks'));
  script(p.toolsDir, 'agent', [
    [1, LIMIT_429],
    [0, 'fixed'],
    [0, 'fixed'],
  ]);
  const prompt = (name: string) =>
    `  fix:\n    action: Fix ${name}\n    action_type: prompt\n    evaluate: { type: exit_code }\n    on_yes: done\n    on_no: failed\n    on_error: failed\n  done: { terminal: true }\n  failed: { terminal: true, failure: true }\n`;
  writeFileSync(join(p.cwd, '.loops', 'first.yaml'), `name: first\ninitial: fix\nstates:\n${prompt('first')}`);
  const go = join(p.cwd, 'marks', 'go');
  writeFileSync(
    join(p.cwd, '.loops', 'second.yaml'),
    `name: second\ninitial: wait\nstates:\n  wait:\n    action: 'for i in $(seq 1200); do [ -f ${go} ] && exit 0; sleep 0.1; done; exit 1'\n    next: fix\n${prompt('second')}`,
  );
  return { ...p, go };
}

const fan = definition({
  name: 'fan-limits',
  initial: 'fan',
  states: {
    fan: { parallel: { branches: ['first', 'second'], max_workers: 2 }, on_yes: 'done', on_no: 'gave_up' },
    done: { terminal: true },
    gave_up: { terminal: true, failure: true },
  },
});

async function history(id: string): Promise<HistoryEvent[]> {
  const { client } = await temporal();
  try {
    return (await client.workflow.getHandle(id).fetchHistory()).events ?? [];
  } catch {
    return [];
  }
}

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const ms = (e: HistoryEvent): number =>
  Number(e.eventTime!.seconds!.toString()) * 1000 + (e.eventTime!.nanos ?? 0) / 1e6;
const signalled = (events: HistoryEvent[], name: string) =>
  events.filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === name);
const lastActivity = (events: HistoryEvent[]) => events.filter((e) => e.activityTaskScheduledEventAttributes).at(-1)!;
const payload = (e: HistoryEvent): Record<string, unknown> =>
  JSON.parse(
    Buffer.from(e.workflowExecutionSignaledEventAttributes!.input!.payloads![0]!.data!).toString('utf8'),
  ) as Record<string, unknown>;

function items(run: Awaited<ReturnType<typeof runLoop>>): ParallelItemResult[] {
  return (run.result.captured['fan'] as unknown as { results: ParallelItemResult[] }).results;
}

describe('a rate-limit pause in a fan-out', () => {
  it('with shareRateLimits holds the running siblings: their next agent call waits for the same instant', async () => {
    const p = fanProject();
    const run = await runLoop(fan, {
      cwd: p.cwd,
      env: toolEnv(p, { LL_HOST_CLI: 'agent' }),
      pauseOnRateLimit: true,
      shareRateLimits: true,
      onStarted: async (id) => {
        try {
          await until(
            'the pause told to the sibling',
            async () => signalled(await history(`${id}.fan.1.1`), 'fanoutPause').length > 0,
          );
        } finally {
          writeFileSync(p.go, '');
        }
      },
    });
    expect(items(run).map((r) => r.outcome)).toEqual(['yes', 'yes']);
    const second = await history(`${run.workflowId}.fan.1.1`);
    const told = signalled(second, 'fanoutPause');
    expect(told).toHaveLength(1);
    const until_ms = Number(payload(told[0]!).until_ms);
    expect(payload(told[0]!)).toMatchObject({ run_id: `${run.workflowId}.fan.1.0`, kind: 'rate_limit' });
    // The second item's prompt call was scheduled after a timer, no earlier than the first's pause ends.
    expect(second.some((e) => e.timerStartedEventAttributes)).toBe(true);
    expect(ms(lastActivity(second))).toBeGreaterThanOrEqual(until_ms);
    // The first item paused once, as it would alone.
    const first = await history(`${run.workflowId}.fan.1.0`);
    expect(first.filter((e) => e.timerStartedEventAttributes)).toHaveLength(1);
  }, 120_000);
});
