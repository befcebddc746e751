/**
 * The command's side of the worker's socket: one stub for every kind of schemas.ts's KINDS, typed
 * from it (types only: the command loads neither zod nor the worker's handlers, requests.ts, which
 * would cost every `status` its time), and one for a stream. The worker checked its answer against the kind's
 * reply schema before sending it (dispatch.ts), and only a worker of this very build is asked
 * (runs/worker-ask.ts), so the command reads the answer by its `kind`.
 *
 * Light on purpose: the bin's early start loads this before the CLI.
 */
import { createConnection } from 'node:net';
import { CliError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { checkoutWorkerTarget } from '../worker-ask.js';
import type { MessageOf, ReplyOf, RequestOf, StreamKind, UnaryKind } from './schemas.js';
import type { WorkerError } from './replies.js';

/** What addresses a request to the checkout's worker: filled in by {@link askCheckoutWorker}. */
type Addressing = 'code_id' | 'address' | 'root';

/** The answer of its own kind to `K` (a report, a listing), as opposed to a refusal or an error. */
type AnswerOf<K extends UnaryKind> = Extract<ReplyOf<K>, { kind: K }>;

/**
 * Ask this checkout's worker for `kind`: its answer, or undefined when there is no such worker,
 * it refused, or no answer came in `timeoutMs` (the command then does the work itself: only a
 * kind whose work may be done again is asked this way). An error the work ended in is thrown as
 * the command's own error: the work is not done twice.
 */
export async function askCheckoutWorker<K extends UnaryKind>(
  kind: K,
  body: Omit<RequestOf<K>, Addressing | 'kind'>,
  at: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<AnswerOf<K> | undefined> {
  const worker = checkoutWorkerTarget(at.cwd, at.env);
  if (worker === undefined) return undefined;
  const { path, code_id, address, root } = worker;
  const reply = await askWorkerOnce<ReplyOf<K>>(path, { ...body, kind, code_id, address, root }, at.timeoutMs);
  if (reply?.kind === 'error') throw workerError(reply);
  return reply?.kind === kind ? (reply as AnswerOf<K>) : undefined;
}

/** An error the worker answered, as the command would have thrown it (client/cli.ts prints the same). */
function workerError(reply: WorkerError): CliError {
  return new CliError(reply.message, reply.fix, reply.exit_code);
}

/** One request line, one answer line; undefined on any failure (for a request that may be made again). */
export function askWorkerOnce<Reply>(path: string, request: object, timeoutMs: number): Promise<Reply | undefined> {
  return new Promise((resolve) => {
    const socket = createConnection(path);
    // The answer so far, in pieces: a report (`logs` of a long run) can be many MB, and looking
    // for its end again in the whole text at every piece would take time quadratic in its size.
    const pieces: string[] = [];
    const done = (reply: Reply | undefined) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(reply);
    };
    const timer = setTimeout(() => done(undefined), timeoutMs);
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`${JSON.stringify(request)}\n`));
    socket.on('data', (chunk: string) => {
      const end = chunk.indexOf('\n');
      if (end < 0) {
        pieces.push(chunk);
        return;
      }
      pieces.push(chunk.slice(0, end));
      try {
        done(JSON.parse(pieces.join('')) as Reply);
      } catch {
        done(undefined);
      }
    });
    socket.on('error', () => done(undefined));
    socket.on('close', () => done(undefined));
  });
}

/**
 * One start request (`start`, `start_argv`), one answer. A start is made once: undefined only
 * when the request never reached a listener (no socket, or a stale one); an error when it did and
 * the answer is lost (the run may have started: starting it again would make a second one).
 * `sent` is called once the worker has the request.
 */
export function askToStart<Reply extends ReplyOf<'start'> | ReplyOf<'start_argv'>>(
  path: string,
  request: RequestOf<'start'> | RequestOf<'start_argv'>,
  sent?: () => void,
): Promise<Reply | undefined> {
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
      const reply = parseLine<Reply>(buffer.slice(0, buffer.indexOf('\n')));
      if (reply === undefined) reject(lost(path, 'the worker closed the connection without an answer'));
      else resolve(reply);
    });
  });
}

/** A stream of the worker's messages (`follow`), and the one kind of line the command may add. */
export interface WorkerStream<Up> {
  /** Write a line after the request (buffered until connected, so it always comes after it). */
  write(line: Up): void;
  /** Stop reading: nothing more is delivered. */
  close(): void;
}

/**
 * Open a stream of `kind` on the worker listening on `path`: each message to `message`, in order;
 * `broken` once when the stream ends otherwise — no listener, a line that is not a message, the
 * worker gone — after which nothing more is delivered. The request is written at once.
 */
export function openStream<K extends StreamKind, Up extends object = never>(
  path: string,
  request: RequestOf<K>,
  on: { message(message: MessageOf<K>): void; broken(why: string): void },
): WorkerStream<Up> {
  const socket = createConnection(path);
  socket.write(`${JSON.stringify(request)}\n`);
  let closed = false;
  const close = (): void => {
    closed = true;
    socket.destroy();
  };
  const broken = (why: string): void => {
    if (closed) return;
    close();
    on.broken(why);
  };
  let buffer = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    for (let end = buffer.indexOf('\n'); end >= 0 && !closed; end = buffer.indexOf('\n')) {
      const message = parseLine<MessageOf<K>>(buffer.slice(0, end));
      buffer = buffer.slice(end + 1);
      if (message === undefined) return broken('the worker sent a line that is not JSON');
      on.message(message);
    }
  });
  socket.on('error', (err) => broken(err.message));
  socket.on('close', () => broken('the worker closed the connection before the run ended'));
  return {
    write: (line) => {
      if (!socket.destroyed) socket.write(`${JSON.stringify(line)}\n`);
    },
    close,
  };
}

/** A line the worker wrote: an object with a `kind`, else undefined. */
function parseLine<Reply>(line: string): Reply | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null && typeof (value as { kind?: unknown }).kind === 'string'
      ? (value as Reply)
      : undefined;
  } catch {
    return undefined;
  }
}

function lost(path: string, why: string): CliError {
  return new CliError(
    `the checkout's worker took the start request (${path}) but its answer was lost: ${why}`,
    'the run may have started: see ll-loop list --running; then ll-loop status <id> --follow',
    EXIT.infrastructure,
  );
}
