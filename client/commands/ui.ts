/**
 * `ll-loop ui [--port N] [--no-open]`: a local web view of this project's runs, live (ui/). Starts
 * the server in this process (it serves until Ctrl-C), or finds the one this project already has
 * (its record, `.loops/.running/ui.json`, names its port and token: the user's alone, 0600) and
 * prints its URL again. Opens the browser unless `--no-open`.
 *
 * A server started again takes the port and token of the project's last one (the record outlives
 * it), so a page left open reconnects by itself; when that port is taken meanwhile, a free one.
 * A project has one server: `--port` naming another port while it serves is refused (a second
 * server would take over the record, and once stopped leave it naming a dead port).
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { bool, str, type CommandSpec } from '../command-table.js';
import { CliError, UsageError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { openSession } from '../../temporal/session.js';
import { ensureRuntimeDir } from '../../loader/runtime-dir.js';
import { runningDir } from '../../host/run-files.js';
import { PortTakenError, startUiServer, type UiServer } from '../../ui/server/ui-server.js';
import { temporalRunSource } from '../../ui/server/temporal-source.js';

interface UiRecord {
  pid: number;
  port: number;
  token: string;
  url: string;
}

function recordPath(cwd: string): string {
  return join(runningDir(cwd), 'ui.json');
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readRecord(cwd: string): UiRecord | undefined {
  try {
    const record = JSON.parse(readFileSync(recordPath(cwd), 'utf8')) as Partial<UiRecord>;
    const { pid, port, token, url } = record;
    if (typeof pid !== 'number' || typeof port !== 'number' || typeof token !== 'string' || typeof url !== 'string')
      return undefined;
    return { pid, port, token, url };
  } catch {
    return undefined;
  }
}

/** This project's running server, when its record names a live one that answers. */
async function runningServer(record: UiRecord | undefined): Promise<UiRecord | undefined> {
  if (!record || !alive(record.pid)) return undefined;
  const ping = new URL('/api/ping', record.url);
  ping.search = new URL(record.url).search;
  try {
    const res = await fetch(ping, { signal: AbortSignal.timeout(2_000) });
    return res.ok ? record : undefined;
  } catch {
    return undefined;
  }
}

/** Opens `url` in the user's browser, when an opener can be started (the URL is printed anyway). */
function openBrowser(url: string): void {
  const [cmd, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '', url]]
        : ['xdg-open', [url]];
  try {
    const child = spawn(cmd, args, { detached: true, stdio: 'ignore' });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // No opener: the URL is printed.
  }
}

/** Resolves on the first SIGINT or SIGTERM. */
function untilStopped(): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolve();
    };
    process.on('SIGINT', done);
    process.on('SIGTERM', done);
  });
}

export interface UiOptions {
  cwd: string;
  port?: number;
  open: boolean;
  out: (text: string) => void;
}

/** `ll-loop ui`. Returns the exit code once the server stopped (or at once when one was found). */
export async function uiCommand(opts: UiOptions): Promise<number> {
  const last = readRecord(opts.cwd);
  const found = await runningServer(last);
  if (found && opts.port !== undefined && opts.port !== found.port)
    throw new CliError(
      `ll-loop ui already serves this project on port ${found.port} (pid ${found.pid}): ${found.url}`,
      `use that one, or stop it (Ctrl-C where it runs, or kill ${found.pid}) and run ll-loop ui --port ${opts.port}`,
      EXIT.usage,
    );
  if (found) {
    opts.out(`ll-loop ui is already serving this project (pid ${found.pid}): ${found.url}\n`);
    if (opts.open) openBrowser(found.url);
    return EXIT.ok;
  }
  const session = await openSession(opts.cwd);
  try {
    const start = (port: number | undefined) =>
      startUiServer({
        source: temporalRunSource(session, opts.cwd),
        ...(port === undefined ? {} : { port }),
        ...(last ? { token: last.token } : {}),
        title: basename(opts.cwd),
      });
    let server: UiServer;
    if (opts.port !== undefined) server = await start(opts.port);
    else if (last)
      server = await start(last.port).catch((err: unknown) => {
        if (err instanceof PortTakenError) return start(undefined);
        throw err;
      });
    else server = await start(undefined);
    ensureRuntimeDir(runningDir(opts.cwd));
    const record: UiRecord = { pid: process.pid, port: server.port, token: server.token, url: server.url };
    writeFileSync(recordPath(opts.cwd), `${JSON.stringify(record)}\n`, { mode: 0o600 });
    opts.out(`ll-loop ui: ${server.url}\n(this project's runs, live; Ctrl-C stops the server)\n`);
    if (opts.open) openBrowser(server.url);
    try {
      await untilStopped();
    } finally {
      // The record stays: the next server takes its port and token (see the module comment).
      await server.close();
    }
    return EXIT.ok;
  } finally {
    await session.close();
  }
}

/** `ll-loop ui` in the command table. */
export const uiSpec: CommandSpec = {
  usage: "ui [--port N] [--no-open]   a live web view of this project's runs (127.0.0.1 only)",
  flags: { port: { type: 'string' }, 'no-open': { type: 'boolean' } },
  run(ctx) {
    if (ctx.positionals.length)
      throw new UsageError(`unexpected arguments: ${ctx.positionals.join(' ')}`, 'll-loop ui [--port N] [--no-open]');
    const portText = str(ctx, 'port');
    const port = portText === undefined ? undefined : Number(portText);
    if (port !== undefined && !(Number.isInteger(port) && port >= 1 && port <= 65535))
      throw new UsageError(`--port must be a port number (1-65535), got "${portText}"`, 'll-loop ui --port 8790');
    return uiCommand({
      cwd: ctx.cwd,
      open: !bool(ctx, 'no-open'),
      out: ctx.out,
      ...(port === undefined ? {} : { port }),
    });
  },
};
