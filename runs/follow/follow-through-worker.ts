/**
 * The command's half of following a run through the checkout's worker (runs/transport/schemas.ts `follow`,
 * serve-follow.ts): one request on the worker's socket, then its events as the worker reads them,
 * and the run's end. No Temporal SDK is loaded. When the worker cannot serve (no socket, a
 * refusal, an error before anything was shown) or the stream breaks (the worker died), the caller
 * follows the ordinary way, skipping what was already shown ({@link eventKey}).
 */
import type { TimedEvent } from '../../fsm/run/events.js';
import type { LoopWorkflowInput } from '../../workflows/definitions.js';
import type { FollowedRun } from './follow-events.js';
import { openStream } from '../transport/ask.js';
import type { FollowCancel, FollowMessage, FollowRequest } from '../transport/schemas.js';

type WorkerFollow =
  | { kind: 'followed'; followed: FollowedRun }
  /** The worker stopped serving (or never did): `shown` holds the events already delivered. */
  | { kind: 'fallback'; why: string; shown: Set<string> };

export interface WorkerFollowing {
  /** Ctrl-C: ask the worker to cancel the run. */
  cancel(): void;
  /** Stop following: the stream is closed, and `done` is what was delivered, without the run's end. */
  stop(): void;
  done: Promise<WorkerFollow>;
}

export interface WorkerFollowHandlers {
  onEvent: (event: TimedEvent) => void;
  onInput?: (input: LoopWorkflowInput) => void;
  /** A line for a person (the run waits for its scopes, and behind whom). */
  onNote?: (text: string) => void;
  /** The worker lost / regained its connection to Temporal. */
  onDisconnect?: (why: string) => void;
  onReconnect?: () => void;
}

/** An event's identity across followers: its run (a sub-loop's own id) and number. */
export function eventKey(event: TimedEvent): string {
  return `${event.subloop?.workflow_id ?? ''}#${event.seq}`;
}

/** Follow a run through the worker listening on `path`. */
export function followThroughWorker(path: string, request: FollowRequest, on: WorkerFollowHandlers): WorkerFollowing {
  const shown = new Set<string>();
  const events: TimedEvent[] = [];
  let input: LoopWorkflowInput | undefined;
  let settle: (outcome: WorkerFollow) => void = () => undefined;
  const done = new Promise<WorkerFollow>((resolve) => (settle = resolve));
  const fallback = (why: string) => settle({ kind: 'fallback', why, shown });
  const handle = (m: FollowMessage): void => {
    switch (m.kind) {
      case 'event':
        shown.add(eventKey(m.event));
        if (m.event.subloop === undefined) events.push(m.event);
        return on.onEvent(m.event);
      case 'input':
        input = m.input;
        return on.onInput?.(m.input);
      case 'disconnect':
        return on.onDisconnect?.(m.why);
      case 'reconnect':
        return on.onReconnect?.();
      case 'note':
        return on.onNote?.(m.text);
      case 'end':
        stream.close();
        return settle({ kind: 'followed', followed: { ...m.followed, events, input: m.followed.input ?? input } });
      case 'error':
        stream.close();
        return fallback(`the worker could not follow the run: ${m.message}`);
      case 'refused':
        stream.close();
        return fallback(m.why);
    }
  };
  const stream = openStream<'follow', FollowCancel>(path, request, { message: handle, broken: fallback });
  const stop = (): void => {
    stream.close();
    settle({
      kind: 'followed',
      followed: { workflowId: request.workflow_id, events, end: undefined, input, warnings: [] },
    });
  };
  return { cancel: () => stream.write({ kind: 'cancel' }), stop, done };
}
