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
import type { ProjectScope } from '../runs/project-scope.js';
import { askCheckoutWorker } from '../worker-ask.js';
import type { WaitingRun } from './find-waiting.js';
import type { WorkerInboxReply, WorkerInboxRequest } from './inbox-wire.js';

/**
 * How long the worker may take to answer before the command lists the runs itself: far longer
 * than a listing takes (tens of ms), short enough that a wedged worker costs little.
 */
const INBOX_ANSWER_MS = 15_000;

export interface InboxAsk {
  /** The command's checkout directory. */
  cwd: string;
  project: ProjectScope | undefined;
  here: ProjectScope;
  env?: NodeJS.ProcessEnv;
}

/** The inbox from the checkout's worker, or undefined when the command must list it itself. */
export async function inboxThroughWorker(ask: InboxAsk): Promise<WaitingRun[] | undefined> {
  const reply = await askCheckoutWorker<WorkerInboxRequest, WorkerInboxReply>(
    ask.cwd,
    ask.env ?? process.env,
    { kind: 'inbox', project: ask.project ?? null, here: ask.here },
    INBOX_ANSWER_MS,
  );
  return reply?.kind === 'inbox' && Array.isArray(reply.waiting) ? reply.waiting : undefined;
}
