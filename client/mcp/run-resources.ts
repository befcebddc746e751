/**
 * Runs as MCP resources: `ll-loop://runs/<id>` reads as the run's status report (JSON, as
 * `run_status` returns it), with `live_output`, the end of its running action's output, while there
 * is one (client/mcp/live-tail.ts); the open runs are listed. A client may subscribe to a run
 * (resources/subscribe): the server then asks the runs service for its status every poll
 * interval (`LL_MCP_POLL_MS`, default 1000 ms; through the checkout's worker when it serves, a
 * query over its socket) and sends notifications/resources/updated when its status, state, phase
 * or iteration, or its running action's output changed. A closed run is no longer asked: its status cannot change again.
 */
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SubscribeRequestSchema, UnsubscribeRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { StatusReport } from '../../runs/find/status-report.js';
import type { RunsService } from '../../runs/service/interface.js';
import { liveOutputTail, type LiveOutputTail } from './live-tail.js';

const PREFIX = 'll-loop://runs/';
const DEFAULT_POLL_MS = 1_000;

/** The run a resource URI names, or undefined. */
function runIdOf(uri: string): string | undefined {
  if (!uri.startsWith(PREFIX)) return undefined;
  const id = decodeURIComponent(uri.slice(PREFIX.length));
  return id === '' || id.includes('/') ? undefined : id;
}

/** What a subscriber is told about: a change of any of these (the running action's output included). */
function signature(r: StatusReport, output: LiveOutputTail | undefined): string {
  const live = r.live as { state?: string; phase?: string; iteration?: number } | undefined;
  return JSON.stringify([r.status, r.open, live?.state, live?.phase, live?.iteration, output?.text]);
}

function pollMs(env: NodeJS.ProcessEnv): number {
  const n = Number(env.LL_MCP_POLL_MS);
  return Number.isFinite(n) && n >= 50 ? n : DEFAULT_POLL_MS;
}

interface Watched {
  id: string;
  seen?: string;
  closed: boolean;
}

/** Register the run resources and their subscriptions; returns the stop of the poller. */
export function registerRunResources(
  server: McpServer,
  cwd: string,
  runs: RunsService,
  env: NodeJS.ProcessEnv,
): () => void {
  server.registerResource(
    'run',
    new ResourceTemplate(`${PREFIX}{id}`, {
      list: async () => ({
        resources: (await runs.running(cwd, false)).map((r) => ({
          uri: `${PREFIX}${r.id}`,
          name: r.id,
          title: `${r.loop}: ${r.state ?? 'starting'}`,
          mimeType: 'application/json',
        })),
      }),
    }),
    {
      title: 'A loop run',
      description: "A run's status report (run_status's); subscribe to be told when its status or state changes.",
      mimeType: 'application/json',
    },
    async (uri, { id }) => {
      const report = await runs.status(cwd, String(id));
      const output = liveOutputTail(cwd, report);
      const shown = output === undefined ? report : { ...report, live_output: output };
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(shown, null, 2) }] };
    },
  );

  const watched = new Map<string, Watched>();
  const low = server.server;
  low.registerCapabilities({ resources: { subscribe: true } });
  let timer: NodeJS.Timeout | undefined;
  let busy = false;

  const look = async (uri: string, w: Watched): Promise<void> => {
    const report = await runs.status(cwd, w.id).catch(() => undefined);
    if (!report || watched.get(uri) !== w) return;
    const now = signature(report, liveOutputTail(cwd, report));
    const changed = w.seen !== undefined && w.seen !== now;
    w.seen = now;
    w.closed = !report.open;
    if (changed) await low.sendResourceUpdated({ uri }).catch(() => undefined);
  };
  const tick = async (): Promise<void> => {
    if (busy) return;
    busy = true;
    try {
      await Promise.all([...watched].filter(([, w]) => !w.closed).map(([uri, w]) => look(uri, w)));
    } finally {
      busy = false;
    }
  };
  const ensureTimer = (): void => {
    if (timer === undefined && watched.size > 0) {
      timer = setInterval(() => void tick(), pollMs(env));
      timer.unref();
    }
    if (timer !== undefined && watched.size === 0) {
      clearInterval(timer);
      timer = undefined;
    }
  };

  low.setRequestHandler(SubscribeRequestSchema, async (req) => {
    const uri = req.params.uri;
    const id = runIdOf(uri);
    if (id === undefined) throw new Error(`${uri} is not a run: subscribe to ${PREFIX}<run id>`);
    // The run as it is now (an unknown run is refused): the first change after this is told.
    const report = await runs.status(cwd, id);
    watched.set(uri, { id, seen: signature(report, liveOutputTail(cwd, report)), closed: !report.open });
    ensureTimer();
    return {};
  });
  low.setRequestHandler(UnsubscribeRequestSchema, (req) => {
    watched.delete(req.params.uri);
    ensureTimer();
    return {};
  });
  return () => {
    watched.clear();
    ensureTimer();
  };
}
