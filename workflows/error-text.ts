import type { Failure } from '../fsm/run/snapshot.js';

/**
 * A failure as raw facts for the core: the messages of its cause chain, outermost first
 * (Temporal wraps activity and child failures: "Activity task failed" → the activity's error).
 */
export function failureOf(err: unknown): Failure {
  let e = err as { message?: string; cause?: unknown } | undefined;
  const messages: string[] = [];
  for (let depth = 0; e && typeof e === 'object' && depth < 8; depth += 1) {
    if (e.message) messages.push(e.message);
    e = e.cause as typeof e;
  }
  return { messages: messages.length ? messages : [String(err)] };
}
