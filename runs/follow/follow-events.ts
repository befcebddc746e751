/**
 * How a run's events are read, live or past, whoever runs its worker: from its Temporal history
 * (long-polled while it is open), with the live events from its events file when a worker on this
 * host writes it (events-tail.ts), else replayed through the workflow bundle
 * (worker/replay-events.ts); each event is handed on once, by its sequence number. Sub-loops are
 * followed the same way and their events delivered, marked with their depth, before the parent's
 * `subloop_complete`. Used by `resume`, `status --follow`/`monitor`, `history` and `logs`, and by
 * `run`: in the checkout's worker when it started the run (serve-follow.ts streams what this reads
 * to the command), else on the command's own connection (follow-run.ts).
 */
import type { Client } from '@temporalio/client';
import type { RunStreamEvent, TimedEvent } from '../../fsm/run/events.js';
import type { LoopWorkflowInput } from '../../workflows/definitions.js';
import { delay, isTransientServiceError } from '../find/await-result.js';
import { appendPage, decodeFirst, historyPages, type HistoryEvent } from '../find/temporal-history.js';
import { closeOf, type RunEnd } from './run-close.js';
import { ActionResults } from './action-results.js';
import { EventsTail } from './events-tail.js';
import { LazyReplayer } from './lazy-replayer.js';

/**
 * How long to look again for events the worker has not written to its file yet, before replaying
 * (FollowEventsOptions.fileWaitMs), and how often.
 */
const FILE_WAIT_MS = 100;
const FILE_LOOK_MS = [10, 10, 20, 30];

/** The least time between two replays of a growing history. */
const MIN_REPLAY_SPACING_MS = 200;

export interface FollowEventsOptions {
  /** Wait for an open run's new events until it closes (else: what the history holds now). */
  follow?: boolean;
  /** Follow sub-loops too, delivering their events marked `subloop` (default: true). */
  children?: boolean;
  /**
   * Add to each `action_complete` event what the action printed (`action_output`, from its
   * activity result in the history: runs/action-results.ts). Off by default: events stay as the
   * worker wrote them (`history`, `--json` streams).
   */
  actionOutput?: boolean;
  onEvent?: (event: TimedEvent) => void;
  /**
   * Where a workflow's events file would be on this host (follow mode): while it is being written
   * here, live events are read from it instead of replaying the history on every update
   * (events-tail.ts); the history still gives the end, the actions' output and any event missing.
   */
  eventsFileOf?: (workflowId: string) => string;
  /**
   * How long to wait for the worker to write the events a history update announces before
   * replaying instead (default 100 ms: the worker may be on another host). A caller that knows
   * this host's worker writes them (`run` on the checkout's worker) waits longer: the writer
   * lags on a busy machine, and a replay costs far more (loading the worker SDK, replaying all).
   */
  fileWaitMs?: number;
  /** How long one long poll of the history waits before it is asked again (LONG_POLL_SLICE_MS). */
  pollSliceMs?: number;
  /** The first run's input (its definition), as soon as it is known. */
  onInput?: (input: LoopWorkflowInput) => void;
  /** The server stopped answering / answers again (the run is safe; the follower waits). */
  onDisconnect?: (message: string) => void;
  onReconnect?: () => void;
  /** Stop following (what was read so far is returned). */
  signal?: AbortSignal;
}

export interface FollowedRun {
  workflowId: string;
  events: TimedEvent[];
  end: RunEnd | undefined;
  input: LoopWorkflowInput | undefined;
  /** Why events may be missing (a history this ll-loop cannot interpret). */
  warnings: string[];
  /** Whether the history was replayed (the worker SDK loaded), rather than every event read from the file. */
  replayed?: boolean;
}

/**
 * Holds a sub-loop's events until its parent has shown the state that starts it: the child's
 * history is read beside the parent's, and the parent's replays are spaced, so without it a quick
 * child's lines would appear before the parent's earlier ones.
 */
class Gate {
  private held: Array<() => void> | undefined;

  constructor(open: boolean) {
    this.held = open ? undefined : [];
  }

  /** Runs `show` now when open, else when {@link open} is called (in order). */
  pass(show: () => void): void {
    if (this.held) this.held.push(show);
    else show();
  }

  open(): void {
    const held = this.held;
    this.held = undefined;
    for (const show of held ?? []) show();
  }
}

/** Follows one workflow id (its continue-as-new chain), and its children. */
class ChainFollower {
  readonly events: TimedEvent[] = [];
  readonly warnings: string[] = [];
  end: RunEnd | undefined;
  input: LoopWorkflowInput | undefined;
  private delivered = 0;
  readonly replayer = new LazyReplayer();
  /** The actions' outputs of the current execution, read as its history grows. */
  private readonly results = new ActionResults();
  /** The run's events file on this host, read while following (undefined: replay only). */
  private readonly tail: EventsTail | undefined;
  /** `action_complete` events of the current execution delivered so far (the next one's output index). */
  private actionsInExecution = 0;
  /** Children initiated and not yet accounted for by a `subloop_complete`, oldest first. */
  private readonly children: Array<Promise<void>> = [];
  private readonly seenChildren = new Set<string>();
  /** The gates of initiated children whose `subloop_start` this run has not shown yet, oldest first. */
  private readonly childGates: Gate[] = [];
  /** `subloop_start`s shown before their child was seen in the history (it is initiated later). */
  private startsAhead = 0;

