/**
 * Talking to the server: the token from the page's own URL, event streams that say when they
 * are cut and come back by themselves (EventSource retries; the page shows the gap), and actions
 * as POSTs with the token in their header.
 */
import type { ActionAnswer } from '../server/wire.js';

export const TOKEN = new URLSearchParams(location.search).get('token') ?? '';

/** A path of the server with the token. */
export function withToken(path: string): string {
  return `${path}${path.includes('?') ? '&' : '?'}token=${encodeURIComponent(TOKEN)}`;
}

export interface StreamHandlers<M> {
  onMessage: (message: M) => void;
  /** The stream is up (`true`) or cut, the browser retrying (`false`). */
  onConnection: (up: boolean) => void;
}

/** Opens an event stream; returns how to close it. */
export function openStream<M>(path: string, handlers: StreamHandlers<M>): () => void {
  const source = new EventSource(withToken(path));
  source.onopen = () => handlers.onConnection(true);
  source.onerror = () => handlers.onConnection(false);
  source.onmessage = (e: MessageEvent<string>) => handlers.onMessage(JSON.parse(e.data) as M);
  return () => source.close();
}

/** Asks the server to act on a run (`stop`, `resume`). */
export async function act(runId: string, action: 'stop' | 'resume'): Promise<ActionAnswer> {
  try {
    const res = await fetch(`/api/run/${encodeURIComponent(runId)}/${action}`, {
      method: 'POST',
      headers: { 'X-LL-Token': TOKEN },
    });
    return (await res.json()) as ActionAnswer;
  } catch (err) {
    return { ok: false, message: `the ll-loop ui server did not answer: ${(err as Error).message}` };
  }
}
