/**
 * Resolving `${namespace.path}` references against the run's values (seed 001 "Variable
 * Interpolation"). Pure: the caller supplies every value, including the clock-derived `loop.*`.
 *
 * Rules: non-string values render as JSON; a missing value (undefined or null) is an error unless
 * the reference has a `:-default`; an empty string renders empty unless it has a `:-default`.
 * `${env.*}` never resolves here: env values are looked up on the worker (see shell-render.ts and
 * `renderPrompt`), so they never enter workflow history.
 */
import { closest } from './suggest.js';
import { parseTemplate, type Namespace, type RefSegment } from './template.js';
import type { CapturedValue, EnvRef, EvalResult, PrevResult, PromptText } from './types.js';

/** Everything a template can see while a state runs. */
export interface InterpolationScope {
  context: Record<string, unknown>;
  captured: Record<string, CapturedValue>;
  prev: PrevResult | null;
  result: EvalResult | null;
  state: { name: string; iteration: number };
  loop: { name: string; started_at: string; elapsed_ms: number; elapsed: string };
  /**
   * Context keys whose values came from run-time data (a parent's captured output bound through
   * `with:`): shell actions treat them like `captured` values, never as code.
   */
  dataContext?: readonly string[];
  /** A parallel state's current item and its 0-based index (only while its items' `with:` is rendered). */
  item?: unknown;
  item_index?: number;
}

export type InterpolationProblem = 'undefined' | 'env_not_here' | 'syntax';

/** A reference that cannot be resolved; `variable` is the reference as written. */
export class InterpolationError extends Error {
  override readonly name = 'InterpolationError';
  constructor(
    message: string,
    readonly variable: string,
    readonly problem: InterpolationProblem,
  ) {
    super(message);
  }
}

/** The value at `path` below `root`: own keys only; array indexes may be negative (from the end). */
export function walkPath(root: unknown, path: string[]): unknown {
  let value = root;
  for (const key of path) {
    if (value === null || value === undefined) return undefined;
    if (Array.isArray(value)) {
      const index = Number(key);
      value = Number.isInteger(index) ? value[index < 0 ? value.length + index : index] : undefined;
    } else if (typeof value === 'object') {
      value = Object.prototype.hasOwnProperty.call(value, key) ? (value as Record<string, unknown>)[key] : undefined;
    } else {
      return undefined;
    }
  }
  return value;
}

function namespaceRoot(scope: InterpolationScope, namespace: Exclude<Namespace, 'env'>): unknown {
  return scope[namespace];
}

/** How to fix an undefined reference, by namespace. */
function fixFor(ref: RefSegment): string {
  const [head] = ref.path;
  switch (ref.namespace) {
    case 'context':
      return `define it under context: in the loop file or pass --context ${head ?? 'KEY'}=VALUE`;
    case 'captured':
      return `the state that captures "${head ?? ''}" has not run yet; write ${ref.raw.slice(0, -1)}:-default} for a fallback`;
    case 'prev':
      return `no state has run before this one; write ${ref.raw.slice(0, -1)}:-default} for a fallback`;
    case 'result':
      return `no evaluation has produced this value yet; write ${ref.raw.slice(0, -1)}:-default} for a fallback`;
    case 'item':
    case 'item_index':
      return `${ref.raw} is defined only in a parallel state's with: (and ${'${item.<key>}'} only for items that are objects)`;
    default:
      return `check the spelling; available: state.name, state.iteration, loop.name, loop.started_at, loop.elapsed_ms, loop.elapsed`;
  }
}

/**
 * For a captured value that is there but lacks the field a reference names (`${captured.n.outptu}`):
 * which field is missing, what the value has, and the near name. Undefined when the value itself
 * is missing (the state that captures it has not run).
 */
function missingField(ref: RefSegment, scope: InterpolationScope): string | undefined {
  if (ref.namespace !== 'captured' || ref.path.length < 2) return undefined;
  let at: unknown = scope.captured;
  for (const [i, key] of ref.path.entries()) {
    const next = walkPath(at, [key]);
    if (next !== undefined && next !== null) {
      at = next;
      continue;
    }
    if (i === 0 || at === null || typeof at !== 'object' || Array.isArray(at)) return undefined;
    const has = Object.keys(at);
    const near = closest(key, has);
    const owner = ref.path.slice(0, i).join('.');
    return `captured "${owner}" has no field "${key}"${near === undefined ? '' : ` (did you mean "${near}"?)`}; it has ${has.join(', ')}`;
  }
  return undefined;
}

/** Render a resolved value as text: strings as they are, everything else as JSON. */
export function renderValue(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** `text` as one POSIX shell word: single-quoted unless it is plainly safe (as Python's shlex.quote). */
export function shellQuote(text: string): string {
  if (text !== '' && /^[A-Za-z0-9_@%+=:,./-]+$/.test(text)) return text;
  return `'${text.replaceAll("'", `'"'"'`)}'`;
}

/**
 * Resolve one non-env reference to its text, applying `:-default` and `:shell` (the text as one
 * shell word). Throws InterpolationError when the value is missing and there is no default.
 */
export function resolveRef(ref: RefSegment, scope: InterpolationScope): string {
  const text = resolveValue(ref, scope);
  return ref.shell ? shellQuote(text) : text;
}

/** Resolve one non-env reference to its text, applying `:-default` only. */
export function resolveValue(ref: RefSegment, scope: InterpolationScope): string {
  if (ref.namespace === 'env') {
    throw new InterpolationError(
      `${ref.raw} can only be used in an action: environment values are read on the worker when the action runs, ` +
        `so they are not available to evaluators, routes or context`,
      ref.raw,
      'env_not_here',
    );
  }
  const value = isTimeoutKind(ref, scope)
    ? (scope.prev?.timeout_kind ?? '')
    : walkPath(namespaceRoot(scope, ref.namespace), ref.path);
  const missing = value === undefined || value === null;
  if (ref.fallback !== undefined && (missing || value === '')) return ref.fallback;
  if (missing) {
    throw new InterpolationError(
      `undefined variable ${ref.raw}: ${missingField(ref, scope) ?? fixFor(ref)}`,
      ref.raw,
      'undefined',
    );
  }
  return renderValue(value);
}

/** `${prev.timeout_kind}` after an action: `idle` or `wall` when it timed out, else empty (never undefined). */
function isTimeoutKind(ref: RefSegment, scope: InterpolationScope): boolean {
  return ref.namespace === 'prev' && scope.prev !== null && ref.path.length === 1 && ref.path[0] === 'timeout_kind';
}

function envRef(ref: RefSegment): EnvRef {
  const name = ref.path[0] ?? '';
  return ref.fallback === undefined ? { name } : { name, default: ref.fallback };
}

/** Interpolate a template into plain text (routes, evaluator fields, `source:`). */
export function interpolate(template: string, scope: InterpolationScope): string {
  let out = '';
  for (const segment of parseTemplate(template)) {
    out += segment.kind === 'text' ? segment.text : resolveRef(segment, scope);
  }
  return out;
}

/** Interpolate a prompt: `${env.*}` stays a reference for the worker to fill in. */
export function renderPrompt(template: string, scope: InterpolationScope): PromptText {
  const parts: PromptText['parts'] = [];
  let text = '';
  for (const segment of parseTemplate(template)) {
    if (segment.kind === 'text') text += segment.text;
    else if (segment.namespace === 'env') {
      if (text) parts.push(text);
      text = '';
      parts.push(envRef(segment));
    } else text += resolveRef(segment, scope);
  }
  if (text) parts.push(text);
  return { parts };
}

export { envRef as envRefOf };
