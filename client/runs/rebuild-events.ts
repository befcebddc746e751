/**
 * A run's event stream rebuilt from its Temporal history, for runs this machine did not follow
 * (`ll-loop history`, `status --follow`): every execution of the workflow id, first to last, fed
 * through the pure core by {@link EventRebuilder} (client/runs/event-rebuilder.ts, which explains how).
 */
import type { Client } from '@temporalio/client';
import type { TimedEvent } from '../../worker/event-hub.js';
import type { LoopWorkflowInput } from '../../workflows/definitions.js';
import { EventRebuilder, type RunEnd } from './event-rebuilder.js';
import { historyPages } from './temporal-history.js';

export { EventRebuilder, type RunEnd };

/** The rebuilt run: its events, how it ended (if it has), the first run's input. */
export interface RebuiltRun {
  workflowId: string;
  events: TimedEvent[];
  end: RunEnd | undefined;
  input: LoopWorkflowInput | undefined;
  runIds: string[];
  warnings: string[];
}

/**
 * Rebuild a run's events from Temporal (every execution of the workflow id, first to last). With
 * `follow`, waits for an open run and calls `onEvent` as events happen, until it closes.
 */
export async function rebuildEvents(
  client: Client,
  workflowId: string,
  opts: { follow?: boolean; onEvent?: (event: TimedEvent) => void; onInput?: (input: LoopWorkflowInput) => void } = {},
): Promise<RebuiltRun> {
  let announced = false;
  const announce = (): void => {
    if (announced || !rebuilder.input) return;
    announced = true;
    opts.onInput?.(rebuilder.input);
  };
  const rebuilder: EventRebuilder = new EventRebuilder((event) => {
    announce();
    opts.onEvent?.(event);
  });
  for await (const page of historyPages(client, workflowId, { follow: opts.follow === true })) {
    rebuilder.feed(page.runId, page.events);
    announce();
  }
  return { workflowId, events: rebuilder.events, end: rebuilder.end, input: rebuilder.input, runIds: rebuilder.runIds, warnings: rebuilder.warnings };
}
