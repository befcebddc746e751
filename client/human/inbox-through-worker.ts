/**
 * `ll-loop inbox`'s fast path: when this checkout's worker of this very build is up and polls the
 * server this command would use, the command asks it for the runs waiting for a person over the
 * worker's socket (inbox-wire.ts), and so never loads the Temporal client nor connects (most of
 * the command's time: docs/decisions.md, "`ll-loop inbox` asks the checkout's worker").
 *
 * Undefined means "list them yourself": no such worker, no socket (a stale one: nobody listens),
 * a refusal, no answer in time, or `LL_START_SOCKET=0`. The listing only reads, so asking again
 * the ordinary way is always safe, and every error the command reports is its own.
 */
import { createConnection } from 'node:net';
import { codeId } from '../../host/build-info.js';
import { liveWorkerRecord } from '../../host/checkout-claim.js';
import { findCheckoutRoot } from '../../host/checkout.js';
import { socketPathUsable, startSocketPath } from '../../host/worker-socket.js';
import type { ProjectScope } from '../runs/project-scope.js';
import { embeddedServerOptions } from '../temporal/embedded.js';
import type { WaitingRun } from './find-waiting.js';
import type { WorkerInboxReply, WorkerInboxRequest } from './inbox-wire.js';

/**
 * How long the worker may take to answer before the command lists the runs itself: far longer
 * than a listing takes (tens of ms), short enough that a wedged worker costs little.
 */
export const INBOX_ANSWER_MS = 15_000;

export interface InboxAsk {
  /** The command's checkout directory. */
  cwd: string;
  project: ProjectScope | undefined;
  here: ProjectScope;
  env?: NodeJS.ProcessEnv;
}

/** The inbox from the checkout's worker, or undefined when the command must list it itself. */
export async function inboxThroughWorker(ask: InboxAsk): Promise<WaitingRun[] | undefined> {
  const env = ask.env ?? process.env;
  if (env.LL_START_SOCKET === '0') return undefined;
  // An external server's connection settings (TLS, API key, namespace) are the command's own:
  // only the embedded server's worker is known to use the same.
  if (env.TEMPORAL_ADDRESS?.trim()) return undefined;
  const address = `127.0.0.1:${embeddedServerOptions(ask.cwd, env).port}`;
  const root = findCheckoutRoot(ask.cwd) ?? ask.cwd;
  const worker = liveWorkerRecord(root);
  if (!worker || worker.code_id !== codeId() || worker.address !== address) return undefined;
  const path = startSocketPath(root);
  if (!socketPathUsable(path)) return undefined;
  const request: WorkerInboxRequest = {
    kind: 'inbox',
    code_id: codeId(),
    address,
    root,
    project: ask.project ?? null,
    here: ask.here,
  };
  const reply = await askWorker(path, request);
  return reply?.kind === 'inbox' && Array.isArray(reply.waiting) ? reply.waiting : undefined;
}

/** One request, one answer line; undefined on any failure (nothing was changed anywhere). */
function askWorker(path: string, request: WorkerInboxRequest): Promise<WorkerInboxReply | undefined> {
  return new Promise((resolve) => {
    const socket = createConnection(path);
    let buffer = '';
    const done = (reply: WorkerInboxReply | undefined) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(reply);
    };
    const timer = setTimeout(() => done(undefined), INBOX_ANSWER_MS);
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`${JSON.stringify(request)}\n`));
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      const end = buffer.indexOf('\n');
      if (end < 0) return;
      try {
        done(JSON.parse(buffer.slice(0, end)) as WorkerInboxReply);
      } catch {
        done(undefined);
      }
    });
    socket.on('error', () => done(undefined));
    socket.on('close', () => done(undefined));
  });
}
