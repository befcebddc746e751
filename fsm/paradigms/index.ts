/**
 * Authoring paradigms (seed 000): `paradigm: goal | convergence | invariants | imperative |
 * iterative` documents compile to the FSM format by small deterministic compilers. Pure.
 *
 * PLACEHOLDER: the compilers are being written; until then a document is returned unchanged
 * (a paradigm file then fails validation as an unknown field).
 */
import type { Diagnostic } from '../diagnostics.js';

export interface ParadigmOutput {
  /** The FSM document (still raw: validation follows), absent when there are errors. */
  raw?: Record<string, unknown>;
  diagnostics: Diagnostic[];
}

/** A document without `paradigm:` (or with `paradigm: fsm`) is already an FSM. */
export function compileParadigm(raw: Record<string, unknown>): ParadigmOutput {
  return { raw, diagnostics: [] };
}
