/**
 * Every request a command may make of its checkout's worker over the worker's socket, one entry
 * per kind: the zod schema the worker checks the request with where it receives it (dispatch.ts),
 * the schema its answer must match before the worker sends it, what the worker's log calls it,
 * and the handler that does the work on the worker's session (a read: the runs service's `direct`
 * on that session, client/runs-service/direct.ts). Adding a kind is one entry here;
 * the command asks with ask.ts, typed from this table (types only: a command loads neither zod
 * nor the handlers).
 *
 * A stream (`follow`) has a message schema instead of a reply, and its handler writes the stream.
 */
import { z } from 'zod';
import type { Socket } from 'node:net';
import type { Client } from '@temporalio/client';
import type { Checkout } from '../../host/checkout.js';
import type { Session } from '../temporal/session.js';
import {
  addressed,
  argvStartReplies,
  argvStartRequest,
  type followCancel,
  followMessage,
  followRequest,
  historyReport,
  listOf,
  logsReport,
  projectScope,
  readReply,
  startReplies,
  startRequest,
  statusReport,
} from './schemas.js';
import type { StartQueueRunner } from '../hosting/start-queue-runner.js';
import type { RunArgvParser } from '../start/start-from-argv.js';
import type { WaitingRun } from '../human/find-waiting.js';
import type { RunningListing } from '../hosting/running-listings.js';
import type { LockQueueReport } from '../scopes/scope-queues.js';
import { serveArgvStart, serveStart } from './serve-starts.js';
import { serveFollow } from '../follow/serve-follow.js';
import { noteWhileQueued } from '../start/queue-note.js';
import { directRuns } from '../runs-service/direct.js';

/** What a handler works with: the worker's session and checkout, and its start queue. */
export interface ServeContext {
  session: Session;
  checkout: Checkout;
  /** A client on the worker's own connection (eager starts), when they are on. */
  starter: Client | undefined;
  queue: StartQueueRunner;
  /** `run`'s parser, for early starts; without it they are refused. */
  parseRun: RunArgvParser | undefined;
  log: (line: string) => void;
}

/** A kind answered with one line. */
interface Unary<Q extends z.ZodType, R extends z.ZodType> {
  stream?: undefined;
  request: Q;
  reply: R;
  /** Whether the request names the server and a directory of the checkout (the worker refuses others). */
  scope: { address: boolean; cwd: boolean };
  /**
   * Whether doing the work again changes nothing (a read): then a failure that is not a verdict
   * on the request (the worker's connection broke) is a refusal, and the command does the work
   * itself. A start is done once: every error it ends in is answered.
   */
  idempotent: boolean;
  /** What the command does when refused, for the worker's log. */
  otherwise: string;
  /** The request in the worker's log (`ll-loop status held`), and its line for an answer it made. */
  what(request: z.output<Q>): string;
  said(request: z.output<Q>, reply: z.output<R>): string | undefined;
  serve(request: z.output<Q>, ctx: ServeContext): Promise<z.output<R>>;
}

/** A kind answered with a stream of messages (the handler writes them on the socket). */
interface Streamed<Q extends z.ZodType, M extends z.ZodType> {
  stream: true;
  request: Q;
  message: M;
  scope: { address: boolean; cwd: boolean };
  serve(request: z.output<Q>, socket: Socket, rest: string, ctx: ServeContext): void;
}

const streamed = <Q extends z.ZodType, M extends z.ZodType>(entry: Omit<Streamed<Q, M>, 'stream'>): Streamed<Q, M> => ({
  ...entry,
  stream: true,
});
const unary = <Q extends z.ZodType, R extends z.ZodType>(entry: Omit<Unary<Q, R>, 'stream'>): Unary<Q, R> => entry;
const READ = { scope: { address: true, cwd: true }, idempotent: true, otherwise: 'the command asks Temporal itself' };

