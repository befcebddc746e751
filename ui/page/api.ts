/**
 * Talking to the server: the token from the page's own URL, event streams that say when they
 * are cut and come back by themselves (EventSource retries; the page shows the gap), and actions
 * as POSTs with the token in their header.
 */
import type { ActionAnswer, ActRequest, RunStatusView } from '../server/wire.js';
import { retryDelay } from './retry.js';

const TOKEN = new URLSearchParams(location.search).get('token') ?? '';

/** A path of the server with the token. */
function withToken(path: string): string {
  return `${path}${path.includes('?') ? '&' : '?'}token=${encodeURIComponent(TOKEN)}`;
}

export interface StreamHandlers<M> {
  onMessage: (message: M) => void;
  /** The stream is up (`true`) or cut, the browser retrying (`false`). */
  onConnection: (up: boolean) => void;
}

/**
 * Opens an event stream; returns how to close it. A cut connection is retried by the browser; a
 * stream it gives up on (an answer that is not 200, such as a server that is starting or a proxy's
 * error page) is reopened here, with backoff, until the page leaves: the page never stays dead.
 */
export function openStream<M>(path: string, handlers: StreamHandlers<M>): () => void {
  let source: EventSource | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let attempts = 0;
  let closed = false;
  const open = (): void => {
    timer = undefined;
    if (closed) return;
    const s = new EventSource(withToken(path));
    source = s;
    s.onopen = () => {
      attempts = 0;
      handlers.onConnection(true);
    };
    s.onerror = () => {
      handlers.onConnection(false);
      if (s.readyState !== EventSource.CLOSED || closed) return;
      attempts += 1;
      timer = setTimeout(open, retryDelay(attempts));
    };
    s.onmessage = (e: MessageEvent<string>) => handlers.onMessage(JSON.parse(e.data) as M);
  };
  open();
  return () => {
    closed = true;
    if (timer !== undefined) clearTimeout(timer);
    source?.close();
  };
}

/** Asks the server to act on a run (`stop`, `resume`, or a request with a body: pause, steer, answer, rerun). */
export async function act(runId: string, request: 'stop' | 'resume' | ActRequest): Promise<ActionAnswer> {
  const action = typeof request === 'string' ? request : request.action;
  let body: string | undefined;
  if (typeof request !== 'string') {
    // The action is in the path; the body holds the rest (a JSON answer's own keys untouched).
    const rest: Record<string, unknown> = { ...request };
    delete rest.action;
    body = JSON.stringify(rest);
  }
  try {
    const res = await fetch(`/api/run/${encodeURIComponent(runId)}/${action}`, {
      method: 'POST',
      headers: { 'X-LL-Token': TOKEN, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      ...(body === undefined ? {} : { body }),
    });
    return (await res.json()) as ActionAnswer;
  } catch (err) {
    return { ok: false, message: `the ll-loop ui server did not answer: ${(err as Error).message}` };
  }
}

/** What the open run waits for (null: closed, or it did not answer; also when the server is away). */
export async function runStatus(runId: string): Promise<RunStatusView | null> {
  try {
    const res = await fetch(withToken(`/api/run/${encodeURIComponent(runId)}/status`));
    if (!res.ok) return null;
    return ((await res.json()) as { status: RunStatusView | null }).status;
  } catch {
    return null;
  }
}
