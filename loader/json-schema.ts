/**
 * JSON Schemas a loop gives for answers (`llm_structured`'s `schema:`), checked with ajv: once
 * at load (is it a JSON Schema at all?) and on the worker for each answer. One compiler for both,
 * so a schema that loads is one the worker can apply.
 */
import { createRequire } from 'node:module';
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import { error, type Diagnostic } from '../fsm/diagnostics.js';
import type { LoopDefinition } from '../fsm/schema.js';

// strict: false — seed schemas carry annotations (`description`, `examples`) and keywords of later
// drafts that ajv's strict mode refuses though they are harmless; what matters is that each
// keyword it knows is well-formed (the meta-schema) and that every $ref resolves (compile).
// Made on the first schema, not at import: most loops have none, and loading ajv and building its
// compiler is ~50 ms of `ll-loop run`'s CPU before its start.
let compiler: Ajv | undefined;
const loadModule = createRequire(import.meta.url);
function ajvCompiler(): Ajv {
  if (compiler === undefined) {
    const { Ajv: AjvClass } = loadModule('ajv') as typeof import('ajv');
    compiler = new AjvClass({ strict: false, allErrors: true });
  }
  return compiler;
}
const compiled = new Map<string, ValidateFunction>();

/** The schema compiled, or why it is not a usable JSON Schema. Compilations are cached by content. */
export function compileJsonSchema(
  schema: Record<string, unknown>,
): { validate: ValidateFunction } | { problem: string } {
  const key = JSON.stringify(schema);
  const cached = compiled.get(key);
  if (cached) return { validate: cached };
  try {
    const ajv = ajvCompiler();
    if (!ajv.validateSchema(schema))
      return { problem: errorTexts(firstPerPlace(ajv.errors ?? []), 'schema').join('; ') };
    const validate = ajv.compile(schema);
    compiled.set(key, validate);
    return { validate };
  } catch (e) {
    return { problem: e instanceof Error ? e.message : String(e) };
  }
}

/** Every way `value` misses `schema`, one line each (`/verdict must be equal to one of the allowed values: yes, no`); empty when it fits. */
export function schemaErrors(schema: Record<string, unknown>, value: unknown): string[] {
  const c = compileJsonSchema(schema);
  if ('problem' in c) return [`the schema is not a valid JSON Schema: ${c.problem}`];
  return c.validate(value) ? [] : errorTexts(c.validate.errors ?? [], 'answer');
}

/**
 * The meta-schema explains one bad keyword several ways (`type` is one of the names, or an array
 * of them, or anyOf failed): the first explanation per place is the useful one.
 */
function firstPerPlace(errors: readonly ErrorObject[]): ErrorObject[] {
  const seen = new Set<string>();
  return errors.filter((e) => {
    if (e.keyword === 'anyOf' || seen.has(e.instancePath)) return false;
    seen.add(e.instancePath);
    return true;
  });
}

function errorTexts(errors: readonly ErrorObject[], root: string): string[] {
  return errors.map((e) => {
    const where = e.instancePath === '' ? root : e.instancePath;
    const allowed =
      e.keyword === 'enum' && Array.isArray(e.params['allowedValues'])
        ? `: ${(e.params['allowedValues'] as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`
        : '';
    return `${where} ${e.message ?? 'is invalid'}${allowed}`;
  });
}

const SCHEMA_FIX =
  'write a JSON Schema (https://json-schema.org), e.g. { type: object, properties: { verdict: { type: string, enum: [yes, no] } }, required: [verdict] }';

/** A diagnostic for each `schema:` / `output_schema:` in the loop that is not a valid JSON Schema (the loader adds file:line). */
export function checkJsonSchemas(definition: LoopDefinition): Diagnostic[] {
  const out: Diagnostic[] = [];
  const check = (path: Array<string | number>, field: string, schema: Record<string, unknown> | undefined) => {
    if (schema === undefined) return;
    const c = compileJsonSchema(schema);
    if ('problem' in c) out.push(error(path, `${field} is not a valid JSON Schema: ${c.problem}`, SCHEMA_FIX));
  };
  for (const [name, state] of Object.entries(definition.states)) {
    if (state.evaluate?.type === 'llm_structured')
      check(['states', name, 'evaluate', 'schema'], 'schema', state.evaluate.schema);
    check(['states', name, 'output_schema'], 'output_schema', state.output_schema);
    // A human state's `schema:` (ask: json) checks the person's answer.
    check(['states', name, 'schema'], 'schema', state.schema);
  }
  return out;
}
