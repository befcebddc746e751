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

/** A TCP port on 127.0.0.1 that nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
