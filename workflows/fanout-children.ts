/**
 * The running items of one fan-out, by run id, with the handles `startChild` returned, so the
 * parent can signal them (workflows/fanout-ledger.ts, fanout-pauses.ts). `startChild` and then
 * `result()` issue exactly the commands `executeChild` does.
 */
import {
  startChild,
  type ChildWorkflowHandle,
  type ChildWorkflowOptions,
  type SignalDefinition,
  type WithWorkflowArgs,
} from '@temporalio/workflow';
import type { LoopRunResult, LoopWorkflowInput } from './definitions.js';

/** A loop run started as a child: its one argument is its input. */
export type ItemWorkflow = (input: LoopWorkflowInput) => Promise<LoopRunResult>;
export type ItemOptions = WithWorkflowArgs<ItemWorkflow, ChildWorkflowOptions>;

export class FanoutChildren {
  private readonly handles = new Map<string, ChildWorkflowHandle<ItemWorkflow>>();
  private readonly onStart: Array<(runId: string) => void> = [];

  /** Called with each item's run id once its child has started. */
  started(listener: (runId: string) => void): void {
    this.onStart.push(listener);
  }

  /** Start an item's child run and keep its handle while it runs; its result. */
  async run(runId: string, options: ItemOptions): Promise<LoopRunResult> {
    const handle = await startChild<ItemWorkflow>('loopWorkflow', options);
    this.handles.set(runId, handle);
    for (const listener of this.onStart) listener(runId);
    return handle.result();
  }

  ended(runId: string | undefined): void {
    if (runId !== undefined) this.handles.delete(runId);
  }

  isRunning(runId: string): boolean {
    return this.handles.has(runId);
  }

  /** Signal the running items (those `only` accepts); one that ended meanwhile cannot take it, and needs nothing. */
  signal<T>(def: SignalDefinition<[T]>, arg: T, only?: (runId: string) => boolean): void {
    for (const [runId, handle] of this.handles)
      if (only === undefined || only(runId)) handle.signal(def, arg).catch(() => undefined);
  }
}
