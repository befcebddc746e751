/**
 * The checkout worker's side of the start socket (client/start/worker-start-wire.ts): `ll-loop
 * run` hands it a loaded loop and the worker starts the run on its own Temporal client, so the
 * command loads no Temporal SDK and opens no connection before its run has started. The start is
 * the one every command makes (start-run.ts startLoopRun: the same instance id, memo, lock
 * precheck, environment file and payload checks); the answer is the run's id, or the error the
 * command would have raised itself, or a refusal (another build, server or checkout; draining)
 * after which the command starts the run the ordinary way. The same socket serves a follow
 * request (client/follow/follow-wire.ts): the worker follows a run for a command on this host and
 * streams its events (client/follow/serve-follow.ts), so the command needs no SDK to follow either.
 */
import { chmodSync, mkdirSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { Client } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import { codeId } from '../../host/build-info.js';
import type { Checkout } from '../../host/checkout.js';
import { startRequested } from '../start/start-requested.js';
import { runInfo } from '../runs/run-info.js';
import { errorReply } from './start-error-reply.js';
import { StartQueueRunner } from './start-queue-runner.js';
import { noteWhileQueued } from '../start/queue-note.js';
import { serveFollow } from '../follow/serve-follow.js';
import type { FollowMessage, FollowRequest } from '../follow/follow-wire.js';
import {
  socketPathUsable,
  startSocketDir,
  startSocketPath,
  type WorkerArgvStartReply,
  type WorkerArgvStartRequest,
  type WorkerStartReply,
  type WorkerStartRequest,
} from '../start/worker-start-wire.js';
import { prepareFromArgv, startPrepared, type RunArgvParser } from '../start/start-from-argv.js';
import type { Session } from '../temporal/session.js';
import type { WorkerInboxReply, WorkerInboxRequest } from '../human/inbox-wire.js';
import { serveInbox } from '../human/serve-inbox.js';
import type { WorkerStatusReply, WorkerStatusRequest } from '../runs/status-wire.js';
import type { WorkerLogsReply, WorkerLogsRequest } from '../follow/logs-wire.js';
import { serveLogs } from '../follow/serve-logs.js';
import type { WorkerHistoryReply, WorkerHistoryRequest } from '../follow/history-wire.js';
import { serveHistory } from '../follow/serve-history.js';
import { serveStatus } from '../runs/serve-status.js';
import type { WorkerRunningReply, WorkerRunningRequest } from './running-wire.js';
import { serveRunning } from './serve-running.js';
import type { WorkerQueuesReply, WorkerQueuesRequest } from '../scopes/queues-wire.js';
import { serveQueues } from '../scopes/serve-queues.js';

/** A request larger than this is not a loop a command sends (Temporal refuses far less). */
const MAX_REQUEST_BYTES = 16 * 1024 * 1024;

export interface StartSocket {
  /** Stop taking requests (draining: a command then starts a successor worker). */
  close(): void;
  /**
   * When a command last asked (epoch ms); now while a request is being answered. The idle clock
   * counts from it: a command that found this worker is about to hand it work.
   */
  lastActivityMs(): number;
  /** Resolves once the requests taken before `close` are answered, or after `timeoutMs`. */
  settled(timeoutMs: number): Promise<void>;
}

/** Listen on the checkout's start socket; undefined (and logged) when it cannot. */
export function listenForStarts(
  session: Session,
  workerConnection: NativeConnection,
  checkout: Checkout,
  log: (line: string) => void,
  /** `run`'s parser, for early starts (client/start/early-start.ts); without it they are refused. */
  parseRun?: RunArgvParser,
): StartSocket | undefined {
  const path = startSocketPath(checkout.root);
  if (!socketPathUsable(path)) {
    log(`the start socket's path is too long for a Unix socket (${path}); ll-loop run starts runs itself`);
    return undefined;
  }
  try {
    // Only its owner may enter: a request runs shell actions as this user.
    mkdirSync(startSocketDir(checkout.root), { recursive: true, mode: 0o700 });
    chmodSync(startSocketDir(checkout.root), 0o700);
    // A predecessor's socket (it died without closing it) is stale: this worker owns the checkout.
    rmSync(path, { force: true });
  } catch (err) {
    log(`cannot prepare the start socket ${path}: ${(err as Error).message}; ll-loop run starts runs itself`);
    return undefined;
  }
  let open = true;
  // Requests being answered and when one last came: a start in flight must not see the worker
  // drain under it (its client's connection closed mid-call), and a command's ask is activity.
  let inFlight = 0;
  let lastRequestMs = 0;
  const idleWaiters = new Set<() => void>();
  const track = {
    begin: () => {
      inFlight += 1;
      lastRequestMs = Date.now();
    },
    end: () => {
      inFlight -= 1;
      lastRequestMs = Date.now();
      if (inFlight === 0) for (const wake of [...idleWaiters]) wake();
    },
  };
  // Started on the worker's own connection, the server may hand the run's first workflow task
  // back with the start's answer (eager start): no dispatch through matching.
  const starter = new Client({ connection: workerConnection, namespace: session.endpoint.namespace });
  // `run --background`'s starts, queued and made from here (start-queue-runner.ts).
  const queue = new StartQueueRunner({ checkout, session, starter, log });
  const server: Server = createServer((socket) =>
    serveOne(socket, { session, starter, checkout, open: () => open, log, track, parseRun, queue }),
  );
  server.on('error', (err) => log(`the start socket ${path} failed: ${err.message}; ll-loop run starts runs itself`));
  server.listen(path);
  server.unref();
  return {
    close() {
      if (!open) return;
      open = false;
      queue.close();
      server.close();
      rmSync(path, { force: true });
    },
    // Queued starts are work to do: the worker is not idle while it has any.
    lastActivityMs: () => (inFlight > 0 || queue.size > 0 ? Date.now() : lastRequestMs),
    settled: async (timeoutMs) => {
      const deadline = Date.now() + timeoutMs;
      await requestsSettled(timeoutMs);
      await queue.settled(Math.max(0, deadline - Date.now()));
    },
  };

  function requestsSettled(timeoutMs: number): Promise<void> {
    return inFlight === 0
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            idleWaiters.delete(done);
            resolve();
          };
          const timer = setTimeout(done, timeoutMs);
          idleWaiters.add(done);
        });
  }
}

