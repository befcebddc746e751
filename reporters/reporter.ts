/** Reporters turn one event stream (and the final result) into output. */
import type { ExecutionResult } from '../fsm/types.js';
import type { TimedEvent } from '../fsm/run/events.js';

export interface RunInfo {
  instanceId: string;
  eventsFile?: string;
  uiUrl?: string;
}

export interface Reporter {
  onStart?(info: RunInfo): void;
  onEvent(event: TimedEvent): void;
  onResult(result: ExecutionResult, info: RunInfo): void;
}
