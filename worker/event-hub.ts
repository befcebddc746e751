/**
 * The live sink of a worker: the workflow's event and state calls land here and go to the run's
 * files (`.loops/.running/`), and to in-process listeners (tests compare this live stream with
 * the one a replay of the history gives). Events arrive numbered and timed by the core; each
 * number reaches the files and the listeners once.
 */
import { existsSync } from 'node:fs';
import type { WorkflowInfo } from '@temporalio/workflow';
import type { InjectedSinks } from '@temporalio/worker';
import type { RunStreamEvent, TimedEvent } from '../fsm/run/events.js';
import type { LoopSinks, RunStateFile } from '../workflows/definitions.js';
import { RunFiles, stateFileOf } from '../host/run-files.js';
import { noteControls } from '../host/control-requests.js';

const STATE_WRITE_INTERVAL_MS = 200;
/** A long-lived worker closes the events file of a run idle this long, checking every IDLE_SWEEP_MS. */
const IDLE_CLOSE_MS = 10 * 60_000;
const IDLE_SWEEP_MS = 60_000;

export type EventListener = (event: TimedEvent) => void;

/** Routes events by workflow id. One per worker process. */
export class EventHub {
  private readonly listeners = new Map<string, Set<EventListener>>();
  private readonly files = new Map<string, RunFiles>();
  /** When each open events file was last written: a run that never ends (terminated) must not keep its file open. */
  private readonly lastUsed = new Map<string, number>();
  private sweeper: NodeJS.Timeout | undefined;
  /** Child run → parent run, for runs whose events passed through this hub (sub-loops). */
  private readonly parents = new Map<string, string>();
  private readonly pendingStates = new Map<
    string,
    { files: RunFiles; state: RunStateFile; timer: NodeJS.Timeout | undefined }
  >();

  /** Listen to one run's events; returns the unsubscribe function. */
  subscribe(workflowId: string, listener: EventListener): () => void {
    const set = this.listeners.get(workflowId) ?? new Set();
    set.add(listener);
    this.listeners.set(workflowId, set);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(workflowId);
    };
  }

  private filesFor(info: WorkflowInfo): RunFiles | undefined {
    const cwd = info.memo?.cwd;
    if (typeof cwd !== 'string') return undefined;
    let files = this.files.get(info.workflowId);
    // A pool worker on another host than the run's checkout has no such directory: it writes no
    // copy (never creates the path); the history is the record.
    if (!files && !existsSync(cwd)) return undefined;
    this.lastUsed.set(info.workflowId, Date.now());
    this.sweeper ??= setInterval(() => this.closeIdle(), IDLE_SWEEP_MS).unref();
    if (!files) {
      files = new RunFiles(cwd, info.workflowId);
      this.files.set(info.workflowId, files);
    }
    return files;
  }

  /** The last event number delivered per run (listeners get each number once, like the files). */
  private readonly delivered = new Map<string, number>();

  /** The run's info as its workflow last gave it, for events an activity hands on ahead of it. */
  private readonly infos = new Map<string, WorkflowInfo>();

  /**
   * Events of run `workflowId` an activity decided ahead of the workflow (activities/burst-after.ts):
   * written and delivered now, and not again when the workflow records them (same numbers). Only
   * for a run whose workflow gives its events here: another worker's copy is its own.
   */
  ahead(workflowId: string, events: readonly RunStreamEvent[]): void {
    const info = this.infos.get(workflowId);
    if (info === undefined) return;
    for (const event of events) this.emit(info, event);
  }

  emit(info: WorkflowInfo, event: RunStreamEvent): void {
    const timed: TimedEvent = event;
    this.infos.set(info.workflowId, info);
    try {
      this.filesFor(info)?.appendEvent(event);
    } catch {
      // Event files are a convenience copy; Temporal history is the record. Never fail the run.
    }
    if (event.seq <= (this.delivered.get(info.workflowId) ?? 0)) return;
    this.delivered.set(info.workflowId, event.seq);
    for (const listener of this.listeners.get(info.workflowId) ?? []) listener(timed);
    this.forwardToAncestors(info, timed);
    if (event.event === 'loop_complete') {
      const files = this.files.get(info.workflowId);
      this.files.delete(info.workflowId);
      this.parents.delete(info.workflowId);
      this.delivered.delete(info.workflowId);
      this.infos.delete(info.workflowId);
      void files?.close();
    }
  }

  /**
   * A sub-loop's events also reach the listeners of the runs above it (the parent's progress
   * display shows the child's steps, indented). Children run on their parent's task queue, so
   * the whole chain passes through this hub and `parents` knows it.
   */
  private forwardToAncestors(info: WorkflowInfo, event: TimedEvent): void {
    const parent = info.parent?.workflowId;
    if (parent === undefined) return;
    this.parents.set(info.workflowId, parent);
    let depth = 1;
    for (let id: string | undefined = parent; id !== undefined && depth <= 64; id = this.parents.get(id), depth += 1) {
      const listeners = this.listeners.get(id);
      if (!listeners) continue;
      const forwarded: TimedEvent = { ...event, subloop: { depth, workflow_id: info.workflowId } };
      for (const listener of listeners) listener(forwarded);
    }
  }

  /**
   * The state file is rewritten at most every STATE_WRITE_INTERVAL_MS (latest state wins), and at
   * once when the run ends: a write per transition would cost more than the transition.
   */
  state(info: WorkflowInfo, state: RunStateFile): void {
    const files = this.filesFor(info);
    if (!files) return;
    const id = info.workflowId;
    const pending = this.pendingStates.get(id);
    this.pendingStates.set(id, { files, state, timer: pending?.timer });
    if (state.phase === 'done') return this.writeState(id);
    if (!pending?.timer) {
      const timer = setTimeout(() => this.writeState(id), STATE_WRITE_INTERVAL_MS);
      timer.unref();
      this.pendingStates.get(id)!.timer = timer;
    }
  }

  private writeState(id: string): void {
    const pending = this.pendingStates.get(id);
    if (!pending) return;
    if (pending.timer) clearTimeout(pending.timer);
    this.pendingStates.delete(id);
    try {
      pending.files.writeState(pending.state);
    } catch {
      // As with events: best effort, never fail the run.
    }
    if (pending.state.phase === 'done') this.files.delete(id);
  }

  /**
   * Close the events files of runs that have not emitted for IDLE_CLOSE_MS (a run terminated from
   * outside never emits loop_complete). A later event reopens the file and appends.
   */
  private closeIdle(now = Date.now()): void {
    for (const [id, at] of this.lastUsed) {
      if (now - at < IDLE_CLOSE_MS || this.pendingStates.has(id)) continue;
      this.lastUsed.delete(id);
      const files = this.files.get(id);
      this.files.delete(id);
      void files?.close();
    }
  }

  /** Flush every open events file (worker shutdown). */
  async close(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
    for (const id of [...this.pendingStates.keys()]) this.writeState(id);
    await Promise.all([...this.files.values()].map((f) => f.close()));
    this.files.clear();
  }

  sinks(): InjectedSinks<LoopSinks> {
    return {
      loopEvents: {
        emit: { fn: (info, event) => this.emit(info, event), callDuringReplay: false },
        state: {
          fn: (info, report) => {
            // A pause or steer ends the quick actions an action's activity would run after it (host/control-requests.ts).
            noteControls(info.workflowId, report.snapshot);
            this.state(info, stateFileOf(report));
          },
          callDuringReplay: false,
        },
      },
    };
  }
}
