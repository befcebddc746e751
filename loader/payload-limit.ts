/**
 * A run's input travels to Temporal as one payload: the resolved loop (with its context values)
 * plus the run's options. Temporal refuses a payload over its blob limit (2 MiB by default,
 * `limit.blobSize.error`), so a loop too big to start is a load error — `validate`, `show` and
 * `run` agree — rather than a refused start.
 */
import type { LoopDefinition } from '../fsm/schema.js';
import { error, type Diagnostic } from '../fsm/diagnostics.js';

/** Temporal's default limit on one payload, in bytes. */
export const TEMPORAL_PAYLOAD_LIMIT = 2 * 1024 * 1024;

/** What the rest of a run's input (options, scope lock, a resumed run's snapshot) may take. */
const RESERVED_FOR_RUN = 256 * 1024;

/** The largest resolved loop, as JSON bytes, that a run can carry. */
export const MAX_DEFINITION_BYTES = TEMPORAL_PAYLOAD_LIMIT - RESERVED_FOR_RUN;

/** `bytes` for a person: `1.9 MiB`, `640 KiB`, `512 bytes`. */
export function sizeText(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KiB`;
  return `${bytes} bytes`;
}

/** The size of `definition` as Temporal receives it (JSON, UTF-8). */
function definitionBytes(definition: LoopDefinition): number {
  return Buffer.byteLength(JSON.stringify(definition), 'utf8');
}

/** An error when `definition` is too large to start as a run, naming the limit, the size and the fix. */
export function payloadProblem(definition: LoopDefinition): Diagnostic | undefined {
  const bytes = definitionBytes(definition);
  if (bytes <= MAX_DEFINITION_BYTES) return undefined;
  return error(
    [],
    `the loop is ${sizeText(bytes)} as a run's input (its states, prompts, description and context values), over the ` +
      `${sizeText(MAX_DEFINITION_BYTES)} a run can carry: Temporal refuses payloads over ${sizeText(TEMPORAL_PAYLOAD_LIMIT)}`,
    'keep large text in files the actions read (e.g. `cat prompts/plan.md`, or a path in context) instead of in the loop file or its context values',
  );
}
