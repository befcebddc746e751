/** `ll-loop server start|status|stop`: the embedded dev server (data in .loops/.temporal/). */
import { join } from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import { ensureDevServer, probeTemporal, stopDevServer } from '../temporal/dev-server.js';
import { UsageError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { embeddedServerOptions } from '../temporal/embedded.js';

export async function serverCommand(action: string | undefined, cwd: string, json: boolean, out: (t: string) => void): Promise<number> {
  const opts = embeddedServerOptions(cwd);
  const address = `127.0.0.1:${opts.port}`;
  switch (action) {
    case 'start': {
      const server = await ensureDevServer(opts);
      const text = `${server.started ? 'started' : 'already running'}: ${server.address} · Web UI ${server.uiUrl} · data ${opts.dataDir}`;
      out(json ? `${JSON.stringify({ ...server, dataDir: opts.dataDir })}\n` : `${text}\n`);
      return EXIT.ok;
    }
    case 'status': {
      const probe = await probeTemporal(address);
      const pidFile = join(opts.dataDir, 'server.pid');
      const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim()) : undefined;
      const running = probe.kind === 'temporal';
      if (json) out(`${JSON.stringify({ address, running, pid, dataDir: opts.dataDir, uiUrl: `http://127.0.0.1:${opts.uiPort}` })}\n`);
      else out(running ? `running: ${address} · Web UI http://127.0.0.1:${opts.uiPort}${pid ? ` · pid ${pid}` : ''}\n` : `not running (${address})\n`);
      return running ? EXIT.ok : EXIT.infrastructure;
    }
    case 'stop': {
      const stopped = await stopDevServer(opts.dataDir);
      out(json ? `${JSON.stringify({ stopped })}\n` : stopped ? 'stopped\n' : `no server started from ${opts.dataDir} is running\n`);
      return EXIT.ok;
    }
    default:
      throw new UsageError(`unknown server action "${action ?? ''}"`, 'use ll-loop server start | status | stop');
  }
}
