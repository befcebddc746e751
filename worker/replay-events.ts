/**
 * The one interpreter of a run's history: replaying it through the real workflow bundle, with the
 * event sink called during replay, gives the run's event stream — the very events the live run
 * emitted, since the core numbers and times them with the workflow's clock. `ll-loop history`,
 * `status --follow`, `monitor` and `run` all read events this way, whoever runs the worker.
 *
 * One replay worker serves a session (the SDK replays the histories fed to it one at a time);
 * each replay starts from the beginning of the history it is given.
 */
import type { History } from '@temporalio/common/lib/proto-utils.js';
import { Worker, type InjectedSinks, type ReplayResult } from '@temporalio/worker';
import type { WorkflowInfo } from '@temporalio/workflow';
import type { RunStreamEvent } from '../fsm/run/events.js';
import type { LoopSinks, RunStateFile } from '../workflows/definitions.js';
import { installQuietRuntime, workflowBundle } from './create-worker.js';
import { withoutWorkflowStackTraces } from './workflow-stack-traces.js';
import { stateFileOf } from '../host/run-files.js';

/** What a replay of one execution's history gave. */
export interface ReplayedExecution {
  events: RunStreamEvent[];
  /** The last state the workflow reported (its snapshot, sequence…), if any. */
  state: RunStateFile | undefined;
  /** Every state it reported, in order (only from a replayer made with `everyState`). */
  states?: RunStateFile[];
  /** Set when this ll-loop cannot interpret the history (recorded by an incompatible release). */
  error?: Error;
}

/** A queue the replay worker reads histories from, one per `replay()` call. */
class HistoryQueue implements AsyncIterable<{ history: History; workflowId: string }> {
  private readonly waiting: Array<{ history: History; workflowId: string }> = [];
  private wake: (() => void) | undefined;
  private closed = false;

  push(item: { history: History; workflowId: string }): void {
    this.waiting.push(item);
    this.wake?.();
  }

  close(): void {
    this.closed = true;
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<{ history: History; workflowId: string }> {
    for (;;) {
      const next = this.waiting.shift();
      if (next) {
        yield next;
        continue;
      }
      if (this.closed) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }
}

/**
 * The SDK's runtime ends once no native worker holds it, and a replay worker takes it
 * (`Runtime.instance()`) well before its native worker holds it (the bundle is loaded between):
 * a replayer closed in that window ends the runtime under the one being made ("replay_worker_new
 * ... failed to downcast"). So in one process (`ll-loop mcp`, `ui`, a command following two runs)
 * a replay worker's making — up to its first replay — and a replay worker's end take turns.
 */
let lifecycle: Promise<unknown> = Promise.resolve();
function inTurn<T>(step: () => Promise<T>): Promise<T> {
  const done = lifecycle.then(step);
  lifecycle = done.catch(() => undefined);
  return done;
}

/** Replays histories through the bundle, one at a time, and collects what the sinks receive. */
export class HistoryReplayer {
  private readonly queue = new HistoryQueue();
  private results: AsyncIterator<ReplayResult> | undefined;
  private current: ReplayedExecution = { events: [], state: undefined };
  private busy: Promise<unknown> = Promise.resolve();

  /** `everyState`: keep each state the run reported, not only the last (`ll-loop rerun` picks one). */
  constructor(private readonly opts: { everyState?: boolean } = {}) {}

  /**
   * Only calls made while replaying recorded events count. A history fetched while its run is in
   * a workflow task ends without that task's completion, and the SDK then runs the last task as
   * new work: with no activities here, a local action in it "fails" ("Local activity … not
   * registered"), and what the workflow emits after that is not what the run did. The live worker
   * emits the real events once the task completes; the next poll of the history shows them.
   */
  private sinks(): InjectedSinks<LoopSinks> {
    const recorded = (info: WorkflowInfo): boolean => info.unsafe.isReplayingHistoryEvents;
    return {
      loopEvents: {
        emit: { fn: (info, event) => void (recorded(info) && this.current.events.push(event)), callDuringReplay: true },
        state: {
          fn: (info, report) => {
            if (!recorded(info)) return;
            this.current.state = stateFileOf(report);
            this.current.states?.push(this.current.state);
          },
          callDuringReplay: true,
        },
      },
    };
  }

  private async start(): Promise<AsyncIterator<ReplayResult>> {
    installQuietRuntime('ERROR');
    withoutWorkflowStackTraces();
    const options = { workflowBundle: await workflowBundle(), sinks: this.sinks(), replayName: 'll-loop events' };
    return Worker.runReplayHistories(options, this.queue)[Symbol.asyncIterator]();
  }

  /** The events and last state of one execution's history (complete or still growing). */
  replay(history: History, workflowId: string): Promise<ReplayedExecution> {
    const run = this.busy.then(async () => {
      this.current = { events: [], state: undefined, ...(this.opts.everyState ? { states: [] } : {}) };
      this.queue.push({ history, workflowId });
      let next: IteratorResult<ReplayResult>;
      if (this.results) next = await this.results.next();
      else
        next = await inTurn(async () => {
          this.results = await this.start();
          return this.results.next();
        });
      const out = this.current;
      if (next.done) return { ...out, error: new Error('the replay worker stopped') };
      return next.value.error ? { ...out, error: next.value.error } : out;
    });
    this.busy = run.catch(() => undefined);
    return run;
  }

  async close(): Promise<void> {
    this.queue.close();
    await this.busy;
    const results = this.results;
    if (results?.return) await inTurn(() => results.return!());
  }
}

/** Replay one history and close the replayer. */
export async function replayExecution(history: History, workflowId: string): Promise<ReplayedExecution> {
  const replayer = new HistoryReplayer();
  try {
    return await replayer.replay(history, workflowId);
  } finally {
    await replayer.close();
  }
}