/** An early start this worker cannot read (it was given no parser of `run`'s command line). */
const noParser = { kind: 'refused', why: "this worker does not read run's command line" } as const;

/** Every request a command may write on the socket (the first line of a connection). */
type WorkerRequest =
  | WorkerStartRequest
  | WorkerArgvStartRequest
  | WorkerInboxRequest
  | WorkerStatusRequest
  | WorkerLogsRequest
  | WorkerHistoryRequest
  | WorkerRunningRequest
  | WorkerQueuesRequest
  | FollowRequest;

/** The answer to a read: the command's report, or a refusal. */
type ReadReply =
  WorkerInboxReply | WorkerStatusReply | WorkerLogsReply | WorkerHistoryReply | WorkerRunningReply | WorkerQueuesReply;

/** The requests that read (the command prints what the worker made); the rest is a start. */
const READS: readonly string[] = ['inbox', 'status', 'logs', 'history', 'running', 'queues'];

/** One connection: one start request line and one answer line, or a follow request and its stream. */
interface Serving {
  session: Session;
  starter: Client | undefined;
  checkout: Checkout;
  open: () => boolean;
  log: (line: string) => void;
  /** Counts the requests being answered (a follow's stream is not waited for, only noted). */
  track: { begin(): void; end(): void };
  parseRun: RunArgvParser | undefined;
  queue: StartQueueRunner;
}

