/**
 * A run's captured values, each under its name: its output as text (JSON pretty-printed, such as a
 * fan-out's collected results; an empty output said so), its stderr when there is any, its exit
 * code and duration on one line, and any other field (a parsed `json`, a person's answer, a
 * join's counts) by name. Never the value's JSON with its strings escaped inside strings.
 */
import { safeText } from '../../reporters/safe-text.js';
import { capturedParts } from './captured-text.js';
import { duration, h } from './dom.js';

/** The captured values as a list; `ended`: the run will capture nothing more. */
export function capturedView(captured: Record<string, unknown>, ended: boolean): HTMLElement {
  const keys = Object.keys(captured);
  if (keys.length === 0) return h('p', { class: 'muted' }, ended ? '(none)' : '(none yet)');
  return h(
    'dl',
    {},
    ...keys.flatMap((k) => {
      const p = capturedParts(captured[k]);
      const meta = [
        p.exitCode === undefined ? '' : `exit ${p.exitCode}`,
        p.durationMs === undefined ? '' : duration(p.durationMs),
      ]
        .filter(Boolean)
        .join(' · ');
      return [
        h('dt', {}, k, meta ? h('span', { class: 'meta' }, ` · ${meta}`) : undefined),
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
