/**
 * The runs list, live: from the server's start, the project's runs are listed every
 * {@link RUNS_POLL_MS} while a page watches them and every {@link RUNS_IDLE_MS} while none does
 * (Temporal's visibility store is where runs started anywhere appear), and sent to every page when
 * they changed. One poller, whatever the number of pages.
 *
 * Invariant: a page that comes gets the latest list at once, from memory (the list is prepared
 * before anyone asks: its first reading, up to 1,000 runs, is the slow part of a first load), and
 * a fresher one as soon as the next poll is done.
 */
import type { RunSource } from './run-source.js';
import type { RunRow, RunsMessage } from './wire.js';

const RUNS_POLL_MS = 500;
/** How often the list is read while no page watches it: a page that comes finds it nearly fresh. */
const RUNS_IDLE_MS = 2000;

export interface RunsSubscriber {
  send(message: RunsMessage): void;
}

export class RunsFeed {
  private readonly subscribers = new Set<RunsSubscriber>();
  /** The latest list read, and the latest message sent (an error while the store is away). */
  private last: Extract<RunsMessage, { type: 'runs' }> | undefined;
  private latest: RunsMessage | undefined;
  private lastText = '';
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private reading: Promise<void> | undefined;
  /** How long each of the latest readings took, in ms (the bench reports them). */
  readonly readMs: number[] = [];

  constructor(private readonly source: RunSource) {}

  subscribe(subscriber: RunsSubscriber): () => void {
    this.subscribers.add(subscriber);
    if (this.last) subscriber.send(this.last);
    if (this.latest?.type === 'error') subscriber.send(this.latest);
    // A page came while the poller idles: read now, not at the end of the idle wait.
    if (this.running && !this.reading) this.pollNow();
    return () => {
      this.subscribers.delete(subscriber);
    };
  }

  /** Starts the poller (called when the server starts): the first page finds the list ready. */
  warm(): void {
    if (this.running) return;
    this.running = true;
    this.pollNow();
  }

  /** The runs now (for `GET /api/runs`): the poller's latest list, else a reading of its own. */
  async list(): Promise<RunRow[]> {
    if (this.last) return this.last.runs;
    return this.source.listRuns();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.running = false;
  }

  private pollNow(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.reading = this.poll().finally(() => {
      this.reading = undefined;
    });
  }

  private async poll(): Promise<void> {
    const started = Date.now();
    let message: RunsMessage;
    try {
      message = { type: 'runs', runs: await this.source.listRuns() };
    } catch (err) {
      message = { type: 'error', message: `cannot list runs: ${(err as Error).message}` };
    }
    this.readMs.push(Date.now() - started);
    if (this.readMs.length > 20) this.readMs.shift();
    const text = JSON.stringify(message);
    if (text !== this.lastText) {
      this.lastText = text;
      this.latest = message;
      // An error keeps the list a page is given at once (it also hears the error).
      if (message.type === 'runs') this.last = message;
      for (const s of this.subscribers) s.send(message);
    }
    if (!this.running) return;
    const every = this.subscribers.size > 0 ? RUNS_POLL_MS : RUNS_IDLE_MS;
    // A long list takes longer to read: the store is asked at most half the time.
    this.timer = setTimeout(() => this.pollNow(), Math.max(every, Date.now() - started));
    this.timer.unref();
  }
}
