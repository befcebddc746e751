/** A failure's message with its causes (Temporal wraps activity and child failures), for events. */
export function errorText(err: unknown): string {
  let e = err as { message?: string; cause?: unknown } | undefined;
  const parts: string[] = [];
  while (e && typeof e === 'object' && parts.length < 4) {
    if (e.message) parts.push(e.message);
    e = e.cause as typeof e;
  }
  return parts.join(': ') || String(err);
}