  constructor(
    private readonly client: Client,
    private readonly workflowId: string,
    private readonly opts: FollowEventsOptions,
    private readonly depth = 0,
    private readonly gate = new Gate(true),
  ) {
    const file = opts.follow ? opts.eventsFileOf?.(workflowId) : undefined;
    this.tail = file === undefined ? undefined : new EventsTail(file);
  }

  async run(): Promise<void> {
    try {
      let runId: string | undefined;
      let history: HistoryEvent[] = [];
      for await (const page of this.pages()) {
        // Nobody listens any more (the follower went away): a pending long poll ends this at its next page.
        if (this.opts.signal?.aborted) return;
        if (page.runId !== runId) {
          if (runId !== undefined) await this.replay(history, true);
          runId = page.runId;
          history = [];
          this.actionsInExecution = 0;
        }
        appendPage(history, page.events);
        this.noteInput(page.events);
        this.noteChildren(page.events, history);
        if (this.opts.follow && page.events.some((e) => e.workflowTaskCompletedEventAttributes)) {
          if (!this.endFromFile && !(await this.fromFile(history))) await this.replay(history, false);
        }
        const last = page.events.at(-1);
        const end = last ? closeOf(last, history) : undefined;
        if (end) this.end = end;
      }
      // The file gave every event up to the run's last: the history has nothing more to give.
      if (runId !== undefined && !this.endFromFile) await this.replay(history, true);
      // Sub-loops whose end the parent never recorded (a stopped parent): their events still count.
      this.gate.pass(() => {
        for (const gate of this.childGates.splice(0)) gate.open();
      });
      await Promise.all(this.children.splice(0));
    } finally {
      await this.replayer.close();
    }
  }

  /** History pages, retried through server outages (the run is durable; the follower waits). */
  private async *pages(): AsyncGenerator<{ runId: string; events: HistoryEvent[] }> {
    let disconnected = false;
    let resumeAt: { runId: string; count: number } | undefined;
    for (;;) {
      let current: { runId: string; count: number } | undefined;
      try {
        for await (const page of historyPages(this.client, this.workflowId, {
          follow: this.opts.follow === true,
          ...(this.opts.pollSliceMs === undefined ? {} : { pollSliceMs: this.opts.pollSliceMs }),
          ...(resumeAt ? { runId: resumeAt.runId } : {}),
        })) {
          if (disconnected) {
            disconnected = false;
            this.opts.onReconnect?.();
          }
          // After an outage the execution is read again from its start: skip what was seen.
          const count = (current?.runId === page.runId ? current.count : 0) + page.events.length;
          const skip = resumeAt?.runId === page.runId ? Math.max(0, resumeAt.count - (count - page.events.length)) : 0;
          current = { runId: page.runId, count };
          if (skip < page.events.length) yield { runId: page.runId, events: page.events.slice(skip) };
        }
        return;
      } catch (err) {
        if (!isTransientServiceError(err)) throw err;
        if (!disconnected) this.opts.onDisconnect?.((err as Error).message);
        disconnected = true;
        resumeAt = current ?? resumeAt;
        await delay(1_000);
      }
    }
  }

  private noteInput(events: HistoryEvent[]): void {
    if (this.input) return;
    const started = events[0]?.workflowExecutionStartedEventAttributes;
    const input = started ? decodeFirst<LoopWorkflowInput>(started.input) : undefined;
    if (!input?.definition) return;
    this.input = input;
    if (this.depth === 0) this.opts.onInput?.(input);
  }

  /**
   * Follow the sub-loops that `events` show started. Started, not initiated: the parent's history
   * records the initiation before the server has created the child, and reading the child's
   * history in that moment fails (not found): under load its lines were lost from the display.
   */
  private noteChildren(events: HistoryEvent[], history: HistoryEvent[]): void {
    if (this.opts.children === false) return;
    for (const e of events) {
      const started = e.childWorkflowExecutionStartedEventAttributes;
      const id = started?.workflowExecution?.workflowId;
      if (!id || this.seenChildren.has(id)) continue;
      const initiatedId = Number(started.initiatedEventId);
      const initiated = history.find(
        (h) => Number(h.eventId) === initiatedId,
      )?.startChildWorkflowExecutionInitiatedEventAttributes;
      // A parallel state's items (memo `item`) are not sub-loop states: their ends are the parent's
      // `item_done` events, and their own events are read from each child (`logs <child id>`).
      if (initiated?.memo?.fields?.item !== undefined) continue;
      this.seenChildren.add(id);
      const gate = new Gate(this.startsAhead > 0);
      if (this.startsAhead > 0) this.startsAhead -= 1;
      else this.childGates.push(gate);
      const child = new ChainFollower(
        this.client,
        id,
        { ...this.opts, onInput: undefined, onDisconnect: undefined, onReconnect: undefined },
        this.depth + 1,
        gate,
      );
      this.children.push(
        child.run().then(
          () => void this.warnings.push(...child.warnings),
          (err: unknown) => void this.warnings.push(`sub-loop ${id}: ${(err as Error).message}`),
        ),
      );
    }
  }

