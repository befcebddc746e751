/**
 * A pinned run's action that ends while its host is cut off: the result cannot be reported, the
 * run waits for the host by scheduling the action anew (workflows/placement.ts) — a new activity,
 * with a new activity id — and once the host is back, its worker must deliver the journaled result
 * rather than run the action again (the actionCallKeys run rule, workflows/action-calls.ts). The
 * host is a worker on the action queue connected through a relay the test cuts (tests/support/
 * relay.ts); the workflow's own worker keeps its connection.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NativeConnection } from '@temporalio/worker';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createLoopWorker } from '../../worker/create-worker.js';
import { LOOP_WORKFLOW_TYPE, type LoopRunResult, type LoopWorkflowInput } from '../../workflows/definitions.js';
import { startRelay, type Relay } from '../support/relay.js';
import { waitFor } from '../support/processes.js';
import { definition, temporal } from './harness.js';

const relays: Relay[] = [];
const connections: NativeConnection[] = [];

afterAll(async () => {
  for (const c of connections) await c.close().catch(() => undefined);
  for (const r of relays) await r.close();
});

function lines(file: string): string[] {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}

/** The journal's entries (one directory per execution). */
function journalEntries(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((run) => readdirSync(join(dir, run)).filter((f) => f.endsWith('.json')));
}

/**
 * Run `a` (notes its start, waits for a gate) → `b` pinned to a host worker; cut the host while
 * `a` runs, open the gate, wait until the run says it waits for its host, restore the host.
 */
async function cutOffMidAction(): Promise<{
  result: LoopRunResult;
  starts: string[];
  journal: string[];
  redelivered: boolean;
  /** Each scheduled action's heartbeat timeout, in seconds, as the history recorded it. */
  heartbeatTimeouts: number[];
}> {
  const { client, native } = await temporal();
  const cwd = mkdtempSync(join(tmpdir(), 'll-loop-pinned-'));
  const journalDir = join(cwd, 'journal');
  const relay = await startRelay(inject('temporalAddress'));
  relays.push(relay);
  const hostConnection = await NativeConnection.connect({ address: relay.address });
  connections.push(hostConnection);
  const taskQueue = `pinned-wf-${randomUUID()}`;
  const actionQueue = `pinned-host-${randomUUID()}`;
  const { worker: workflows } = await createLoopWorker({ connection: native, taskQueue });
  const { worker: host } = await createLoopWorker({
    connection: hostConnection,
    taskQueue: actionQueue,
    activityDeps: { journalDir },
  });
  const running = [workflows.run(), host.run()];
  const def = definition({
    name: 'pinned-cut',
    initial: 'a',
    states: {
      a: {
        action: 'echo start >> starts.log; while [ ! -e gate ]; do sleep 0.05; done; echo done-a',
        timeout: 600,
        capture: 'a',
        next: 'b',
      },
      b: { action: 'echo "b saw ${captured.a.output}"', terminal: true },
    },
  });
  const input: LoopWorkflowInput = {
    definition: def,
    options: {
      cwd,
      searchAttributes: false,
      localActivityMaxTimeoutS: 0,
      closeAsOutcome: true,
      actionQueue,
      hostNoticeS: 2,
      heartbeatTimeoutS: 8,
      actionCallKeys: true,
    },
  };
  const workflowId = `pinned-cut-${randomUUID().slice(0, 8)}`;
  const handle = await client.workflow.start(LOOP_WORKFLOW_TYPE, { workflowId, taskQueue, args: [input] });
  await waitFor('a to start on its host', () => lines(join(cwd, 'starts.log')).length === 1, 60_000);
  relay.cut();
  writeFileSync(join(cwd, 'gate'), '');
  // The host ends the action and journals it; its completion cannot reach the server.
  await waitFor('the host to journal a', () => journalEntries(journalDir).length === 1, 60_000);
  // Heartbeat timeout (8 s), then no taker within the notice: the run schedules the action anew.
  await waitFor(
    'the run to say it waits for its host',
    async () =>
      String(((await handle.query('status').catch(() => ({}))) as { waiting_for?: string }).waiting_for ?? '').includes(
        'never runs the action elsewhere',
      ),
    120_000,
    250,
  );
  relay.restore();
  const result = (await handle.result()) as LoopRunResult;
  const history = await handle.fetchHistory();
  const redelivered = history.events!.some((e) =>
    (e.activityTaskCompletedEventAttributes?.result?.payloads ?? []).some((p) =>
      Buffer.from(p.data ?? new Uint8Array())
        .toString('utf8')
        .includes('"redelivered":true'),
    ),
  );
  const heartbeatTimeouts = history.events!.flatMap((e) => {
    const scheduled = e.activityTaskScheduledEventAttributes;
    return scheduled?.activityType?.name === 'runAction' ? [Number(scheduled.heartbeatTimeout?.seconds ?? 0)] : [];
  });
  workflows.shutdown();
  host.shutdown();
  await Promise.all(running);
  return {
    result,
    starts: lines(join(cwd, 'starts.log')),
    journal: journalEntries(journalDir),
    redelivered,
    heartbeatTimeouts,
  };
}

describe('a pinned action that ended while its host was cut off', () => {
  it('is delivered from the host journal, not run again, once the host is back (actionCallKeys)', async () => {
    const { result, starts, journal, redelivered, heartbeatTimeouts } = await cutOffMidAction();
    expect(result).toMatchObject({ terminated_by: 'terminal', final_state: 'b' });
    // The run's heartbeatTimeoutS, on every schedule of its actions: a, a again, b. When the host
    // comes back late (a loaded machine), `a`'s second schedule times out too and is scheduled
    // once more, as designed: the number of schedules is the machine's, their timeout the run's.
    expect(heartbeatTimeouts.length).toBeGreaterThanOrEqual(3);
    expect(
      heartbeatTimeouts.every((s) => s === 8),
      String(heartbeatTimeouts),
    ).toBe(true);
    expect(starts).toEqual(['start']);
    expect(result.captured.a?.output).toBe('done-a');
    expect(redelivered).toBe(true);
    // Named by the run's call, not by an activity id: both schedules of `a` are one entry.
    expect(journal.sort()).toEqual(['call-1.0.json', 'call-2.0.json']);
  }, 180_000);
});
