/**
 * What every paradigm compiler is: a strict zod schema of its document (its own fields plus the
 * loop-level settings), help for its fields, checks zod cannot express, and the compile step
 * itself. `runCompiler` is the one path every paradigm goes through, so every paradigm reports
 * bad input the same way. Pure.
 */
import type { z } from 'zod';
import type { Diagnostic } from '../../diagnostics.js';
import { fieldDiagnostics, shapeKeysAt, type FieldHelp } from './fields.js';

type FsmDocument = Record<string, unknown>;

export interface ParadigmCompiler<Spec> {
  paradigm: string;
  /** The whole paradigm document: `paradigm:`, the paradigm's fields and the settings. Strict. */
  schema: z.ZodType<Spec>;
  /** Messages and fixes for the paradigm's own fields. */
  help: Record<string, FieldHelp>;
  /** Problems the schema cannot see (duplicates, collisions, a missing reference). */
  check?(spec: Spec, raw: Record<string, unknown>): Diagnostic[];
  /** The FSM document (raw: validation follows). Only called on a document without problems. */
  compile(spec: Spec, raw: Record<string, unknown>): FsmDocument;
}

export type CompileResult = { raw: FsmDocument; diagnostics: [] } | { raw?: undefined; diagnostics: Diagnostic[] };

export function runCompiler<Spec>(compiler: ParadigmCompiler<Spec>, raw: Record<string, unknown>): CompileResult {
  const parsed = compiler.schema.safeParse(raw);
  if (!parsed.success) {
    const rules = {
      paradigm: compiler.paradigm,
      help: compiler.help,
      knownKeys: (path: Diagnostic['path']) => shapeKeysAt(compiler.schema, path),
    };
    return { diagnostics: fieldDiagnostics(parsed.error.issues, raw, rules) };
  }
  const problems = compiler.check?.(parsed.data, raw) ?? [];
  if (problems.length) return { diagnostics: problems };
  return { raw: compiler.compile(parsed.data, raw), diagnostics: [] };
}
