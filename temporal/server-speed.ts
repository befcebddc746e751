/**
 * What `ll-loop cluster setup --check` finds of a server's settings that cost ll-loop speed
 * (docs/temporal.md, "What an operator sets for speed"). Only warnings: a slow server still runs
 * every loop.
 *
 * Read over the API: the server's version (GetSystemInfo) and the partitions of this checkout's
 * task queue (ListTaskQueuePartitions, reported, not judged: one worker per checkout is served as
 * fast on 4 as on 1, the dev server's own default). Measured, since no API reads dynamic config:
 * how late a 1 ms timer fires right after the history shard read its timers
 * (`history.timerProcessorMaxTimeShift`, 1 s by default: every short durable sleep of a run, each
 * burst's flush, backoff and retry delays wait for it). The probe is a workflow of its own type on
 * a task queue no worker polls, started twice under one id (one shard) with a 1 ms start delay,
 * then terminated and deleted. `history.transferProcessorMaxPollRPS` throttles only a steady
 * stream of tasks on one shard, which one probe cannot tell from an idle shard: not measured.
 */
import { randomUUID } from 'node:crypto';
import type { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import proto from '@temporalio/proto';

const { EventType, WorkflowIdReusePolicy } = proto.temporal.api.enums.v1;

/** A 1 ms timer firing later than this means the server reads timers ahead by its 1 s default. */
export const LATE_TIMER_MS = 200;

/** A setting that costs speed: what was found and what to set. */
interface SpeedWarning {
  setting: string;
  found: string;
  /** What it costs a run. */
  cost: string;
  fix: string;
}

export interface ServerSpeed {
  serverVersion?: string;
  /** Workflow-task partitions of the checkout's task queue. */
  taskQueuePartitions?: number;
  /** How late the probe's 1 ms timer fired (the latest of its tries), when it could run. */
  timerLateMs?: number;
  /** Why the timer probe did not run (the credentials may not start workflows). */
  probeError?: string;
  warnings: SpeedWarning[];
}

const PROBE_TYPE = 'll-loop-setup-timer-probe';
const TRIES = 3;

function tsMs(t: { seconds?: unknown; nanos?: number | null } | null | undefined): number {
  return Number(t?.seconds ?? 0) * 1000 + (t?.nanos ?? 0) / 1e6;
}

/** ms from the start to the first workflow task of a run started with a 1 ms delay (its timer's lateness). */
async function timerLateness(connection: Connection, namespace: string, workflowId: string, taskQueue: string) {
  const { runId } = await connection.workflowService.startWorkflowExecution({
    namespace,
    workflowId,
    workflowType: { name: PROBE_TYPE },
    taskQueue: { name: taskQueue },
    workflowStartDelay: msToTs(1),
    workflowRunTimeout: msToTs(60_000),
    workflowIdReusePolicy: WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
    requestId: randomUUID(),
    identity: 'll-loop cluster setup --check',
  });
  const execution = { workflowId, runId };
  try {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const { history } = await connection.workflowService.getWorkflowExecutionHistory({ namespace, execution });
      const events = history?.events ?? [];
      const started = events.find((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED);
      const scheduled = events.find((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED);
      if (started && scheduled)
        return { runId, lateMs: Math.max(0, tsMs(scheduled.eventTime) - tsMs(started.eventTime) - 1) };
      // The timer has not fired within 10 s: far later than any setting makes it.
      if (Date.now() > deadline) return { runId, lateMs: 10_000 };
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    await connection.workflowService
      .terminateWorkflowExecution({ namespace, workflowExecution: execution, reason: 'll-loop timer probe' })
      .catch(() => undefined);
  }
}

/** The probe's lateness: the latest of its tries after the first (which makes the shard read its timers). */
async function probeTimers(connection: Connection, namespace: string): Promise<number> {
  const workflowId = `ll-loop-setup-probe-${randomUUID()}`;
  const taskQueue = `ll-loop-setup-probe-${randomUUID()}`;
  const runs: string[] = [];
  const late: number[] = [];
  try {
    for (let i = 0; i < TRIES; i += 1) {
      const r = await timerLateness(connection, namespace, workflowId, taskQueue);
      runs.push(r.runId);
      if (i > 0) late.push(r.lateMs);
    }
  } finally {
    for (const runId of runs)
      await connection.workflowService
        .deleteWorkflowExecution({ namespace, workflowExecution: { workflowId, runId } })
        .catch(() => undefined);
  }
  return Math.round(Math.max(...late));
}

function reason(err: unknown): string {
  const e = err as { details?: unknown; message?: unknown };
  return String((typeof e?.details === 'string' && e.details) || e?.message || err);
}

/** Read and measure what costs speed on the server `connection` reaches, for runs of the checkout queue `taskQueue`. */
export async function inspectServerSpeed(
  connection: Connection,
  namespace: string,
  taskQueue: string,
): Promise<ServerSpeed> {
  const out: ServerSpeed = { warnings: [] };
  const info = await connection.workflowService.getSystemInfo({}).catch(() => undefined);
  if (info?.serverVersion) out.serverVersion = info.serverVersion;
  const partitions = await connection.workflowService
    .listTaskQueuePartitions({ namespace, taskQueue: { name: taskQueue } })
    .catch(() => undefined);
  if (partitions?.workflowTaskQueuePartitions?.length)
    out.taskQueuePartitions = partitions.workflowTaskQueuePartitions.length;
  try {
    out.timerLateMs = await probeTimers(connection, namespace);
  } catch (err) {
    out.probeError = reason(err);
  }
  if (out.timerLateMs !== undefined && out.timerLateMs > LATE_TIMER_MS)
    out.warnings.push({
      setting: 'history.timerProcessorMaxTimeShift',
      found: `a 1 ms timer fired ${out.timerLateMs} ms late`,
      cost: "each short durable sleep of a run (a burst's flush of quick actions, backoff, retry and maintain delays) waits up to 1 s",
      fix: 'set history.timerProcessorMaxTimeShift to 10ms and history.transferProcessorMaxPollRPS to 1000 in the server’s dynamic config (docs/temporal.md, "What an operator sets for speed")',
    });
  return out;
}
