/**
 * A run's captured values, each under its name: its output as text (JSON pretty-printed, such as a
 * fan-out's collected results; an empty output said so), its stderr when there is any, its exit
 * code and duration on one line, and any other field (a parsed `json`, a person's answer, a
 * join's counts) by name. Never the value's JSON with its strings escaped inside strings.
 */
import { safeText } from '../../client/reporters/safe-text.js';
import { duration, h } from './dom.js';

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

/** One captured value, taken apart for people. Pure: unit-tested. */
export interface CapturedParts {
  /** `exit 0 · 12ms` (empty when the value has neither). */
  meta: string;
  /** The output's text; undefined when it is empty. */
  output: string | undefined;
  stderr?: string;
  /** Its other fields, by name, each as text. */
  fields: Array<[string, string]>;
}

export function capturedParts(value: unknown): CapturedParts {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { meta: '', output: capturedText(value), fields: [] };
  const v = value as Record<string, unknown>;
  const meta = [
    typeof v.exit_code === 'number' ? `exit ${v.exit_code}` : '',
    typeof v.duration_ms === 'number' ? duration(v.duration_ms) : '',
  ]
    .filter(Boolean)
    .join(' · ');
  const output = capturedText(v.output);
  const stderr = capturedText(v.stderr);
  const fields = Object.entries(v)
    .filter(([k, x]) => !['output', 'stderr', 'exit_code', 'duration_ms'].includes(k) && x !== undefined)
    .map(([k, x]): [string, string] => [k, capturedText(x) ?? '(empty)'])
    // A field the output already shows (a join's results are its output) is not shown twice.
    .filter(([, text]) => text !== output);
  return { meta, output, ...(stderr === undefined ? {} : { stderr }), fields };
}

/** The captured values as a list; `ended`: the run will capture nothing more. */
export function capturedView(captured: Record<string, unknown>, ended: boolean): HTMLElement {
  const keys = Object.keys(captured);
  if (keys.length === 0) return h('p', { class: 'muted' }, ended ? '(none)' : '(none yet)');
  return h(
    'dl',
    {},
    ...keys.flatMap((k) => {
      const p = capturedParts(captured[k]);
      return [
        h('dt', {}, k, p.meta ? h('span', { class: 'meta' }, ` · ${p.meta}`) : undefined),
        h(
          'dd',
          {},
          p.output === undefined ? h('p', { class: 'muted' }, '(empty output)') : h('pre', {}, safeText(p.output)),
          p.stderr === undefined ? undefined : h('pre', { class: 'stderr' }, safeText(`── stderr ──\n${p.stderr}`)),
          ...p.fields.map(([name, text]) => h('pre', { class: 'field' }, safeText(`${name}: ${text}`))),
        ),
      ];
    }),
  );
}
