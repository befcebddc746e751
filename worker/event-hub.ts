/**
 * Fan-out of live loop events on a worker: the workflow's sink calls land here, get a timestamp,
 * go to the run's files, and to any in-process listener (the `ll-loop run` progress display).
 */
import type { WorkflowInfo } from '@temporalio/workflow';
import type { InjectedSinks } from '@temporalio/worker';
import type { LoopEvent } from '../fsm/types.js';
import type { LoopSinks, RunStateFile } from '../workflows/definitions.js';
import { RunFiles } from './run-files.js';

export type TimedEvent = LoopEvent & { ts: string };
export type EventListener = (event: TimedEvent) => void;

/** Routes events by workflow id. One per worker process. */
export class EventHub {
  private readonly listeners = new Map<string, Set<EventListener>>();
  private readonly files = new Map<string, RunFiles>();

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
    if (!files) {
      files = new RunFiles(cwd, info.workflowId);
      this.files.set(info.workflowId, files);
    }
    return files;
  }

  emit(info: WorkflowInfo, event: LoopEvent): void {
    const timed: TimedEvent = { ...event, ts: new Date().toISOString() };
    try {
      this.filesFor(info)?.appendEvent(timed);
    } catch {
      // Event files are a convenience copy; Temporal history is the record. Never fail the run.
    }
    for (const listener of this.listeners.get(info.workflowId) ?? []) listener(timed);
    if (event.event === 'loop_complete') {
      const files = this.files.get(info.workflowId);
      this.files.delete(info.workflowId);
      void files?.close();
    }
  }

  state(info: WorkflowInfo, state: RunStateFile): void {
    try {
      this.filesFor(info)?.writeState(state);
      if (state.phase === 'done') this.files.delete(info.workflowId);
    } catch {
      // As above: best effort.
    }
  }

  /** Flush every open events file (worker shutdown). */
  async close(): Promise<void> {
    await Promise.all([...this.files.values()].map((f) => f.close()));
    this.files.clear();
  }

  sinks(): InjectedSinks<LoopSinks> {
    return {
      loopEvents: {
        emit: { fn: (info, event) => this.emit(info, event), callDuringReplay: false },
        state: { fn: (info, state) => this.state(info, state), callDuringReplay: false },
      },
    };
  }
}
