/**
 * Deep merge of loop documents, for `from:` inheritance and `fragment:` expansion
 * (docs/reuse.md). Pure: plain values in, new plain values out; no input is mutated and the
 * result shares no mapping or list with the inputs.
 *
 * Rules (seed 001 "Inheritance pattern"): mappings merge key by key at every depth; scalars and
 * lists in the override replace the base value; `null` in an override removes the key. The base
 * document is taken as written (its own `null`s stay): inheriting from a file never changes what
 * that file says, only what the child adds.
 */

export type PlainObject = Record<string, unknown>;

/** A YAML mapping as parsed: an object that is not a list and not null. */
export function isPlainObject(value: unknown): value is PlainObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Sets an own property even for `__proto__`, which plain assignment would turn into a prototype
 * change: YAML keys are data and must stay data.
 */
export function setOwn(target: PlainObject, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A copy of a parsed YAML value: mappings and lists are copied, scalars shared. */
export function cloneValue<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item) => cloneValue(item)) as T;
  if (!isPlainObject(value)) return value;
  const out: PlainObject = {};
  for (const [key, item] of Object.entries(value)) setOwn(out, key, cloneValue(item));
  return out as T;
}

/** `override` laid over `base`. A `null` in `override` removes the key whether or not `base` has it. */
export function deepMerge(base: PlainObject, override: PlainObject): PlainObject {
  const out = cloneValue(base);
  for (const [key, value] of Object.entries(override)) {
    if (value === null) {
      delete out[key];
      continue;
    }
    const under = Object.hasOwn(out, key) ? out[key] : undefined;
    setOwn(out, key, isPlainObject(under) && isPlainObject(value) ? deepMerge(under, value) : cloneValue(value));
  }
  return out;
}

/** Layers merged in order, each over the ones before it; the first (the base) is copied as written. */
export function mergeLayers(layers: readonly PlainObject[]): PlainObject {
  const [base, ...overrides] = layers;
  return overrides.reduce<PlainObject>((merged, layer) => deepMerge(merged, layer), cloneValue(base ?? {}));
}

/** The value at `path` in a parsed document, or undefined when any step is missing. */
export function valueAt(doc: unknown, path: ReadonlyArray<string | number>): unknown {
  let node: unknown = doc;
  for (const key of path) {
    if (Array.isArray(node) && typeof key === 'number') node = node[key];
    else if (isPlainObject(node) && Object.hasOwn(node, String(key))) node = node[String(key)];
    else return undefined;
  }
  return node;
}
