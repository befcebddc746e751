/**
 * The zod schemas of the worker's socket (requests.ts holds the table that uses them): what every
 * request names, the shapes the answers share, and the requests and answers of the kinds whose
 * types other rooms name (a start, a follow). A loop definition, a report or an event is checked
 * for its shape here, not validated field by field: it was made by this very build (the worker
 * refuses another build's request), and its own schema or code made it.
 */
import { z } from 'zod';
import type { LoopDefinition } from '../../fsm/schema.js';
import type { TimedEvent } from '../../fsm/run/events.js';
import type { LoopWorkflowInput, ScopeLockRequest } from '../../workflows/definitions.js';
import type { FollowedRun } from '../follow/follow-events.js';
import type { StatusReport } from '../runs/status-report.js';
import type { LogsReport } from '../follow/logs-report.js';
import type { HistoryReport } from '../follow/history-report.js';

/** An object whose fields were checked by the schema that accepted it; `check` tells it apart. */
const shaped = <T>(what: string, check: z.ZodType) =>
  z.custom<T>((v) => check.safeParse(v).success, { message: `not ${what}` });

/** What every request names, so that another build, server or checkout refuses it. */
export const addressed = { code_id: z.string(), address: z.string(), root: z.string() };
export const projectScope = z.object({ key: z.string(), root: z.string() });
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

export const startRequest = z.object({
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

export const startReplies = z.union([startedReply, refusedReply, errorReply]);

export const argvStartRequest = z.object({
  kind: z.literal('start_argv'),
  ...addressed,
  argv: z.array(z.string()),
  cwd: z.string(),
  env,
  /** When the command started, as `YYYYMMDDTHHMMSS` in its time zone (instance-id.ts localStamp). */
  stamp: z.string().regex(/^\d{8}T\d{6}$/),
});

export const argvStartReplies = z.union([
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
export const readReply = <A extends z.ZodType>(answer: A) => z.union([answer, refusedReply, errorReply]);

export const statusReport = shaped<StatusReport>(
  'a status report',
  z.looseObject({ id: z.string(), loop: z.string(), open: z.boolean(), status: z.string(), started_at: z.string() }),
);
export const logsReport = shaped<LogsReport>(
  'a logs report',
  z.looseObject({ id: z.string(), loop: z.string(), actions: z.array(z.unknown()), people: z.array(z.unknown()) }),
);
export const historyReport = shaped<HistoryReport>(
  'a history report',
  z.union([
    z.looseObject({ kind: z.literal('runs'), loop: z.string(), entries: z.array(z.unknown()) }),
    z.looseObject({
      kind: z.literal('events'),
      report: z.looseObject({ id: z.string(), events: z.array(z.unknown()) }),
    }),
  ]),
);
export const listOf = <T>(what: string, fields: z.ZodRawShape) => z.array(shaped<T>(what, z.looseObject(fields)));

/** Following a run: the follower's request (the first line it writes). */
export const followRequest = z.object({
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
export const followMessage = z.union([
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
