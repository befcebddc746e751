/**
 * An FSM definition as readable YAML (`ll-loop compile`, `ll-loop create`): keys in a canonical
 * order a reader expects — what the loop is, where it starts and what it knows, its settings, then
 * its states, each state reading top to bottom as it runs (what it does, how it is judged, where it
 * goes). Keys this order does not know keep their place after the known ones; nothing is dropped.
 * Mappings become `Map`s so that no key order is lost (JS objects put integer-like keys first).
 */
import { stringify } from 'yaml';
import { LOOP_KEYS, RETRY_KEYS } from '../fsm/schema.js';

/** Loop level: identity, start, data, then every other setting in the schema's order; states last. */
const LOOP_ORDER = ['paradigm', 'name', 'description', 'initial', 'context', 'parameters', ...LOOP_KEYS];
const LAST_AT_LOOP = ['states'];

/** State level: as the state runs — action, capture, judgement, routes, then end-state markers. */
const STATE_ORDER = [
  'description',
  'fragment',
  'action',
  'action_type',
  // A human state's question (fsm/human.ts).
  'prompt',
  'ask',
  'options',
  'schema',
  'agent',
  'tools',
  'loop',
  'with',
  'context_passthrough',
  'capture',
  'timeout',
  'notify',
  'retry',
  'budget',
  'evaluate',
  'route',
  'on_yes',
  'on_no',
  'on_success',
  'on_failure',
  'on_blocked',
  'on_error',
  'on_budget',
];
/** After any other `on_<verdict>` shorthand. */
const STATE_LAST = ['on_maintain', 'next', 'terminal', 'failure'];

const EVALUATE_ORDER = [
  'type',
  'source',
  'path',
  'operator',
  'target',
  'toward',
  'tolerance',
  'previous',
  'direction',
  'pattern',
  'negate',
  'prompt',
  'min_confidence',
  'uncertain_suffix',
  'schema',
];
const PARAMETER_ORDER = ['type', 'required', 'default', 'values', 'description'];

type Plain = Record<string, unknown>;

function isPlain(value: unknown): value is Plain {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `value`'s keys: `first` in that order, then the rest as they were, then `last`. */
function ordered(value: Plain, first: readonly string[], last: readonly string[] = []): string[] {
  const keys = Object.keys(value);
  const head = [...new Set(first)].filter((k) => keys.includes(k) && !last.includes(k));
  const tail = last.filter((k) => keys.includes(k));
  return [...head, ...keys.filter((k) => !head.includes(k) && !tail.includes(k)), ...tail];
}

/** A mapping in the given key order; values converted by `child(key, value)`. */
function toMap(
  value: Plain,
  keys: readonly string[],
  child: (key: string, v: unknown) => unknown = (_k, v) => plainToMap(v),
): Map<string, unknown> {
  return new Map(keys.map((key) => [key, child(key, value[key])]));
}

/** Any value with its mappings as Maps, keys as they were. */
function plainToMap(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plainToMap);
  return isPlain(value) ? toMap(value, Object.keys(value)) : value;
}

function stateToMap(state: unknown): unknown {
  if (!isPlain(state)) return plainToMap(state);
  const known = new Set([...STATE_ORDER, ...STATE_LAST]);
  // Custom `on_<verdict>` shorthands sit with the other routes, before `next`.
  const customRoutes = Object.keys(state).filter((k) => k.startsWith('on_') && !known.has(k));
  return toMap(state, ordered(state, [...STATE_ORDER, ...customRoutes], STATE_LAST), (key, v) => {
    if (key === 'evaluate' && isPlain(v)) return toMap(v, ordered(v, EVALUATE_ORDER));
    if (key === 'retry' && isPlain(v)) return toMap(v, ordered(v, RETRY_KEYS));
    return plainToMap(v);
  });
}

export function toFsmYaml(def: Record<string, unknown>): string {
  const top = toMap(
    def,
    ordered(
      def,
      LOOP_ORDER.filter((k) => !LAST_AT_LOOP.includes(k)),
      LAST_AT_LOOP,
    ),
    (key, v) => {
      if (key === 'states' && isPlain(v)) return toMap(v, Object.keys(v), (_name, state) => stateToMap(state));
      if (key === 'parameters' && isPlain(v))
        return toMap(v, Object.keys(v), (_name, p) =>
          isPlain(p) ? toMap(p, ordered(p, PARAMETER_ORDER)) : plainToMap(p),
        );
      return plainToMap(v);
    },
  );
  // lineWidth 0: never fold long commands; multi-line text becomes a `|` block.
  return stringify(top, { lineWidth: 0, version: '1.2' });
}
