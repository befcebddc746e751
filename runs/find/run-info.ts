/**
 * Where to find a run: its id, events file and (embedded server) Web UI page. Apart from
 * follow-run.ts so that `run --background` and the start of `run` need none of the following code.
 */
import { eventsPath } from '../../host/run-files.js';
import type { RunInfo } from '../../reporters/reporter.js';
import type { TemporalEndpoint } from '../../temporal/connection.js';

export function runInfo(endpoint: TemporalEndpoint & { uiUrl?: string }, cwd: string, instanceId: string): RunInfo {
  return {
    instanceId,
    eventsFile: eventsPath(cwd, instanceId),
    ...(endpoint.uiUrl
      ? { uiUrl: `${endpoint.uiUrl}/namespaces/${endpoint.namespace}/workflows/${encodeURIComponent(instanceId)}` }
      : {}),
  };
}
