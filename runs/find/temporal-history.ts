/**
 * Reading a loop run's Temporal history: the pages of every execution of a workflow id, from the
 * first run of a continue-as-new chain to the last (optionally following a run that is still
 * open), and decoding what the events carry (payloads, failures).
 */
import type { Client, WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { someCause } from '../../errors/error-causes.js';
import { GRPC } from '../../errors/grpc-status.js';

/** One event of a workflow history, as the SDK decodes it (protobuf object). */
export type HistoryEvent = NonNullable<Awaited<ReturnType<WorkflowHandle['fetchHistory']>>['events']>[number];

type Payloads =
  { payloads?: Array<Parameters<typeof defaultPayloadConverter.fromPayload>[0]> | null } | null | undefined;
type Failure = { message?: string | null; cause?: Failure | null } | null | undefined;

/** The first value of a payload list, decoded with the SDK's default converter. */
export function decodeFirst<T>(payloads: Payloads): T | undefined {
  const first = payloads?.payloads?.[0];
  return first ? defaultPayloadConverter.fromPayload<T>(first) : undefined;
}

/** The messages of a failure and its causes, outermost first (empty messages skipped). */
export function failureMessages(failure: Failure): string[] {
  const out: string[] = [];
  for (let f = failure, depth = 0; f && depth < 16; f = f.cause, depth += 1) if (f.message) out.push(f.message);
  return out;
}

/** The run id of the first execution of `workflowId`'s continue-as-new chain. */
async function firstRunId(client: Client, workflowId: string): Promise<string | undefined> {
  const res = await client.workflowService.getWorkflowExecutionHistory({
    namespace: client.options.namespace,
    execution: { workflowId },
    maximumPageSize: 1,
  });
  const started = res.history?.events?.[0]?.workflowExecutionStartedEventAttributes;
  return started?.firstExecutionRunId || started?.originalExecutionRunId || undefined;
}

/**
 * Add a page to the history read so far, in event-id order. A long poll (`waitNewEvent`) can
 * return a workflow task the server has not persisted yet (one that carries an Update arriving
 * while the previous task completes); a later page then starts at or before those ids again.
 * The newer page's events replace the older ones from its first id on, so the history never
 * holds an event twice or out of order (the replayer rejects such a history).
 */
export function appendPage(history: HistoryEvent[], events: readonly HistoryEvent[]): void {
  const first = events[0] === undefined ? undefined : Number(events[0].eventId);
  if (first !== undefined && history.length > 0 && Number(history.at(-1)!.eventId) >= first) {
    const from = history.findIndex((e) => Number(e.eventId) >= first);
    history.splice(from);
  }
  history.push(...events);
}

/** One page of one execution's history. */
export interface HistoryPage {
  runId: string;
  events: HistoryEvent[];
}

/**
 * The deadline of one long poll of a followed run; it is then asked again with the same page
 * token. The server answers about 1 s before the deadline with an empty page (its own expiry,
 * without a deadline, is 20 s), so a poll it never wakes (seen once: a follower waited 30 s on a
 * run whose next events its worker had already written) costs about 4 s, and an idle follower
 * asks every 4 s. Below ~1.5 s the server would answer at once: a busy loop.
 */
const LONG_POLL_SLICE_MS = 5_000;

const MIN_POLL_SLICE_MS = 1_500;

/**
 * Every page of the chain's history, in order, starting at its first run. With `follow`, an open
 * run is long-polled (`waitNewEvent`) until it closes, so pages arrive as the run progresses.
 */
export async function* historyPages(
  client: Client,
  workflowId: string,
  opts: { follow?: boolean; runId?: string; pollSliceMs?: number } = {},
): AsyncGenerator<HistoryPage> {
  const slice = Math.max(MIN_POLL_SLICE_MS, opts.pollSliceMs ?? LONG_POLL_SLICE_MS);
  let runId: string | undefined = opts.runId ?? (await firstRunId(client, workflowId));
  while (runId) {
    let token: Uint8Array | null | undefined;
    let next: string | undefined;
    let missed = 0;
    for (;;) {
      const request = {
        namespace: client.options.namespace,
        execution: { workflowId, runId },
        nextPageToken: token ?? null,
        waitNewEvent: opts.follow === true,
        skipArchival: true,
      };
      let res: Awaited<ReturnType<typeof client.workflowService.getWorkflowExecutionHistory>>;
      try {
        res = opts.follow
          ? await client.withDeadline(Date.now() + slice, () =>
              client.workflowService.getWorkflowExecutionHistory(request),
            )
          : await client.workflowService.getWorkflowExecutionHistory(request);
      } catch (err) {
        // The server did not answer a slice in time (it answers before the deadline when it is
        // up). Once is let pass (a busy machine); twice in a row is the server gone, and the
        // caller hears it as any unavailable server (a follower says so after ~10 s).
        if (opts.follow && someCause(err, (e) => e.code === GRPC.deadlineExceeded) && ++missed < 2) continue;
        throw err;
      }
      missed = 0;
      const events = res.history?.events ?? [];
      for (const e of events) next = e.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId || next;
      if (events.length) yield { runId, events };
      token = res.nextPageToken;
      if (!token || token.length === 0) break;
    }
    runId = next;
  }
}
