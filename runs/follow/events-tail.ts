/**
 * Reading a run's events file (`.loops/.running/<id>.events.jsonl`) as its worker writes it, when
 * that worker runs on this host: the events the live run emitted, one JSON line each, numbered by
 * `seq`. Following a run this way costs a file read per update, where replaying its history costs
 * a replay of everything so far (follow-events.ts keeps the replay for what the file cannot give:
 * runs on other hosts, a run's end, and any event the file lacks).
 *
 * Only complete lines are read (the writer may be mid-line); a line that does not parse is the end
 * of what can be trusted, so the tail reports itself broken and the follower replays instead.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type { RunStreamEvent } from '../../fsm/run/events.js';

export class EventsTail {
  private offset = 0;
  private partial = '';
  broken = false;

  constructor(private readonly path: string) {}

  /** The events written since the last call (none when the file does not exist yet). */
  read(): RunStreamEvent[] {
    if (this.broken) return [];
    let fd: number;
    try {
      fd = openSync(this.path, 'r');
    } catch {
      return [];
    }
    try {
      const size = fstatSync(fd).size;
      if (size < this.offset) {
        // Rewritten under us: nothing read from it can be matched any more.
        this.broken = true;
        return [];
      }
      if (size === this.offset) return [];
      const buffer = Buffer.alloc(size - this.offset);
      const read = readSync(fd, buffer, 0, buffer.length, this.offset);
      this.offset += read;
      const text = this.partial + buffer.subarray(0, read).toString('utf8');
      const end = text.lastIndexOf('\n');
      this.partial = end === -1 ? text : text.slice(end + 1);
      if (end === -1) return [];
      const events: RunStreamEvent[] = [];
      for (const line of text.slice(0, end).split('\n')) {
        if (line.trim() === '') continue;
        try {
          const event = JSON.parse(line) as unknown;
          if (typeof event === 'object' && event !== null && typeof (event as { seq?: unknown }).seq === 'number')
            events.push(event as RunStreamEvent);
          else throw new Error('not an event');
        } catch {
          this.broken = true;
          break;
        }
      }
      return events;
    } finally {
      closeSync(fd);
    }
  }
}
