/**
 * Author retries on the real server: a flaky action (it fails twice, then succeeds, counted in a
 * file) with `retry: { attempts: 3, backoff: 0.2 }` succeeds on its third attempt, after two
 * durable timers, within one state execution.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeTemporal, definition, project, runLoop, temporal } from './harness.js';

afterAll(closeTemporal);

const FLAKY =
  'n=$(cat attempts 2>/dev/null || echo 0); n=$((n + 1)); echo $n > attempts; echo "attempt $n"; [ "$n" -ge 3 ]';

describe('retry: on the real server', () => {
  it('re-runs a flaky action after durable backoffs until it succeeds', async () => {
    const p = project();
    const def = definition({
      name: 'flaky',
      description: 'fails twice, then succeeds',
      initial: 'fetch',
      states: {
        fetch: {
          action: FLAKY,
          capture: 'fetch',
          retry: { attempts: 3, backoff: 0.2 },
          on_yes: 'done',
          on_no: 'failed',
        },
        done: { terminal: true },
        failed: { terminal: true, failure: true },
      },
    });
    const started = Date.now();
    const run = await runLoop(def, { cwd: p.cwd });
    expect(run.result).toMatchObject({ terminated_by: 'terminal', final_state: 'done', steps: 2, iterations: 1 });
    expect(run.result.captured.fetch).toMatchObject({ output: 'attempt 3', exit_code: 0 });
    expect(readFileSync(join(p.cwd, 'attempts'), 'utf8').trim()).toBe('3');
    const retries = run.events.filter((e) => e.event === 'action_retry');
    expect(retries.map((e) => [e.attempt, e.exit_code, e.delay_ms])).toEqual([
      [1, 1, 200],
      [2, 1, 400],
    ]);
    expect(run.events.filter((e) => e.event === 'action_start')).toHaveLength(3);
    expect(run.states).toEqual(['fetch', 'done']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(600);
    // The backoffs are durable timers in the history, not sleeps in the worker.
    const { client } = await temporal();
    const history = await client.workflow.getHandle(run.workflowId).fetchHistory();
    const timers = (history.events ?? []).filter((e) => e.timerStartedEventAttributes);
    expect(
      timers.map(
        (e) =>
          Number(e.timerStartedEventAttributes?.startToFireTimeout?.seconds ?? 0) * 1000 +
          Math.round((e.timerStartedEventAttributes?.startToFireTimeout?.nanos ?? 0) / 1e6),
      ),
    ).toEqual([200, 400]);
  });

  it('gives up after the last attempt and routes its result', async () => {
    const p = project();
    const def = definition({
      name: 'flaky-exhausted',
      description: 'fails more often than it may retry',
      initial: 'fetch',
      states: {
        fetch: { action: FLAKY, retry: { attempts: 2, backoff: 0 }, on_yes: 'done', on_no: 'failed' },
        done: { terminal: true },
        failed: { terminal: true, failure: true },
      },
    });
    const run = await runLoop(def, { cwd: p.cwd, localActivityMaxTimeoutS: 30 });
    expect(run.result).toMatchObject({ terminated_by: 'terminal', final_state: 'failed', failure: true });
    expect(run.events.filter((e) => e.event === 'action_retry')).toHaveLength(1);
  });
});
