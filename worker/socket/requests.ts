/**
 * The worker's side of its socket: every request kind of schemas.ts's {@link KINDS} with what the
 * worker does for it — the handler that does the work on the worker's session (a read: the runs
 * service's `direct` on that session, runs/service/direct.ts), the request in the worker's
 * log, and for a one-line answer whether the work may be done again. The dispatcher (dispatch.ts)
 * serves from this table. A kind of KINDS without an entry here, or an entry for a kind it does
 * not have, does not compile; the command's side (ask.ts) never imports this file.
 *
 * A stream (`follow`) has a message schema instead of a reply, and its handler writes the stream.
 */
import type { Socket } from 'node:net';
import {
  KINDS,
  type ReceivedOf,
  type ReplyOf,
  type RequestKind,
  type StreamKind,
  type UnaryKind,
} from '../../runs/transport/schemas.js';
import type { ServeContext } from './serve-context.js';
import { serveArgvStart, serveStart } from './serve-starts.js';
import { serveFollow } from '../../runs/follow/serve-follow.js';
import { directRuns } from '../../runs/service/direct.js';

/** What the worker does for a kind answered with one line. */
interface UnaryWork<K extends UnaryKind> {
  /**
   * Whether doing the work again changes nothing (a read): then a failure that is not a verdict
   * on the request (the worker's connection broke) is a refusal, and the command does the work
   * itself. A start is done once: every error it ends in is answered.
   */
  idempotent: boolean;
  /** What the command does when refused, for the worker's log. */
  otherwise: string;
  /** The request in the worker's log (`ll-loop status held`), and its line for an answer it made. */
  what(request: ReceivedOf<K>): string;
  said(request: ReceivedOf<K>, reply: ReplyOf<K>): string | undefined;
  serve(request: ReceivedOf<K>, ctx: ServeContext): Promise<ReplyOf<K>>;
}

/** What the worker does for a kind answered with a stream of messages (the handler writes them on the socket). */
interface StreamWork<K extends StreamKind> {
  serve(request: ReceivedOf<K>, socket: Socket, rest: string, ctx: ServeContext): void;
}

/** A kind's entry: its schemas (KINDS) and what the worker does for it. */
type Entry<K extends RequestKind> = (typeof KINDS)[K] &
  (K extends UnaryKind ? UnaryWork<K> : K extends StreamKind ? StreamWork<K> : never);

const READ = { idempotent: true, otherwise: 'the command asks Temporal itself' };

export const REQUESTS: { [K in RequestKind]: Entry<K> } = {
  /** `ll-loop run`: a loop the command loaded; the worker starts it on its own client. */
  start: {
    ...KINDS.start,
    idempotent: false,
    otherwise: 'the command starts its run itself',
    what: (r) => `ll-loop run ${r.definition.name}`,
    said: (_q, r) => (r.kind === 'started' ? `${r.instance_id}: started for ll-loop run (start socket)` : undefined),
    serve: serveStart,
  },
  /** `ll-loop run`'s early start (runs/start/early-start.ts): the command line, before the CLI is loaded. */
  start_argv: {
    ...KINDS.start_argv,
    idempotent: false,
    otherwise: 'the command starts its run itself',
    what: (r) => `ll-loop ${r.argv.join(' ')}`,
    // A queued start is logged by its handler, once queued for good.
    said: (_q, r) => (r.kind === 'started' ? `${r.instance_id}: started for ll-loop run (early start)` : undefined),
    serve: serveArgvStart,
  },
  status: {
    ...KINDS.status,
    ...READ,
    what: (r) => `ll-loop status ${r.target}`,
    said: (q, r) => (r.kind === 'status' ? `ll-loop status ${q.target}: ${r.report.id} (start socket)` : undefined),
    // The worker's session may have started the server, long ago: whether the server has just
    // restarted is read from its pid file, as the command reads it.
    serve: async (r, { session }) => ({
      kind: 'status' as const,
      report: await directRuns({ ...session, endpoint: { ...session.endpoint, started: false } }).status(
        r.cwd,
        r.target,
      ),
    }),
  },
  logs: {
    ...KINDS.logs,
    ...READ,
    what: (r) => `ll-loop logs ${r.target}`,
    said: (q, r) =>
      r.kind === 'logs'
        ? `ll-loop logs ${q.target}: ${r.report.actions.length} actions of ${r.report.id} (start socket)`
        : undefined,
    serve: async ({ cwd, target, state, item }, { session }) => ({
      kind: 'logs' as const,
      report: await directRuns(session).logs({
        cwd,
        target,
        ...(state === undefined ? {} : { state }),
        ...(item === undefined ? {} : { item }),
      }),
    }),
  },
  history: {
    ...KINDS.history,
    ...READ,
    what: (r) => `ll-loop history ${r.runId ?? r.loop}`,
    said: (q, r) =>
      r.kind !== 'history'
        ? undefined
        : `ll-loop history ${q.runId ?? q.loop}: ${
            r.report.kind === 'runs'
              ? `${r.report.entries.length} runs`
              : `${r.report.report.events.length} events of ${r.report.report.id}`
          } (start socket)`,
    serve: async ({ cwd, loop, runId, events, state }, { session }) => ({
      kind: 'history' as const,
      report: await directRuns(session).history({
        cwd,
        loop,
        ...(runId === undefined ? {} : { runId }),
        ...(events === undefined ? {} : { events }),
        ...(state === undefined ? {} : { state }),
      }),
    }),
  },
  /** `ll-loop inbox`: the runs waiting for a person, of one project or (project null) of all. */
  inbox: {
    ...KINDS.inbox,
    ...READ,
    otherwise: 'the command lists the runs itself',
    what: () => 'll-loop inbox',
    said: (_q, r) => (r.kind === 'inbox' ? `ll-loop inbox: ${r.waiting.length} waiting (start socket)` : undefined),
    serve: async (r, { session }) => ({
      kind: 'inbox' as const,
      waiting: await directRuns(session).inbox({ cwd: r.here.root, project: r.project ?? undefined, here: r.here }),
    }),
  },
  /** `ll-loop list --running`. */
  running: {
    ...KINDS.running,
    ...READ,
    what: (r) => `ll-loop list --running${r.all_projects ? ' --all-projects' : ''}`,
    said: (q, r) =>
      r.kind === 'running'
        ? `ll-loop list --running${q.all_projects ? ' --all-projects' : ''}: ${r.runs.length} runs (start socket)`
        : undefined,
    serve: async (r, { session }) => ({
      kind: 'running' as const,
      runs: await directRuns(session).running(r.cwd, r.all_projects),
    }),
  },
  /** `ll-loop queue list`: the scope locks, who holds and who waits. */
  queues: {
    ...KINDS.queues,
    ...READ,
    what: () => 'll-loop queue list',
    said: (_q, r) => (r.kind === 'queues' ? `ll-loop queue list: ${r.reports.length} locks (start socket)` : undefined),
    serve: async (r, { session }) => ({ kind: 'queues' as const, reports: await directRuns(session).queues(r.cwd) }),
  },
  /** Following a run for a command on this host (runs/follow/serve-follow.ts, by `direct`'s follow): its events, then its end. */
  follow: {
    ...KINDS.follow,
    serve: (r, socket, rest, { session, log }) =>
      serveFollow(r, socket, rest, { client: session.client, follow: directRuns(session).follow, log }),
  },
};