function serveOne(socket: Socket, serving: Serving): void {
  const { session, starter, checkout, open, log, track, parseRun, queue } = serving;
  let buffer = '';
  let answered = false;
  let tracked = false;
  const answer = (reply: WorkerStartReply | WorkerArgvStartReply | ReadReply) => {
    if (answered) return;
    answered = true;
    if (tracked) track.end();
    socket.end(`${JSON.stringify(reply)}\n`);
  };
  socket.on('error', () => undefined);
  socket.setEncoding('utf8');
  const onData = (chunk: string) => {
    if (answered) return;
    buffer += chunk;
    if (buffer.length > MAX_REQUEST_BYTES) return answer({ kind: 'refused', why: 'request too large' });
    const end = buffer.indexOf('\n');
    if (end < 0) return;
    let request: WorkerRequest;
    try {
      request = JSON.parse(buffer.slice(0, end)) as WorkerRequest;
    } catch {
      return answer({ kind: 'refused', why: 'not a start request' });
    }
    track.begin();
    if (request?.kind === 'follow') {
      answered = true;
      track.end();
      socket.off('data', onData);
      return follow(socket, request, buffer.slice(end + 1), serving);
    }
    tracked = true;
    const why = refusal(request, session, checkout, open());
    if (why) {
      log(
        request?.kind === 'inbox'
          ? `an inbox request was refused (${why}); the command lists the runs itself`
          : READS.includes(request?.kind)
            ? `a ${request.kind} request was refused (${why}); the command asks Temporal itself`
            : `a start request was refused (${why}); the command starts its run itself`,
      );
      return answer({ kind: 'refused', why });
    }
    // A read (`inbox`, `status`, `logs`, `history`, `list --running`, `queue list`): what the
    // command would make, on this worker's client; logged, then answered.
    const read = <Reply extends ReadReply>(made: Promise<Reply>, said: (reply: Reply) => string): void =>
      void made.then(
        (reply) => {
          log(`${said(reply)} (start socket)`);
          answer(reply);
        },
        // Answered all the same (the command then asks Temporal itself), so the request is not left counted.
        (err: unknown) => {
          log(`a ${request.kind} request failed (${(err as Error).message}); the command asks Temporal itself`);
          answer({ kind: 'refused', why: (err as Error).message });
        },
      );
    if (request.kind === 'inbox')
      return read(
        serveInbox(request, session),
        (r) => `ll-loop inbox: ${r.kind === 'inbox' ? `${r.waiting.length} waiting` : r.why}`,
      );
    if (request.kind === 'status')
      return read(
        serveStatus(request, session),
        (r) => `ll-loop status ${request.target}: ${r.kind === 'status' ? r.report.id : r.why}`,
      );
    if (request.kind === 'logs')
      return read(
        serveLogs(request, session),
        (r) =>
          `ll-loop logs ${request.target}: ${r.kind === 'logs' ? `${r.report.actions.length} actions of ${r.report.id}` : r.why}`,
      );
    if (request.kind === 'running')
      return read(
        serveRunning(request, session),
        (r) =>
          `ll-loop list --running${request.all_projects ? ' --all-projects' : ''}: ${r.kind === 'running' ? `${r.runs.length} runs` : r.why}`,
      );
    if (request.kind === 'queues')
      return read(
        serveQueues(session.client),
        (r) => `ll-loop queue list: ${r.kind === 'queues' ? `${r.reports.length} locks` : r.why}`,
      );
    if (request.kind === 'history')
      return read(serveHistory(request, session), (r) => {
        const what =
          r.kind !== 'history'
            ? r.why
            : r.report.kind === 'runs'
              ? `${r.report.entries.length} runs`
              : `${r.report.report.events.length} events of ${r.report.report.id}`;
        return `ll-loop history ${request.runId ?? request.loop}: ${what}`;
      });
    if (request.kind === 'start_argv') {
      if (!parseRun) return answer(noParser);
      let prepared: ReturnType<typeof prepareFromArgv>;
      try {
        prepared = prepareFromArgv(request, parseRun, checkout);
      } catch (err) {
        // What loading the loop throws (a --context it does not take) is the command's error.
        return answer(errorReply(err));
      }
      if ('kind' in prepared) {
        log(`an early start was refused (${prepared.why}); the command starts its run itself`);
        return answer(prepared);
      }
      // `--background`: answered once the start is queued for good; the run starts from the queue.
      if (prepared.background) {
        const { request: started, json } = prepared;
        return void queue.accept(started).then(
          (id) => {
            log(`${id}: queued for ll-loop run --background`);
            const url = runInfo(session.endpoint, started.cwd, id).uiUrl;
            answer({
              kind: 'queued',
              instance_id: id,
              task_queue: checkout.queue,
              json,
              ...(url ? { run_url: url } : {}),
            });
          },
          (err: unknown) => answer(errorReply(err)),
        );
      }
      const { request: early } = prepared;
      return void queue.unanswered
        .followed(early, checkout, () => startPrepared(early, session, checkout, starter))
        .then(
          (reply) => {
            log(`${reply.instance_id}: started for ll-loop run (early start)`);
            const { namespace, uiUrl } = session.endpoint;
            answer({ ...reply, namespace, ...(uiUrl ? { ui_url: uiUrl } : {}) });
          },
          (err: unknown) => answer(errorReply(err)),
        );
    }
    queue.unanswered
      .followed(request, checkout, () => startRequested(request, session, checkout, starter))
      .then(
        (started) => {
          log(`${started.instance_id}: started for ll-loop run (start socket)`);
          const { namespace, uiUrl } = session.endpoint;
          answer({ ...started, namespace, ...(uiUrl ? { ui_url: uiUrl } : {}) });
        },
        (err: unknown) => answer(errorReply(err)),
      );
  };
  socket.on('data', onData);
}

