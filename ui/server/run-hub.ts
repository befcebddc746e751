/**
 * One follower per run, whatever the number of pages watching it: the first page to open a run
 * starts its follower, every page gets what the follower has seen so far (its backlog) and then
 * each message as it comes. A follower runs until its run closes; a closed run's channel is
 * dropped once no page watches it (a later page follows it again, from its history).
 *
 * Invariants: a page receives the run's graph first, then events in order and each once, and the
 * newest state the run's events file announced ahead of them whenever it joined; the
 * output of a running action comes after the events that precede it (pending events are sent
 * before any output); a running action's output is kept (its last {@link OUTPUT_KEEP} characters)
 * only until its action ends, when its `action_complete` carries it.
 */
import type { TimedEvent } from '../../fsm/run/events.js';
import type { RunEndView, RunFollowSink, RunSource } from './run-source.js';
import type { RunMessage } from './wire.js';

/** How much of a running action's output a late page is given. */
const OUTPUT_KEEP = 256 * 1024;

/** Whatever receives a run's messages: an event stream to a page. */
export interface RunSubscriber {
  send(message: RunMessage): void;
}

type OutputMessage = Extract<RunMessage, { type: 'output' }>;

class RunChannel implements RunFollowSink {
  readonly subscribers = new Set<RunSubscriber>();
  private graphMessage: RunMessage | undefined;
  private readonly events: TimedEvent[] = [];
  private pending: TimedEvent[] = [];
  private flushTimer: NodeJS.Timeout | undefined;
  private readonly outputs = new Map<string, OutputMessage>();
  private capturedMessage: RunMessage | undefined;
  /** The newest state the events file announced (a page that comes later needs it too). */
  private liveMessage: Extract<RunMessage, { type: 'live_state' }> | undefined;
  endMessage: RunMessage | undefined;
  private readonly notices: RunMessage[] = [];

  /** Everything seen so far, for a page that just came. */
  backlog(): RunMessage[] {
    this.flush();
    const out: RunMessage[] = [];
    if (this.graphMessage) out.push(this.graphMessage);
    if (this.events.length) out.push({ type: 'events', events: this.events });
    // After the events: the page lights it only while it is ahead of them.
    if (this.liveMessage) out.push(this.liveMessage);
    out.push(...this.outputs.values(), ...this.notices);
    if (this.capturedMessage) out.push(this.capturedMessage);
    if (this.endMessage) out.push(this.endMessage);
    return out;
  }

  private broadcast(message: RunMessage): void {
    for (const s of this.subscribers) s.send(message);
  }

  private flush(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    this.events.push(...batch);
    this.broadcast({ type: 'events', events: batch });
  }

  graph(graph: Extract<RunMessage, { type: 'graph' }>['graph']): void {
    this.graphMessage = { type: 'graph', graph };
    this.broadcast(this.graphMessage);
  }

  event(event: TimedEvent): void {
    this.pending.push(event);
    // A replay delivers many events at once: they go out together, at the end of this turn.
    this.flushTimer ??= setTimeout(() => this.flush(), 0);
  }

  output(o: Omit<OutputMessage, 'type'>): void {
    this.flush();
    const seen = this.outputs.get(o.workflowId);
    const text = o.restart || !seen ? o.text : (seen.text + o.text).slice(-OUTPUT_KEEP);
    this.outputs.set(o.workflowId, { type: 'output', ...o, text });
    this.broadcast({ type: 'output', ...o });
  }

  outputEnd(workflowId: string): void {
    this.outputs.delete(workflowId);
  }

  liveState(seq: number, state: string): void {
    this.flush();
    const message = { type: 'live_state' as const, seq, state };
    if (!this.liveMessage || seq > this.liveMessage.seq) this.liveMessage = message;
    this.broadcast(message);
  }

  captured(captured: Record<string, unknown>): void {
    this.flush();
    this.capturedMessage = { type: 'captured', captured };
    this.broadcast(this.capturedMessage);
  }

  notice(message: string): void {
    this.flush();
    const m: RunMessage = { type: 'notice', message };
    this.notices.splice(0, this.notices.length, m);
    this.broadcast(m);
  }

  end(end: RunEndView): void {
    this.flush();
    this.endMessage = { type: 'end', ...end };
    this.broadcast(this.endMessage);
  }

  error(message: string): void {
    this.flush();
    this.broadcast({ type: 'error', message });
  }
}

/** The server's runs being followed, by run id. */
export class RunHub {
  private readonly channels = new Map<string, RunChannel>();
  /** How many followers were started (one per run while it is watched: tests check it). */
  followersStarted = 0;

  constructor(private readonly source: RunSource) {}

  /** Adds a page to the run's channel (starting its follower if needed); returns how to leave. */
  subscribe(id: string, subscriber: RunSubscriber): () => void {
    let channel = this.channels.get(id);
    if (!channel) {
      const fresh = new RunChannel();
      channel = fresh;
      this.channels.set(id, fresh);
      this.followersStarted += 1;
      this.source.followRun(id, fresh).then(
        () => {
          if (fresh.subscribers.size === 0) this.channels.delete(id);
        },
        (err: unknown) => {
          fresh.error((err as Error).message);
          this.channels.delete(id);
        },
      );
    }
    for (const message of channel.backlog()) subscriber.send(message);
    channel.subscribers.add(subscriber);
    const joined = channel;
    return () => {
      joined.subscribers.delete(subscriber);
      if (joined.subscribers.size === 0 && joined.endMessage && this.channels.get(id) === joined)
        this.channels.delete(id);
    };
  }

  /** Runs whose follower is running or kept. */
  get size(): number {
    return this.channels.size;
  }
}
