/**
 * Where the `ll-loop ui` server gets runs from, and how it acts on them: the interface its routes
 * use. The real one (temporal-source.ts) goes through the same client code as the CLI; the routes'
 * tests give one of their own (their subject is the HTTP layer: token, methods, escaping).
 */
import type { TimedEvent } from '../../fsm/run/events.js';
import type { ActionAnswer, ActRequest, RunGraph, RunMessage, RunRow, RunStatusView } from './wire.js';

export type RunEndView = Omit<Extract<RunMessage, { type: 'end' }>, 'type'>;

/** What following a run hands on, in order. */
export interface RunFollowSink {
  graph(graph: RunGraph): void;
  event(event: TimedEvent): void;
  /** Output of a running action as it is written; `restart`: its live file started over. */
  output(output: { workflowId: string; state: string; pass: number; text: string; restart?: boolean }): void;
  /** The action of `workflowId` ended: its output is in its `action_complete`. */
  outputEnd(workflowId: string): void;
  /** The run entered `state` (event `seq`), known before its history shows it. */
  liveState(seq: number, state: string): void;
  captured(captured: Record<string, unknown>): void;
  notice(message: string): void;
  /** The run closed (wire.ts: the `end` message). */
  end(end: RunEndView): void;
}

export interface RunSource {
  /** This project's runs, newest first. */
  listRuns(): Promise<RunRow[]>;
  /** Follows the run until it closes (resolves then); throws when it cannot be followed at all. */
  followRun(id: string, sink: RunFollowSink): Promise<void>;
  stop(id: string): Promise<ActionAnswer>;
  resume(id: string): Promise<ActionAnswer>;
  /** Pause, unpause, steer, answer, rerun: as the CLI's commands do; never throws. */
  act(id: string, request: ActRequest): Promise<ActionAnswer>;
  /** What the open run waits for (a person, an unpause, a rate limit); null when closed or silent; `unknown` when no such run. */
  status(id: string): Promise<RunStatusView | null | 'unknown'>;
}
