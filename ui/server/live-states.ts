/**
 * The state a run is in, as soon as its worker writes it: the run's events file on the worker's
 * host (`.loops/.running/<id>.events.jsonl`, appended as the workflow runs), tailed from near its end.
 * The replayed history stays the page's source of every event; this only lets the lit state move
 * at once where the history grows in batches (quick actions run as local activities complete
 * their workflow task only after several of them). Absent file (another host): nothing is sent.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { eventsPath } from '../../host/run-files.js';

const POLL_MS = 100;
const READ_CHUNK = 64 * 1024;
const TAIL_BYTES = 64 * 1024;

/** Calls `onState(seq, state)` for each `state_enter` near the file's end and each it gains; returns how to stop. */
export function tailStates(cwd: string, id: string, onState: (seq: number, state: string) => void): () => void {
  const path = eventsPath(cwd, id);
  let fd: number | undefined;
  let offset = -1;
  let partial = '';
  let timer: NodeJS.Timeout | undefined;
  const read = (): void => {
    if (fd === undefined) {
      try {
        fd = openSync(path, 'r');
      } catch {
        return;
      }
    }
    const size = fstatSync(fd).size;
    // From the file's last 64 KiB when first read: its last state_enter is where the run is now,
    // which a history that grows in batches may not show yet (older ones are harmless: the page
    // uses an announcement only while it is ahead of its events).
    let skipFirstLine = false;
    if (offset < 0) {
      offset = Math.max(0, size - TAIL_BYTES);
      skipFirstLine = offset > 0;
    }
    const buffer = Buffer.alloc(READ_CHUNK);
    while (offset < size) {
      const n = readSync(fd, buffer, 0, Math.min(READ_CHUNK, size - offset), offset);
      if (n <= 0) break;
      offset += n;
      partial += buffer.subarray(0, n).toString('utf8');
    }
    const lines = partial.split('\n');
    partial = lines.pop() ?? '';
    if (skipFirstLine) lines.shift();
    for (const line of lines) {
      try {
        const e = JSON.parse(line) as { event?: unknown; state?: unknown; seq?: unknown };
        if (e.event === 'state_enter' && typeof e.state === 'string' && typeof e.seq === 'number')
          onState(e.seq, e.state);
      } catch {
        // a line torn by a crash: not a state
      }
    }
  };
  const poll = (): void => {
    try {
      read();
    } catch {
      // unreadable now: the history still brings every event
    }
    timer = setTimeout(poll, POLL_MS);
    timer.unref();
  };
  poll();
  return () => {
    if (timer) clearTimeout(timer);
    if (fd !== undefined) closeSync(fd);
  };
}
