/**
 * An error and the causes it wraps ("Failed to query Workflow" around a gRPC error, an activity
 * failure around an application failure), outermost first. Bounded, and a cycle never hangs.
 */

/** The fields ll-loop reads from an error or any of its causes. */
export interface ErrorLike {
  name?: unknown;
  message?: unknown;
  details?: unknown;
  code?: unknown;
  namespace?: unknown;
  cause?: unknown;
}

const MAX_DEPTH = 8;

/** The error and its causes, outermost first. */
export function causes(err: unknown): ErrorLike[] {
  const out: ErrorLike[] = [];
  let e = err as ErrorLike | null | undefined;
  while (e != null && typeof e === 'object' && out.length < MAX_DEPTH && !out.includes(e)) {
    out.push(e);
    e = e.cause as ErrorLike | null | undefined;
  }
  return out;
}

/** Whether the error or one of its causes passes `test`. */
export function someCause(err: unknown, test: (e: ErrorLike) => boolean): boolean {
  return causes(err).some(test);
}
