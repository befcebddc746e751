/**
 * A TCP relay in front of the test's Temporal server, bytes as they are, that can be cut: a worker
 * connected through it loses the server the way a host whose link goes down does (its calls fail,
 * its completions cannot be reported), without network namespaces. Restored, it relays again and
 * the worker's connection reconnects.
 */
import { createConnection, createServer, type Socket } from 'node:net';

export interface Relay {
  /** `127.0.0.1:<port>`, to connect through. */
  address: string;
  /** Drop every connection and refuse new ones until restored. */
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startRelay(target: string): Promise<Relay> {
  const [host, port] = [target.slice(0, target.lastIndexOf(':')), Number(target.slice(target.lastIndexOf(':') + 1))];
  const sockets = new Set<Socket>();
  let down = false;
  const server = createServer((inbound) => {
    if (down) {
      inbound.destroy();
      return;
    }
    const outbound = createConnection({ host, port });
    for (const s of [inbound, outbound]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {
        inbound.destroy();
        outbound.destroy();
      });
    }
    inbound.pipe(outbound).pipe(inbound);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(server.address() as { port: number }).port}`,
    cut: () => {
      down = true;
      sockets.forEach((s) => s.destroy());
    },
    restore: () => {
      down = false;
    },
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      sockets.forEach((s) => s.destroy());
      await closed;
    },
  };
}
