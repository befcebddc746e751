/**
 * A long-running worker's event hub: the live sink (run files) plus a log line when a run starts,
 * is picked up or finishes. When a top-level run finishes, the environment its command left for
 * it (host/run-env.ts) is removed.
 */
import type { WorkflowInfo } from '@temporalio/workflow';
import type { RunStreamEvent } from '../../fsm/run/events.js';
import { EventHub } from '../event-hub.js';
import { removeRunEnv } from '../../host/run-env.js';

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

export class LoggingEventHub extends EventHub {
  private readonly seen = new Set<string>();
  /** When the last event of any run arrived (epoch ms; 0 before the first). */
  lastEventMs = 0;
  constructor(private readonly log: (line: string) => void) {
    super();
  }

  override emit(info: WorkflowInfo, event: RunStreamEvent): void {
    super.emit(info, event);
    this.lastEventMs = Date.now();
    const id = info.workflowId;
    const first = !this.seen.has(id);
    this.seen.add(id);
    if (event.event === 'loop_start')
      this.log(`started ${id} (loop ${event.loop}, cwd ${String(info.memo?.cwd ?? '?')})`);
    else if (event.event === 'loop_resume')
      this.log(`started ${id}, resuming ${event.from_run} in state ${event.state}`);
    else if (first && event.event !== 'loop_complete')
      this.log(`picked up ${id} (in progress, state ${'state' in event ? event.state : '?'})`);
    if (event.event === 'loop_complete') {
      this.seen.delete(id);
      if (!info.parent) removeRunEnv(id);
      const error = event.error ? `: ${event.error}` : '';
      const ending =
        event.terminated_by === 'terminal' && event.failure === true ? 'failure terminal' : event.terminated_by;
      this.log(
        `finished ${id}: ${ending} in state ${event.final_state} (${plural(event.iterations, 'iteration')})${error}`,
      );
    }
  }
}
