/**
 * Authoring paradigms (seed 000 "Authoring Paradigms", seed 002 for `iterative`): a document with
 * `paradigm: goal | convergence | invariants | imperative | iterative` is compiled to the FSM
 * format by a small deterministic compiler (one file each); the result is validated like any
 * loop file. Every problem is a diagnostic with the path of the field at fault. Pure.
 */
import { error, type Diagnostic } from '../../diagnostics.js';
import { didYouMean } from '../../suggest.js';
import { runCompiler, type ParadigmCompiler } from './compiler.js';
import { convergenceCompiler } from './convergence.js';
import { goalCompiler } from './goal.js';
import { imperativeCompiler } from './imperative.js';
import { invariantsCompiler } from './invariants.js';
import { iterativeCompiler } from './iterative.js';

export interface ParadigmOutput {
  /** The FSM document (still raw: validation follows), absent when there are errors. */
  raw?: Record<string, unknown>;
  diagnostics: Diagnostic[];
}

const COMPILERS: Record<string, ParadigmCompiler<never>> = Object.fromEntries(
  [goalCompiler, convergenceCompiler, invariantsCompiler, imperativeCompiler, iterativeCompiler].map((c) => [
    c.paradigm,
    c as unknown as ParadigmCompiler<never>,
  ]),
);

/** `fsm` is the native format: nothing to compile. */
const PARADIGMS = [...Object.keys(COMPILERS), 'fsm'];

/** A document without `paradigm:` is already an FSM; `paradigm: fsm` is too, once the key is gone. */
export function compileParadigm(raw: Record<string, unknown>): ParadigmOutput {
  if (!Object.hasOwn(raw, 'paradigm')) return { raw, diagnostics: [] };
  const { paradigm, ...rest } = raw;
  if (paradigm === 'fsm') return { raw: rest, diagnostics: [] };
  const compiler = typeof paradigm === 'string' ? COMPILERS[paradigm] : undefined;
  if (compiler) return runCompiler(compiler, raw);
  const shown =
    typeof paradigm === 'string'
      ? `"${paradigm}"${didYouMean(paradigm, PARADIGMS)}`
      : (JSON.stringify(paradigm) ?? String(paradigm));
  return {
    diagnostics: [
      error(
        ['paradigm'],
        `unknown paradigm ${shown}; known paradigms: ${PARADIGMS.join(', ')}`,
        'write paradigm: goal, convergence, invariants, imperative, iterative or fsm (see docs/paradigms.md)',
      ),
    ],
  };
}
