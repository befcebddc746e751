/**
 * The zod schemas of the worker's socket, one entry per request kind in {@link KINDS}: its
 * request schema, its reply schema (or message schema for a stream, `follow`) and what the
 * request names (its scope); and the wire types inferred from them, which the command (ask.ts)
 * and every room that names a request or an answer import as types. The worker's side
 * (requests.ts) adds each kind's handler; nothing here imports it, not even a type.
 *
 * A loop definition, a report or an event is checked for its shape here, not validated field by
 * field: it was made by this very build (the worker refuses another build's request), and its own
 * schema or code made it.
 */
import { z } from 'zod';
import type { LoopDefinition } from '../../fsm/schema.js';
import type { TimedEvent } from '../../fsm/run/events.js';
import type { LoopWorkflowInput, ScopeLockRequest } from '../../workflows/definitions.js';
import type { FollowedRun } from '../follow/follow-events.js';
import type { StatusReport } from '../find/status-report.js';
import type { LogsReport } from '../follow/logs-report.js';
import type { HistoryReport } from '../follow/history-report.js';
import type { WaitingRun } from '../human/find-waiting.js';
import type { RunningListing } from '../find/running-listings.js';
import type { LockQueueReport } from '../scopes/scope-queues.js';

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
  /** `run --background`: answered once the scope lock has (runs/scopes/scopes-settled.ts). */
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

/** What the follower may write after its request: stop the run (Ctrl-C). */
export const followCancel = z.object({ kind: z.literal('cancel') });

/** What a kind's request names: the server, and a directory of the checkout (the worker refuses others). */
interface Scope {
  address: boolean;
  cwd: boolean;
}

/** A kind answered with one line. */
export interface UnarySchemas<Q extends z.ZodType, R extends z.ZodType> {
  stream?: undefined;
  request: Q;
  reply: R;
  scope: Scope;
}

/** A kind answered with a stream of messages. */
export interface StreamSchemas<Q extends z.ZodType, M extends z.ZodType> {
  stream: true;
  request: Q;
  message: M;
  scope: Scope;
}

const unary = <Q extends z.ZodType, R extends z.ZodType>(
  kind: Omit<UnarySchemas<Q, R>, 'stream'>,
): UnarySchemas<Q, R> => kind;
const streamed = <Q extends z.ZodType, M extends z.ZodType>(
  kind: Omit<StreamSchemas<Q, M>, 'stream'>,
): StreamSchemas<Q, M> => ({ ...kind, stream: true });
const HERE = { address: true, cwd: true };

/** Every request kind of the worker's socket. Adding one is an entry here and its handler in requests.ts. */
export const KINDS = {
  /** `ll-loop run`: a loop the command loaded; the worker starts it on its own client. */
  start: unary({ request: startRequest, reply: startReplies, scope: HERE }),
  /** `ll-loop run`'s early start (runs/start/early-start.ts): the command line, before the CLI is loaded. */
  start_argv: unary({ request: argvStartRequest, reply: argvStartReplies, scope: HERE }),
  status: unary({
    request: z.object({ kind: z.literal('status'), ...addressed, cwd: z.string(), target: z.string() }),
    reply: readReply(z.object({ kind: z.literal('status'), report: statusReport })),
    scope: HERE,
  }),
  logs: unary({
    request: z.object({
      kind: z.literal('logs'),
      ...addressed,
      cwd: z.string(),
      target: z.string(),
      state: z.string().optional(),
      item: z.number().int().nonnegative().optional(),
    }),
    reply: readReply(z.object({ kind: z.literal('logs'), report: logsReport })),
    scope: HERE,
  }),
  history: unary({
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
    scope: HERE,
  }),
  /** `ll-loop inbox`: the runs waiting for a person, of one project or (project null) of all. */
  inbox: unary({
    request: z.object({ kind: z.literal('inbox'), ...addressed, project: projectScope.nullable(), here: projectScope }),
    reply: readReply(
      z.object({
        kind: z.literal('inbox'),
        waiting: listOf<WaitingRun>('a waiting run', { run: z.string(), loop: z.string(), state: z.string() }),
      }),
    ),
    scope: { address: true, cwd: false },
  }),
  /** `ll-loop list --running`. */
  running: unary({
    request: z.object({ kind: z.literal('running'), ...addressed, cwd: z.string(), all_projects: z.boolean() }),
    reply: readReply(
      z.object({
        kind: z.literal('running'),
        runs: listOf<RunningListing>('a running run', { id: z.string(), loop: z.string() }),
      }),
    ),
    scope: HERE,
  }),
  /** `ll-loop queue list`: the scope locks, who holds and who waits. */
  queues: unary({
    request: z.object({ kind: z.literal('queues'), ...addressed, cwd: z.string() }),
    reply: readReply(
      z.object({
        kind: z.literal('queues'),
        reports: listOf<LockQueueReport>('a scope lock', { domain: z.string(), holders: z.array(z.unknown()) }),
      }),
    ),
    scope: HERE,
  }),
  /** Following a run for a command on this host (runs/follow/serve-follow.ts): its events, then its end. */
  follow: streamed({ request: followRequest, message: followMessage, scope: { address: false, cwd: false } }),
} satisfies Record<string, UnarySchemas<z.ZodType, z.ZodType> | StreamSchemas<z.ZodType, z.ZodType>>;

export type RequestKind = keyof typeof KINDS;
/** The kinds answered with one line. */
export type UnaryKind = { [K in RequestKind]: (typeof KINDS)[K] extends { stream: true } ? never : K }[RequestKind];
/** The kinds answered with a stream of messages. */
export type StreamKind = Exclude<RequestKind, UnaryKind>;
/** What a command writes for `kind` (the first line of a connection). */
export type RequestOf<K extends RequestKind> = z.input<(typeof KINDS)[K]['request']>;
/** A request of `kind` as its schema read it, on the worker. */
export type ReceivedOf<K extends RequestKind> = z.output<(typeof KINDS)[K]['request']>;
/** The worker's one-line answer to `kind`. */
export type ReplyOf<K extends UnaryKind> = z.output<(typeof KINDS)[K]['reply']>;
/** The worker's messages on a stream of `kind`. */
export type MessageOf<K extends StreamKind> = z.output<(typeof KINDS)[K]['message']>;

export type WorkerStartRequest = RequestOf<'start'>;
export type WorkerStartReply = ReplyOf<'start'>;
export type WorkerArgvStartRequest = RequestOf<'start_argv'>;
export type WorkerArgvStartReply = ReplyOf<'start_argv'>;
export type FollowRequest = RequestOf<'follow'>;
export type FollowMessage = MessageOf<'follow'>;
export type FollowCancel = z.output<typeof followCancel>;
