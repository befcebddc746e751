/**
 * `${namespace.path}` templates: parsing only. Resolution is in interpolate.ts, shell rendering in
 * shell-render.ts.
 *
 * Grammar: `$${` is a literal `${`; `${ns.a.b}` is a reference; `${ns.a.b:-text}` (or
 * little-loops' `${ns.a.b:default=text}`) falls back to `text` when the value is missing or empty;
 * `${ns.a.b:shell}` is the value as one shell word (little-loops' spelling of quoting); little-loops'
 * `${ns.a.b?}` is `${ns.a.b:-}` (empty when missing). References
 * do not nest: the first `}` closes one.
 */

export const NAMESPACES = [
  'context',
  'captured',
  'prev',
  'result',
  'state',
  'loop',
  'env',
  'item',
  'item_index',
] as const;
/** Namespaces that are a value in themselves (`${result}`, `${item}`), not only a root of paths. */
const WHOLE_VALUES: readonly string[] = ['result', 'prev', 'item', 'item_index'];
export type Namespace = (typeof NAMESPACES)[number];

interface TextSegment {
  kind: 'text';
  text: string;
}

export interface RefSegment {
  kind: 'ref';
  namespace: Namespace;
  /** Path below the namespace, e.g. `['errors', 'output']` for `${captured.errors.output}`. */
  path: string[];
  /** Present when written as `${…:-default}` or `${…:default=default}` (may be the empty string). */
  fallback?: string;
  /** Written as `${…:shell}`: the value is one shell word (data, quoted), wherever it appears. */
  shell?: true;
  /** The reference as written, e.g. `${captured.errors.output}`. */
  raw: string;
  /** Offset of `${` in the template. */
  offset: number;
}

export type Segment = TextSegment | RefSegment;

/** A template that cannot be parsed. `offset` points into the template text. */
export class TemplateSyntaxError extends Error {
  override readonly name = 'TemplateSyntaxError';
  constructor(
    message: string,
    readonly template: string,
    readonly offset: number,
    /** `modifier`: a well-formed reference with a modifier that does not exist (`${x.y:0:19}`). */
    readonly kind: 'modifier' | 'syntax' = 'syntax',
  ) {
    super(message);
  }
}

const PATH_SEGMENT = /^[A-Za-z0-9_-]+$/;

function isNamespace(value: string): value is Namespace {
  return (NAMESPACES as readonly string[]).includes(value);
}

/** The text after the first `:` of a reference: a fallback, or `shell`. */
function parseModifier(modifier: string, raw: string, template: string, offset: number): Partial<RefSegment> {
  if (modifier.startsWith('-')) return { fallback: modifier.slice(1) };
  if (modifier.startsWith('default=')) return { fallback: modifier.slice('default='.length) };
  if (modifier.trim() === 'shell') return { shell: true };
  throw new TemplateSyntaxError(
    `unknown modifier ":${modifier}" in ${raw}: use :-default, :default=default or :shell`,
    template,
    offset,
    'modifier',
  );
}

function parseRef(body: string, raw: string, template: string, offset: number): RefSegment {
  const colon = body.indexOf(':');
  let expr = (colon >= 0 ? body.slice(0, colon) : body).trim();
  // little-loops' `${ns.a.b?}`: the empty string when the value is missing (`${ns.a.b:-}`).
  const optional = colon < 0 && expr.endsWith('?');
  if (optional) expr = expr.slice(0, -1);
  const parts = expr.split('.');
  const [namespace, ...path] = parts;
  if (!namespace || !isNamespace(namespace)) {
    throw new TemplateSyntaxError(
      `unknown variable namespace in ${raw}: use one of ${NAMESPACES.join(', ')} (e.g. \${context.${expr || 'name'}}); ` +
        `for a literal shell \${…} write $\${…}`,
      template,
      offset,
    );
  }
  if (path.length === 0 && !WHOLE_VALUES.includes(namespace)) {
    throw new TemplateSyntaxError(
      `${raw} needs a path after "${namespace}." (e.g. \${${namespace}.name})`,
      template,
      offset,
    );
  }
  for (const segment of path) {
    if (!PATH_SEGMENT.test(segment)) {
      throw new TemplateSyntaxError(
        `invalid path segment "${segment}" in ${raw}: use letters, digits, _ or -`,
        template,
        offset,
      );
    }
  }
  if (namespace === 'env' && path.length !== 1) {
    throw new TemplateSyntaxError(`${raw}: environment references take one name, e.g. \${env.HOME}`, template, offset);
  }
  const ref: RefSegment = { kind: 'ref', namespace, path, raw, offset };
  if (colon >= 0) Object.assign(ref, parseModifier(body.slice(colon + 1), raw, template, offset));
  if (optional) ref.fallback = '';
  return ref;
}

/** Split a template into text and references. Throws TemplateSyntaxError on a malformed reference. */
export function parseTemplate(template: string): Segment[] {
  const segments: Segment[] = [];
  let text = '';
  let i = 0;
  while (i < template.length) {
    if (template.startsWith('$${', i)) {
      text += '${';
      i += 3;
      continue;
    }
    if (template.startsWith('${', i)) {
      const close = template.indexOf('}', i + 2);
      if (close < 0) {
        throw new TemplateSyntaxError(
          `unclosed \${ at offset ${i}: add the closing } (or write $\${ for a literal \${)`,
          template,
          i,
        );
      }
      if (text) segments.push({ kind: 'text', text });
      text = '';
      const raw = template.slice(i, close + 1);
      segments.push(parseRef(template.slice(i + 2, close), raw, template, i));
      i = close + 1;
      continue;
    }
    text += template[i];
    i += 1;
  }
  if (text) segments.push({ kind: 'text', text });
  return segments;
}

/** The references in a template (for validation); malformed ones throw TemplateSyntaxError. */
export function templateRefs(template: string): RefSegment[] {
  return parseTemplate(template).filter((s): s is RefSegment => s.kind === 'ref');
}

/** True when the string contains at least one `${…}` reference (escapes excluded). */
export function hasRefs(template: string): boolean {
  return template.replaceAll('$${', '').includes('${');
}
