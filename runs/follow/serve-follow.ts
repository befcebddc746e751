/**
 * The checkout worker's half of following a run for a command on its host (the `follow` request
 * of worker/socket/requests.ts): the worker follows the run exactly as the command would (the runs
 * service's `follow` on the worker's own session: its events file read as it is written, the
 * history for the run's end and the actions' output) and streams each event and the end. The command then needs no Temporal SDK: loading it was most
 * of a short run's CPU. Following stops when the command goes away.
 */
import { stopRequested } from '../../host/stop-requests.js';
import type { Socket } from 'node:net';
import type { Client } from '@temporalio/client';
import type { FollowedRun } from './follow-events.js';
import type { RunFollow } from './run-follow.js';
import { followCancel, type FollowMessage, type FollowRequest } from '../transport/schemas.js';

export interface FollowServing {
  /** The worker's client (the follower's Ctrl-C cancels the run on it). */
  client: Client;
  /** The runs service's `follow` on the worker's session (runs/service/direct.ts). */
  follow: (req: RunFollow) => Promise<FollowedRun>;
  log: (line: string) => void;
}

/** Serve one follow request on `socket`; `rest` is what the command wrote after the request line. */
export function serveFollow(request: FollowRequest, socket: Socket, rest: string, serving: FollowServing): void {
  const { client } = serving;
  const send = (message: FollowMessage): void => {
    if (!socket.destroyed && socket.writable) socket.write(`${JSON.stringify(message)}\n`);
  };
  const stop = new AbortController();
  socket.on('close', () => stop.abort());
  let buffer = rest;
  const onData = (chunk: string): void => {
    buffer += chunk;
    for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + 1);
      if (isCancel(line)) cancel(client, request, serving.log);
    }
  };
  socket.on('data', onData);
  onData('');
  serving.log(`${request.workflow_id}: followed for ll-loop run (start socket)`);
  serving
    .follow({
      cwd: request.root,
      workflowId: request.workflow_id,
      actionOutput: request.action_output,
      signal: stop.signal,
      ...(request.events_file === undefined ? {} : { eventsFile: request.events_file }),
      ...(request.file_wait_ms === undefined ? {} : { fileWaitMs: request.file_wait_ms }),
      // `--queue`: said once on the stream that the run waits for its scopes (queue-note.ts).
      ...(request.lock ? { lock: request.lock, onNote: (text: string) => send({ kind: 'note', text }) } : {}),
      ...(request.want_input ? { onInput: (input) => send({ kind: 'input', input }) } : {}),
      onEvent: (event) => send({ kind: 'event', event }),
      onDisconnect: (why) => send({ kind: 'disconnect', why }),
      onReconnect: () => send({ kind: 'reconnect' }),
    })
    .then(
      ({ events: _events, ...followed }) => finish(socket, { kind: 'end', followed }),
      (err: unknown) => finish(socket, { kind: 'error', message: (err as Error)?.message ?? String(err) }),
    );
}

function finish(socket: Socket, last: FollowMessage): void {
  if (!socket.destroyed && socket.writable) socket.end(`${JSON.stringify(last)}\n`);
}

/** A line the follower wrote: a cancel, checked against its schema (anything else is ignored). */
function isCancel(line: string): boolean {
  try {
    return followCancel.safeParse(JSON.parse(line)).success;
  } catch {
    return false;
  }
}

/** Ctrl-C in the command: cancel the run's chain (its action is killed, the outcome recorded). */
function cancel(client: Client, request: FollowRequest, log: (line: string) => void): void {
  const handle = client.workflow.getHandle(
    request.workflow_id,
    undefined,
    request.first_run_id === undefined ? undefined : { firstExecutionRunId: request.first_run_id },
  );
  handle.cancel().then(
    () => {
      // A quick action of the run, running here, is killed now (activities/stop-watch.ts).
      stopRequested(request.workflow_id);
      log(`${request.workflow_id}: cancelled for its follower (Ctrl-C)`);
    },
    (err: unknown) => log(`${request.workflow_id}: the follower's cancel failed: ${(err as Error).message}`),
  );
}
