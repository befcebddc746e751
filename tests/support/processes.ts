/** Test helpers about the machine: live processes and free ports. */
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** Live processes whose command line contains `marker` (zombies excluded). */
export function liveProcesses(marker: string): number {
  let n = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (cmd.includes(marker) && !/\) Z /.test(stat)) n += 1;
    } catch {
      // The process ended while we looked.
    }
  }
  return n;
}

/** Whether a server can listen on 127.0.0.1:`port` right now. */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A TCP port on 127.0.0.1 that nothing listens on right now, chosen below Linux's ephemeral range
 * (32768–60999): a port the OS hands out for `listen(0)` is also one it may hand to the next
 * outgoing connection of a parallel test, and a server started a moment later then fails to bind.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await canListen(port)) return port;
  }
  throw new Error('no free port between 20000 and 32000 on 127.0.0.1');
}
