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
import type { LoopDefinition } from '../../fsm/schema.js';
import type { TimedEvent } from '../../fsm/run/events.js';
import type { LoopWorkflowInput, ScopeLockRequest } from '../../workflows/definitions.js';
import type { Session } from '../temporal/session.js';
import type { FollowedRun } from '../follow/follow-events.js';
import type { StartQueueRunner } from '../hosting/start-queue-runner.js';
import type { RunArgvParser } from '../start/start-from-argv.js';
import type { StatusReport } from '../runs/status-report.js';
import type { LogsReport } from '../follow/logs-report.js';
import type { HistoryReport } from '../follow/history-report.js';
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

/** An object whose fields were checked by the schema that accepted it; `check` tells it apart. */
const shaped = <T>(what: string, check: z.ZodType) =>
  z.custom<T>((v) => check.safeParse(v).success, { message: `not ${what}` });

/** What every request names, so that another build, server or checkout refuses it. */
const addressed = { code_id: z.string(), address: z.string(), root: z.string() };
const projectScope = z.object({ key: z.string(), root: z.string() });
const lockRequest = shaped<ScopeLockRequest>(
  'a scope lock',
  z.looseObject({ domain: z.string(), workflowId: z.string(), taskQueue: z.string(), scopes: z.array(z.string()) }),
);
/**
 * A loop the command loaded and validated with this very build's loop schema (the request's
 * build is the worker's): checked for its shape, not validated again, which would cost the start
 * its time and could normalise what the command sent.
 */
const loopDefinition = shaped<LoopDefinition>(
  'a loop definition',
  z.looseObject({ name: z.string(), initial: z.string(), states: z.record(z.string(), z.unknown()) }),
);
const env = z.record(z.string(), z.string());

const startRequest = z.object({
  kind: z.literal('start'),
  ...addressed,
  definition: loopDefinition,
  file: z.string(),
  cwd: z.string(),
  /** The run's instance id without a clash suffix (start-run.ts instanceIdFor, in the command's time zone). */
  id_base: z.string(),
  /** The environment the run's actions see (host/run-env.ts): left in the run's env file, never in history. */
  env,
  data_context: z.array(z.string()),
  lock: z.object({ none: z.boolean(), wait: z.boolean(), queue_timeout_s: z.number().nonnegative().optional() }),
  /** `run --background`: answered once the scope lock has (client/scopes/scopes-settled.ts). */
  background: z.boolean().optional(),
});

const startedReply = z.object({
  kind: z.literal('started'),
  instance_id: z.string(),
  task_queue: z.string(),
  run_id: z.string(),
  /** The scope lock the run asked for (for the queue note), when it took one. */
  lock: lockRequest.optional(),
  /** The worker's server's namespace and Web UI (the follower's RunInfo, without connecting). */
  namespace: z.string().optional(),
  ui_url: z.string().optional(),
});

const refusedReply = z.object({
  kind: z.literal('refused'),
  why: z.string(),
  bad_request: z
    .object({ kind: z.string(), issues: z.array(z.object({ path: z.string(), message: z.string() })) })
    .optional(),
});
const errorReply = z.object({
  kind: z.literal('error'),
  name: z.string(),
  message: z.string(),
  fix: z.string().optional(),
  exit_code: z.number().int(),
});

const startReplies = z.union([startedReply, refusedReply, errorReply]);

const argvStartRequest = z.object({
  kind: z.literal('start_argv'),
  ...addressed,
  argv: z.array(z.string()),
  cwd: z.string(),
  env,
  /** When the command started, as `YYYYMMDDTHHMMSS` in its time zone (instance-id.ts localStamp). */
  stamp: z.string().regex(/^\d{8}T\d{6}$/),
});

const argvStartReplies = z.union([
  startedReply.extend({ definition: loopDefinition, file: z.string(), data_context: z.array(z.string()) }),
  z.object({
    kind: z.literal('queued'),
    instance_id: z.string(),
    task_queue: z.string(),
    run_url: z.string().optional(),
    json: z.boolean(),
  }),
  refusedReply,
  errorReply,
]);

/** A read's answer: its report, or a refusal, or the error the report ended in. */
const readReply = <A extends z.ZodType>(answer: A) => z.union([answer, refusedReply, errorReply]);

const statusReport = shaped<StatusReport>(
  'a status report',
  z.looseObject({ id: z.string(), loop: z.string(), open: z.boolean(), status: z.string(), started_at: z.string() }),
);
const logsReport = shaped<LogsReport>(
  'a logs report',
  z.looseObject({ id: z.string(), loop: z.string(), actions: z.array(z.unknown()), people: z.array(z.unknown()) }),
);
const historyReport = shaped<HistoryReport>(
  'a history report',
  z.union([
    z.looseObject({ kind: z.literal('runs'), loop: z.string(), entries: z.array(z.unknown()) }),
    z.looseObject({
      kind: z.literal('events'),
      report: z.looseObject({ id: z.string(), events: z.array(z.unknown()) }),
    }),
  ]),
);
const listOf = <T>(what: string, fields: z.ZodRawShape) => z.array(shaped<T>(what, z.looseObject(fields)));

/** Following a run: the follower's request (the first line it writes). */
const followRequest = z.object({
  kind: z.literal('follow'),
  code_id: z.string(),
  root: z.string(),
  workflow_id: z.string(),
  /** The run the follower started (Ctrl-C cancels its chain). */
  first_run_id: z.string().optional(),
  /** The run's events file on this host (RunInfo.eventsFile), read by the worker as the follower would. */
  events_file: z.string().optional(),
  /** Add each action's output to its `action_complete` (the progress display shows it). */
  action_output: z.boolean(),
  /** FollowEventsOptions.fileWaitMs. */
  file_wait_ms: z.number().nonnegative().optional(),
  /** Send the run's input once known (a reporter made from the run's definition). */
  want_input: z.boolean().optional(),
  /** `--queue`: the worker says once on the stream's `note` that the run waits, and behind whom. */
  lock: lockRequest.optional(),
});

/** The worker's messages, in order; `end`, `error` or `refused` is the last. */
const followMessage = z.union([
  z.object({
    kind: z.literal('event'),
    event: shaped<TimedEvent>('an event', z.looseObject({ event: z.string(), seq: z.number() })),
  }),
  z.object({
    kind: z.literal('input'),
    input: shaped<LoopWorkflowInput>('a run input', z.looseObject({ definition: loopDefinition })),
  }),
  /** The worker lost / regained its connection to Temporal (the follower says so on stderr). */
  z.object({ kind: z.literal('disconnect'), why: z.string() }),
  z.object({ kind: z.literal('reconnect') }),
  /** A line for the follower's stderr (the run waits in the scope queue). */
  z.object({ kind: z.literal('note'), text: z.string() }),
  z.object({
    kind: z.literal('end'),
    followed: shaped<Omit<FollowedRun, 'events'>>(
      'a followed run',
      z.looseObject({ workflowId: z.string(), warnings: z.array(z.string()) }),
    ),
  }),
  z.object({ kind: z.literal('error'), message: z.string() }),
  refusedReply,
]);

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

/** What the follower may write after its request: stop the run (Ctrl-C). */
export const followCancel = z.object({ kind: z.literal('cancel') });

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
