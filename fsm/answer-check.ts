/**
 * Answers checked against a JSON Schema (`llm_structured`'s `schema:`, a state's `output_schema:`):
 * the text an agent is asked again with, and what the worker reports about an output. The check
 * itself runs on the worker (ajv, loader/json-schema.ts); the core decides what follows.
 */

/** What an agent asked again is told before the errors of its previous answer. */
export const REASK_INTRO = 'Your previous answer did not match the required JSON schema:';

/** The text appended to a question asked again: the previous answer's errors, one per line. */
export function reaskText(errors: readonly string[]): string {
  return `${REASK_INTRO}\n<schema_errors>\n${errors.map((e) => `- ${e}`).join('\n')}\n</schema_errors>\nAnswer again with JSON that matches the schema.`;
}

/** An action's output checked against its state's `output_schema:`: the parsed value, or every way it misses. */
export type OutputCheck = { value: unknown } | { errors: string[] };
