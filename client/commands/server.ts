/** `ll-loop server start|status|stop`: the embedded dev server (data in .loops/.temporal/). */
import { join } from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import { probeTemporal } from '../../temporal/grpc-probe.js';
import { stopDevServer } from '../../temporal/stop-dev-server.js';
import { bool, JSON_FLAG, str, type CommandSpec } from '../command-table.js';
import { UsageError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { embeddedServerOptions } from '../../temporal/embedded.js';

/** A port from `--port`/`--ui-port`, checked. */
function portOf(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 65535)
    throw new UsageError(`${flag} must be a port number (1-65535), got "${value}"`, `e.g. ${flag} 7243`);
  return n;
}

/** What becomes of the runs open on a stopped server (its data keeps them). */
function openRunsNote(n: number, dataDir: string): string {
  const runs = n === 1 ? '1 run is open on it: kept in its data' : `${n} runs are open on it: kept in its data`;
  return `${runs} (${dataDir}), ${n === 1 ? 'it continues' : 'they continue'} when the server runs again (ll-loop server start, or any ll-loop command that uses it starts it; ll-loop list --running shows them)`;
}

export async function serverCommand(
  action: string | undefined,
  cwd: string,
  json: boolean,
  out: (t: string) => void,
  ports: { port?: string | undefined; uiPort?: string | undefined } = {},
): Promise<number> {
  // --port/--ui-port stand for LL_TEMPORAL_PORT/LL_TEMPORAL_UI_PORT for this one command.
  const port = portOf(ports.port, '--port');
  const uiPort = portOf(ports.uiPort, '--ui-port');
  const opts = {
    ...embeddedServerOptions(cwd),
    ...(port === undefined ? {} : { port }),
    ...(uiPort === undefined ? {} : { uiPort }),
  };
  const address = `127.0.0.1:${opts.port}`;
  switch (action) {
    case 'start': {
      // Loaded here: starting (or reusing) a server uses the Temporal SDK; status and stop need none.
      const { ensureDevServer } = await import('../../temporal/dev-server.js');
      const server = await ensureDevServer(opts);
      const text = `${server.started ? 'started' : 'already running'}: ${server.address} · Web UI ${server.uiUrl} · data ${opts.dataDir}`;
      const { connection: _connection, ...shown } = server;
      out(json ? `${JSON.stringify({ ...shown, dataDir: opts.dataDir })}\n` : `${text}\n`);
      if (port !== undefined && !json && process.env.LL_TEMPORAL_PORT !== String(port)) {
        out(
          `other commands use it with LL_TEMPORAL_PORT=${port}${uiPort === undefined ? '' : ` LL_TEMPORAL_UI_PORT=${uiPort}`} (export it, or put it before each ll-loop)\n`,
        );
      }
      return EXIT.ok;
    }
    case 'status': {
      const probe = await probeTemporal(address);
      const pidFile = join(opts.dataDir, 'server.pid');
      const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim()) : undefined;
      const running = probe.kind === 'temporal';
      if (json)
        out(
          `${JSON.stringify({ address, running, pid, dataDir: opts.dataDir, uiUrl: `http://127.0.0.1:${opts.uiPort}` })}\n`,
        );
      else
        out(
          running
            ? `running: ${address} · Web UI http://127.0.0.1:${opts.uiPort}${pid ? ` · pid ${pid}` : ''}\n`
            : `not running (${address})\n`,
        );
      return running ? EXIT.ok : EXIT.infrastructure;
    }
    case 'stop': {
      // Counted first (the SDK loaded only when a server answers): the runs it leaves open.
      const open =
        (await probeTemporal(address)).kind === 'temporal'
          ? await (await import('../../runs/find/open-runs-count.js')).countOpenRuns(address)
          : undefined;
      const stopped = await stopDevServer(opts.dataDir);
      const openRuns = stopped ? open : undefined;
      out(
        json
          ? `${JSON.stringify({ stopped, ...(openRuns === undefined ? {} : { open_runs: openRuns }) })}\n`
          : stopped
            ? `stopped${openRuns ? `; ${openRunsNote(openRuns, opts.dataDir)}` : ''}\n`
            : `no server started from ${opts.dataDir} is running\n`,
      );
      return EXIT.ok;
    }
    default:
      throw new UsageError(`unknown server action "${action ?? ''}"`, 'use ll-loop server start | status | stop');
  }
}

export const serverSpec: CommandSpec = {
  usage: 'server start|status|stop [--port N] [--ui-port N] [--json]   the embedded Temporal dev server',
  flags: { ...JSON_FLAG, port: { type: 'string' }, 'ui-port': { type: 'string' } },
  run: (ctx) =>
    serverCommand(ctx.positionals[0], ctx.cwd, bool(ctx, 'json'), ctx.out, {
      port: str(ctx, 'port'),
      uiPort: str(ctx, 'ui-port'),
    }),
};
