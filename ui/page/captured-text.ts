/**
 * A captured value taken apart for people (captured-view.ts draws it): its output as text (JSON
 * pretty-printed, such as a fan-out's collected results; undefined when empty), its stderr, exit
 * code and duration, and its other fields by name. Pure: no DOM, unit-tested.
 */

/** The text a value shows; undefined for an empty one. Pure: unit-tested. */
export function capturedText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') return JSON.stringify(value, null, 2);
  const t = value.trim();
  if (t === '') return undefined;
  if (t.startsWith('{') || t.startsWith('[')) {
    try {
      return JSON.stringify(JSON.parse(t) as unknown, null, 2);
    } catch {
      // Not JSON after all: shown as it is.
    }
  }
  return value;
}

/** One captured value, taken apart for people. */
export interface CapturedParts {
  exitCode?: number;
  durationMs?: number;
  /** The output's text; undefined when it is empty. */
  output: string | undefined;
  stderr?: string;
  /** Its other fields, by name, each as text. */
  fields: Array<[string, string]>;
}

export function capturedParts(value: unknown): CapturedParts {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { output: capturedText(value), fields: [] };
  const v = value as Record<string, unknown>;
  const output = capturedText(v.output);
  const stderr = capturedText(v.stderr);
  const fields = Object.entries(v)
    .filter(([k, x]) => !['output', 'stderr', 'exit_code', 'duration_ms'].includes(k) && x !== undefined)
    .map(([k, x]): [string, string] => [k, capturedText(x) ?? '(empty)'])
    // A field the output already shows (a join's results are its output) is not shown twice.
    .filter(([, text]) => text !== output);
  return {
    ...(typeof v.exit_code === 'number' ? { exitCode: v.exit_code } : {}),
    ...(typeof v.duration_ms === 'number' ? { durationMs: v.duration_ms } : {}),
    output,
    ...(stderr === undefined ? {} : { stderr }),
    fields,
  };
}
