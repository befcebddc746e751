/**
 * Where a checkout's worker listens for the commands of that checkout (`ll-loop run`'s starts,
 * `ll-loop inbox`'s listing): a Unix socket in a directory only its owner can enter (0700), so
 * only the user who runs the worker can reach it.
 */
import { join } from 'node:path';
import { workerDir } from './checkout.js';

/** The directory of the socket (mode 0700) and the socket itself. */
export function startSocketDir(root: string): string {
  return join(workerDir(root), 'start');
}

export function startSocketPath(root: string): string {
  return join(startSocketDir(root), 's.sock');
}

/**
 * Unix socket paths are limited (108 bytes on Linux, 104 on macOS, with the terminating NUL): a
 * checkout deeper than that gets no socket, and its commands do their work themselves.
 */
const MAX_SOCKET_PATH_BYTES = 103;

export function socketPathUsable(path: string): boolean {
  return Buffer.byteLength(path, 'utf8') <= MAX_SOCKET_PATH_BYTES;
}
