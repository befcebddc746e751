/**
 * A state's `output_schema:` applied on the worker: the action's output parsed as JSON (the whole
 * output, a ```json fence, the last line, or the outermost {...}: what agents print around it) and
 * checked with ajv. The core decides what a miss means (ask a prompt again, `error` for a shell).
 */
import type { OutputCheck } from '../fsm/answer-check.js';
import type { ActionResult } from '../fsm/types.js';
import { compileJsonSchema, schemaErrors } from '../loader/json-schema.js';
import { parseJsonText } from './json-text.js';

export function checkOutput(schema: Record<string, unknown>, result: ActionResult): OutputCheck {
  const compiled = compileJsonSchema(schema);
  if ('problem' in compiled) return { errors: [`output_schema is not a valid JSON Schema: ${compiled.problem}`] };
  let value: unknown;
  try {
    value = parseJsonText(result.output);
  } catch {
    const cut = result.truncated
      ? ' (only its last part is kept: the output was longer than the tail ll-loop keeps)'
      : '';
    return { errors: [`the output is not JSON${cut}`] };
  }
  const errors = schemaErrors(schema, value);
  return errors.length > 0 ? { errors } : { value };
}
