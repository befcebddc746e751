/**
 * One start request to the checkout's worker over its socket, one answer (start-through-worker.ts,
 * early-start.ts). Light: the bin's early start loads it before the CLI.
 */
import { createConnection } from 'node:net';
import { CliError } from '../errors.js';
import { EXIT } from '../exit-codes.js';

/**
 * Undefined when the request never reached a listener (no socket, or a stale one); an error when
 * it did and the answer is lost (the run may have started: starting it again would make a second).
 * `sent` is called once the worker has the request.
 */
export function askToStart<Reply>(path: string, request: object, sent?: () => void): Promise<Reply | undefined> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(path);
    let connected = false;
    let buffer = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => {
      connected = true;
      socket.write(`${JSON.stringify(request)}\n`, () => sent?.());
    });
    socket.on('data', (chunk: string) => (buffer += chunk));
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (!connected) resolve(undefined);
      else reject(lost(path, err.message));
    });
    socket.on('close', () => {
      if (!connected) return resolve(undefined);
      const line = buffer.slice(0, buffer.indexOf('\n'));
      try {
        resolve(JSON.parse(line) as Reply);
      } catch {
        reject(lost(path, 'the worker closed the connection without an answer'));
      }
    });
  });
}

function lost(path: string, why: string): CliError {
  return new CliError(
    `the checkout's worker took the start request (${path}) but its answer was lost: ${why}`,
    'the run may have started: see ll-loop list --running; then ll-loop status <id> --follow',
    EXIT.infrastructure,
  );
}
