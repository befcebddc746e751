/**
 * A run's events as its worker writes them (`.loops/.running/<id>.events.jsonl`, host/run-files.ts),
 * for e2e tests that wait for something to happen in a run: reading the file is the event itself,
 * where asking `ll-loop status` or `inbox` again and again started a process for each look.
 */
import { existsSync, readFileSync } from 'node:fs';
import { eventsPath } from '../../host/run-files.js';
import { waitFor } from './processes.js';

export interface FileEvent {
  seq: number;
  event: string;
  [field: string]: unknown;
}

/** The events of run `id` of the checkout `cwd` written so far (a line still being written is left out). */
export function runEvents(cwd: string, id: string): FileEvent[] {
  const file = eventsPath(cwd, id);
  if (!existsSync(file)) return [];
  const events: FileEvent[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    try {
      events.push(JSON.parse(line) as FileEvent);
    } catch {
      // the last line, half written: read again at the next look
    }
  }
  return events;
}

/** Wait until run `id` has recorded an `event` and return it; throws "timed out waiting for …" after `timeoutMs`. */
export async function waitForRunEvent(cwd: string, id: string, event: string, timeoutMs = 60_000): Promise<FileEvent> {
  let found: FileEvent | undefined;
  await waitFor(
    `run ${id} to record ${event}`,
    () => (found = runEvents(cwd, id).find((e) => e.event === event)) !== undefined,
    timeoutMs,
    50,
  );
  return found!;
}
