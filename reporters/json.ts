/** `--json`: nothing while running, the ExecutionResult (plus where to find the run) at the end. */
import type { Reporter } from './reporter.js';

export function createJsonReporter(write: (text: string) => void): Reporter {
  return {
    onEvent: () => undefined,
    onResult(result, info) {
      write(
        `${JSON.stringify({ instance_id: info.instanceId, ...result, ...(info.eventsFile ? { events_file: info.eventsFile } : {}) }, null, 2)}\n`,
      );
    },
  };
}
