/**
 * Resolving the `context:` block at the start of a run. Context values may reference other
 * context values (`metric_cmd: "mypy ${context.target_dir}"`); nothing else, since the run has
 * produced nothing yet. A reference cycle is an error naming the chain.
 */
import { renderValue, shellQuote, walkPath } from '../interpolate.js';
import { parseTemplate } from '../template.js';

/**
 * A context problem found before the run starts; `key` is the context entry, `missing` the
 * context value it references that has none.
 */
export class ContextError extends Error {
  override readonly name = 'ContextError';
  constructor(
    message: string,
    readonly key: string,
    readonly missing?: string,
    /** How to fix it, when the message does not say. */
    readonly fix?: string,
  ) {
    super(message);
  }
}

/**
 * Which context values are data (docs/loop-format.md "Interpolation in shell actions"): values
 * given on the command line, except `command` parameters, which the operator gives as code.
 */
export interface ContextData {
  /** The keys whose values are data; {@link resolveContext} adds the keys whose values it built from data. */
  readonly keys: Set<string>;
  /** Whether `key`'s value is code to run (a `command` parameter). */
  isCode(key: string): boolean;
}

/**
 * Resolve string context values that reference `${context.*}`, in dependency order.
 * Non-string values are returned as they are. With `data`, a data value never becomes code: in
 * a `command` parameter's value it is written shell-quoted (`cmd: "git show ${context.ref}"`
 * gets the ref as one argument, whatever it holds); any other value built from it becomes data
 * itself (added to `data.keys`), so shell actions receive it as a variable, not as script.
 */
export function resolveContext(context: Record<string, unknown>, data?: ContextData): Record<string, unknown> {
  const resolved: Record<string, unknown> = {};
  const visiting: string[] = [];

  const resolveKey = (key: string): unknown => {
    // Own keys only: `${context.constructor}` must be undefined, not Object's constructor.
    if (Object.hasOwn(resolved, key)) return resolved[key];
    if (!Object.hasOwn(context, key)) return undefined;
    if (visiting.includes(key)) {
      const chain = [...visiting.slice(visiting.indexOf(key)), key].join(' → ');
      throw new ContextError(`context reference cycle: ${chain}; make one of these a plain value`, key);
    }
    const raw = context[key];
    if (typeof raw !== 'string') return (resolved[key] = raw);
    visiting.push(key);
    let out = '';
    let fromData = false;
    for (const segment of parseTemplate(raw)) {
      if (segment.kind === 'text') {
        out += segment.text;
        continue;
      }
      if (segment.namespace !== 'context') {
        throw new ContextError(
          `context.${key} references ${segment.raw}: context values may only reference other context values ` +
            `(they are resolved before the first state runs)`,
          key,
          undefined,
          segment.namespace === 'env'
            ? `write ${segment.raw} in the action that needs it (actions read the environment when they run), or pass the value with --context ${key}=VALUE`
            : `move ${segment.raw} into the state that reads context.${key}, where it has a value`,
        );
      }
      const [head, ...rest] = segment.path;
      // Below the key, paths read like everywhere else (own keys, negative array indexes).
      const value = walkPath(resolveKey(head ?? ''), rest);
      if ((value === undefined || value === null || value === '') && segment.fallback !== undefined)
        out += segment.fallback;
      else if (value === undefined || value === null) {
        throw new ContextError(
          `context.${key} references ${segment.raw}, which is not defined: add it under context: or pass --context ${head}=VALUE`,
          key,
          head,
        );
      } else {
        const isData = data?.keys.has(head ?? '') === true;
        const quote = segment.shell === true || (isData && data.isCode(key));
        if (isData && !quote) fromData = true;
        out += quote ? shellQuote(renderValue(value)) : renderValue(value);
      }
    }
    visiting.pop();
    if (fromData) data?.keys.add(key);
    return (resolved[key] = out);
  };

  for (const key of Object.keys(context)) resolveKey(key);
  // Keep the order the loop file wrote, not the order references were resolved in.
  return Object.fromEntries(Object.keys(context).map((key) => [key, resolved[key]]));
}