export const REQUESTS = {
  /** `ll-loop run`: a loop the command loaded; the worker starts it on its own client. */
  start: unary({
    request: startRequest,
    reply: startReplies,
    scope: { address: true, cwd: true },
    idempotent: false,
    otherwise: 'the command starts its run itself',
    what: (r) => `ll-loop run ${r.definition.name}`,
    said: (_q, r) => (r.kind === 'started' ? `${r.instance_id}: started for ll-loop run (start socket)` : undefined),
    serve: serveStart,
  }),
  /** `ll-loop run`'s early start (client/start/early-start.ts): the command line, before the CLI is loaded. */
  start_argv: unary({
    request: argvStartRequest,
    reply: argvStartReplies,
    scope: { address: true, cwd: true },
    idempotent: false,
    otherwise: 'the command starts its run itself',
    what: (r) => `ll-loop ${r.argv.join(' ')}`,
    // A queued start is logged by its handler, once queued for good.
    said: (_q, r) => (r.kind === 'started' ? `${r.instance_id}: started for ll-loop run (early start)` : undefined),
    serve: serveArgvStart,
  }),
  status: unary({
    ...READ,
    request: z.object({ kind: z.literal('status'), ...addressed, cwd: z.string(), target: z.string() }),
    reply: readReply(z.object({ kind: z.literal('status'), report: statusReport })),
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
  }),
  logs: unary({
    ...READ,
    request: z.object({
      kind: z.literal('logs'),
      ...addressed,
      cwd: z.string(),
      target: z.string(),
      state: z.string().optional(),
      item: z.number().int().nonnegative().optional(),
    }),
    reply: readReply(z.object({ kind: z.literal('logs'), report: logsReport })),
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
  }),
  history: unary({
    ...READ,
    request: z.object({
      kind: z.literal('history'),
      ...addressed,
      cwd: z.string(),
      loop: z.string(),
      runId: z.string().optional(),
      events: z.array(z.string()).optional(),
      state: z.string().optional(),
    }),
    reply: readReply(z.object({ kind: z.literal('history'), report: historyReport })),
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
  }),
  /** `ll-loop inbox`: the runs waiting for a person, of one project or (project null) of all. */
  inbox: unary({
    ...READ,
    scope: { address: true, cwd: false },
    otherwise: 'the command lists the runs itself',
    request: z.object({ kind: z.literal('inbox'), ...addressed, project: projectScope.nullable(), here: projectScope }),
    reply: readReply(
      z.object({
        kind: z.literal('inbox'),
        waiting: listOf<WaitingRun>('a waiting run', { run: z.string(), loop: z.string(), state: z.string() }),
      }),
    ),
    what: () => 'll-loop inbox',
    said: (_q, r) => (r.kind === 'inbox' ? `ll-loop inbox: ${r.waiting.length} waiting (start socket)` : undefined),
    serve: async (r, { session }) => ({
      kind: 'inbox' as const,
      waiting: await directRuns(session).inbox({ cwd: r.here.root, project: r.project ?? undefined, here: r.here }),
    }),
  }),
  /** `ll-loop list --running`. */
  running: unary({
    ...READ,
    request: z.object({ kind: z.literal('running'), ...addressed, cwd: z.string(), all_projects: z.boolean() }),
    reply: readReply(
      z.object({
        kind: z.literal('running'),
        runs: listOf<RunningListing>('a running run', { id: z.string(), loop: z.string() }),
      }),
    ),
    what: (r) => `ll-loop list --running${r.all_projects ? ' --all-projects' : ''}`,
    said: (q, r) =>
      r.kind === 'running'
        ? `ll-loop list --running${q.all_projects ? ' --all-projects' : ''}: ${r.runs.length} runs (start socket)`
        : undefined,
    serve: async (r, { session }) => ({
      kind: 'running' as const,
      runs: await directRuns(session).running(r.cwd, r.all_projects),
    }),
  }),
  /** `ll-loop queue list`: the scope locks, who holds and who waits. */
  queues: unary({
    ...READ,
    request: z.object({ kind: z.literal('queues'), ...addressed, cwd: z.string() }),
    reply: readReply(
      z.object({
        kind: z.literal('queues'),
        reports: listOf<LockQueueReport>('a scope lock', { domain: z.string(), holders: z.array(z.unknown()) }),
      }),
    ),
    what: () => 'll-loop queue list',
    said: (_q, r) => (r.kind === 'queues' ? `ll-loop queue list: ${r.reports.length} locks (start socket)` : undefined),
    serve: async (r, { session }) => ({ kind: 'queues' as const, reports: await directRuns(session).queues(r.cwd) }),
  }),
  /** Following a run for a command on this host (client/follow/serve-follow.ts): its events, then its end. */
  follow: streamed({
    scope: { address: false, cwd: false },
    request: followRequest,
    message: followMessage,
    serve: (r, socket, rest, { session, log }) =>
      serveFollow(r, socket, rest, {
        client: session.client,
        log,
        ...(r.lock ? { whileQueued: (note) => noteWhileQueued(session.client, r.workflow_id, r.lock, note) } : {}),
      }),
  }),
} satisfies Record<string, Unary<z.ZodType, z.ZodType> | Streamed<z.ZodType, z.ZodType>>;

export type RequestKind = keyof typeof REQUESTS;
/** The kinds answered with one line. */
export type UnaryKind = { [K in RequestKind]: (typeof REQUESTS)[K] extends { stream: true } ? never : K }[RequestKind];
/** The kinds answered with a stream of messages. */
export type StreamKind = Exclude<RequestKind, UnaryKind>;
/** What a command writes for `kind` (the first line of a connection). */
export type RequestOf<K extends RequestKind> = z.input<(typeof REQUESTS)[K]['request']>;
/** The worker's one-line answer to `kind`. */
export type ReplyOf<K extends UnaryKind> = z.output<(typeof REQUESTS)[K]['reply']>;
/** The worker's messages on a stream of `kind`. */
export type MessageOf<K extends StreamKind> = z.output<(typeof REQUESTS)[K]['message']>;

export type WorkerStartRequest = z.input<typeof startRequest>;
export type WorkerStartReply = z.output<typeof startReplies>;
export type WorkerArgvStartRequest = z.input<typeof argvStartRequest>;
export type WorkerArgvStartReply = z.output<typeof argvStartReplies>;
export type FollowRequest = z.input<typeof followRequest>;
export type FollowMessage = z.output<typeof followMessage>;
export type FollowCancel = z.output<typeof followCancel>;
