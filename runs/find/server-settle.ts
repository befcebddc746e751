/**
 * Reading a run while its server comes back. Right after the embedded server (re)started — by this
 * command, or by the checkout's worker a moment earlier — its namespace may not answer yet, and a
 * query needs a worker poll, which the worker's SDK resumes only after its retry backoff (up to
 * 10 s). Within a bounded time a transient error is tried again rather than reported; a run that
 * no worker answers for is waited for only when this command restarted the server.
 */
import type { Connection, WorkflowHandle } from '@temporalio/client';
import { someCause } from '../../errors/error-causes.js';
import { GRPC } from '../../errors/grpc-status.js';
import { bounded, queryStatus, type LiveStatus } from './run-target.js';

/** How long a command waits for a server it (re)started, or a transient error, to settle. */
export const SERVER_SETTLE_MS = 20_000;
const RETRY_MS = 250;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Whether `err` (possibly wrapped, e.g. "Failed to query Workflow") is the server not being ready:
 * UNAVAILABLE, RESOURCE_EXHAUSTED, ABORTED, or NOT_FOUND for the namespace,
 * which a server that has just started may not have loaded yet.
 */
export function isTransientServerError(err: unknown): boolean {
  return someCause(
    err,
    (e) =>
      e.code === GRPC.unavailable ||
      e.code === GRPC.resourceExhausted ||
      e.code === GRPC.aborted ||
      (e.code === GRPC.notFound && /namespace/i.test(String(e.message))),
  );
}

/** `fn`, tried again on transient server errors until `deadline` (ms since the epoch). */
export async function retryTransient<T>(deadline: number, fn: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (!isTransientServerError(err) || Date.now() > deadline) throw err;
    }
    await sleep(RETRY_MS);
  }
}

/** Wait until the namespace answers (DescribeNamespace), up to `deadline`. */
export async function awaitNamespace(connection: Connection, namespace: string, deadline: number): Promise<void> {
  for (;;) {
    try {
      await bounded(connection, 2_000, () => connection.workflowService.describeNamespace({ namespace }));
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
    }
    await sleep(RETRY_MS);
  }
}

/**
 * The run's status query (runs/find/run-target.ts queryStatus), tried again on transient errors
 * until `deadline`; with `restarted`, a run no worker answered for yet is asked again too.
 */
export async function queryStatusSettled(
  connection: Connection,
  handle: WorkflowHandle,
  opts: { restarted: boolean; deadline: number },
): Promise<LiveStatus | null> {
  for (;;) {
    const live = await retryTransient(opts.deadline, () => queryStatus(connection, handle));
    if (live !== null || !opts.restarted || Date.now() > opts.deadline) return live;
    await sleep(RETRY_MS);
  }
}