  /** The run's last event came from its file, in order after every earlier one. */
  private endFromFile = false;

  /** Events read from the run's file not yet delivered (waiting for their action's output in the history). */
  private readonly fileQueue: RunStreamEvent[] = [];

  /**
   * Deliver the live events the worker has written to the run's file since the last look; true
   * when the file served. It does not when there is no file here (the worker is elsewhere), when
   * nothing new appears in it within a moment (a worker on another host took the run over, or the
   * writer lags), on a gap in its numbering or a line that does not parse: the caller replays
   * instead. An `action_complete` waits until its action's result is in the history (its output);
   * a `subloop_complete`, until the replay has waited for the sub-loop's own events.
   */
  private async fromFile(history: HistoryEvent[]): Promise<boolean> {
    if (!this.tail || this.tail.broken) return false;
    const until = Date.now() + (this.opts.fileWaitMs ?? FILE_WAIT_MS);
    for (let look = 0; ; look += 1) {
      this.fileQueue.push(...this.tail.read());
      if (this.tail.broken) return false;
      if (this.fileQueue.some((e) => e.seq > this.delivered)) break;
      const left = until - Date.now();
      if (left <= 0) break;
      await delay(Math.min(left, FILE_LOOK_MS[look] ?? FILE_LOOK_MS.at(-1)!));
    }
    const outputs = this.opts.actionOutput ? this.results.of(history) : undefined;
    let served = false;
    while (this.fileQueue.length) {
      const event = this.fileQueue[0]!;
      if (event.seq <= this.delivered) {
        this.fileQueue.shift();
        continue;
      }
      if (event.seq !== this.delivered + 1 || event.event === 'subloop_complete') return false;
      let timed: TimedEvent = event;
      if (event.event === 'action_complete') {
        const output = outputs?.[this.actionsInExecution];
        if (outputs && !output) return true;
        if (output) timed = { ...event, action_output: output };
        this.actionsInExecution += 1;
      }
      this.fileQueue.shift();
      this.delivered = event.seq;
      this.deliver(timed);
      served = true;
      if (event.event === 'loop_complete') this.endFromFile = true;
    }
    return served;
  }

  /** When the last replay started and how long it took (for the pace of replays while following). */
  private lastReplay = { at: 0, ms: 0 };

  /**
   * Replay the execution's history so far; deliver the events not delivered yet. While following,
   * replays are spaced by twice the time the last one took (at least 200 ms): each replays the
   * whole history, so a long run must not keep a core busy; the pages that arrive meanwhile are
   * taken by the next one.
   */
  private async replay(history: HistoryEvent[], final: boolean): Promise<void> {
    if (history.length === 0) return;
    if (!final) {
      const wait = this.lastReplay.at + Math.max(MIN_REPLAY_SPACING_MS, 2 * this.lastReplay.ms) - Date.now();
      if (wait > 0) await delay(wait);
    }
    const started = Date.now();
    const replayed = await this.replayer.replay({ events: history }, this.workflowId);
    this.lastReplay = { at: started, ms: Date.now() - started };
    const outputs = this.opts.actionOutput ? this.results.of(history) : [];
    let completed = 0;
    for (const replayedEvent of replayed.events) {
      let event: TimedEvent = replayedEvent;
      if (event.event === 'action_complete' && this.opts.actionOutput) {
        const output = outputs[completed++];
        if (output) event = { ...event, action_output: output };
      }
      if (event.seq <= this.delivered) continue;
      if (event.event === 'action_complete') this.actionsInExecution = completed;
      // A sub-loop's own events come before its end in the parent's stream.
      if (event.event === 'subloop_complete') await this.children.shift();
      this.delivered = event.seq;
      this.deliver(event);
    }
    if (replayed.error && final) {
      this.warnings.push(
        `this ll-loop cannot interpret the history of ${this.workflowId} (${replayed.error.message.split('\n')[0]}); events after #${this.delivered} are missing`,
      );
    }
  }

  private deliver(event: TimedEvent): void {
    this.gate.pass(() => {
      if (this.depth === 0) {
        this.events.push(event);
        this.opts.onEvent?.(event);
      } else this.opts.onEvent?.({ ...event, subloop: { depth: this.depth, workflow_id: this.workflowId } });
      // The state that runs the next child is on screen: the child's lines may follow.
      if (event.event === 'subloop_start') {
        const next = this.childGates.shift();
        if (next) next.open();
        else this.startsAhead += 1;
      }
    });
  }
}

/** The run's events (and how it ended), read from its history; with `follow`, until it closes. */
export async function followEvents(
  client: Client,
  workflowId: string,
  opts: FollowEventsOptions = {},
): Promise<FollowedRun> {
  const follower = new ChainFollower(client, workflowId, opts);
  await follower.run();
  return {
    workflowId,
    events: follower.events,
    end: follower.end,
    input: follower.input,
    warnings: follower.warnings,
    replayed: follower.replayer.loaded,
  };
}