/** A command on this host follows a run through this worker (client/follow/serve-follow.ts). */
function follow(socket: Socket, r: FollowRequest, rest: string, { session, checkout, open, log }: Serving): void {
  const why = !open()
    ? 'the worker is draining'
    : r.code_id !== codeId()
      ? `the worker is build ${codeId()}, the command ${r.code_id}`
      : r.root !== checkout.root
        ? `the worker serves ${checkout.root}`
        : undefined;
  if (why) {
    socket.end(`${JSON.stringify({ kind: 'refused', why } satisfies FollowMessage)}\n`);
    return;
  }
  const lock = r.lock;
  serveFollow(socket, r, rest, {
    client: session.client,
    log,
    ...(lock ? { whileQueued: (note) => noteWhileQueued(session.client, r.workflow_id, lock, note) } : {}),
  });
}

/** Why this worker must not start the request's run (then the command starts it itself). */
function refusal(
  r: Exclude<WorkerRequest, FollowRequest>,
  session: Session,
  checkout: Checkout,
  open: boolean,
): string | undefined {
  if (!open) return 'the worker is draining';
  if (r?.kind !== 'start' && r?.kind !== 'start_argv' && !READS.includes(r?.kind)) return 'not a start request';
  if (r.code_id !== codeId()) return `the worker is build ${codeId()}, the command ${r.code_id}`;
  if (r.address !== session.endpoint.address) return `the worker polls ${session.endpoint.address}`;
  if (r.root !== checkout.root) return `the worker serves ${checkout.root}`;
  // A run started here works in, and a status is read for, a directory of this checkout only.
  if (r.kind !== 'inbox' && !within(checkout.root, r.cwd)) return `${r.cwd} is not in ${checkout.root}`;
  return undefined;
}

/** Whether `dir` is `root` or below it. */
function within(root: string, dir: unknown): boolean {
  if (typeof dir !== 'string' || !isAbsolute(dir)) return false;
  const rel = relative(root, resolve(dir));
  return rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}
