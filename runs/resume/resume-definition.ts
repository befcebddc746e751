/**
 * The definition a resumed run continues with: the loop file read again (so a fixed file is
 * picked up), with the context the stopped run had and `--context` on top. When the file is gone,
 * the definition the run started with, from its workflow input.
 */
import { contextTypeProblems } from '../../fsm/definition/parameters.js';
import { existsSync } from 'node:fs';
import { resolveContext } from '../../fsm/definition/context.js';
import type { LoopDefinition } from '../../fsm/schema.js';
import type { LoopWorkflowInput } from '../../workflows/definitions.js';
import type { Diagnostic } from '../../fsm/diagnostics.js';
import { CliError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { loadLoopFile, resolveLoopFile } from '../../loader/load.js';
import { checkContextKeys, usedContextKeys } from '../../loader/context-keys.js';
import { dirname } from 'node:path';

export interface ResumeDefinitionRequest {
  runId: string;
  /** The loop file from the run's memo. */
  file: string | undefined;
  /** What the stopped run started with (its workflow input). */
  previous: LoopWorkflowInput | undefined;
  /** `--context KEY=VALUE`, already split. */
  context: Record<string, string>;
  /** Refuse `context` keys the loop does not use (not `--context-allow-unknown`). */
  refuseUnusedContext?: boolean;
  maxIterations?: number;
  /** Told why the loop file is no longer valid, before the error is thrown. */
  onInvalid?: (diagnostics: Diagnostic[]) => void;
}

/** Neither the loop file nor the run's own input is available. */
class NoDefinitionError extends CliError {
  override readonly name = 'NoDefinitionError';
  constructor(runId: string, file: string | undefined) {
    super(
      `cannot resume ${runId}: its loop file ${file ?? '(none recorded)'} is gone and its start input could not be read`,
      'start a new run with ll-loop run <loop>',
      EXIT.usage,
    );
  }
}

/** A literal string for the loader: `${` written as `$${`, so a resolved value stays as it was. */
function literal(value: string): string {
  // A function, not a string: in a replacement string `$$` would mean one `$`.
  return value.replaceAll('${', () => '$${');
}

/** The stopped run's string context values, as literals (they were resolved when it started). */
function previousContext(previous: LoopWorkflowInput | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(previous?.definition.context ?? {}))
    if (typeof value === 'string') out[key] = literal(value);
  return out;
}

/**
 * The definition for the resumed run, and the file it came from (the memo file, even when the
 * run's own definition had to be used).
 * @throws CliError when the file is there but no longer valid (its diagnostics told `onInvalid` first)
 */
export function definitionForResume(req: ResumeDefinitionRequest): {
  definition: LoopDefinition;
  file: string;
  fromFile: boolean;
} {
  const context = { ...previousContext(req.previous), ...req.context };
  if (req.file !== undefined && existsSync(req.file)) {
    // The stopped run's own keys are accepted as they are: only keys new on this command line are checked.
    const checked = {
      refuseUnusedContext: req.refuseUnusedContext === true,
      acceptedContext: Object.keys(previousContext(req.previous)),
    };
    const loaded = loadLoopFile(req.file, {
      context,
      ...checked,
      refuseUnsetContext: true,
      ...(req.maxIterations === undefined ? {} : { maxIterations: req.maxIterations }),
    });
    if (!loaded.definition) {
      req.onInvalid?.(loaded.diagnostics);
      const errors = loaded.diagnostics.filter((d) => d.severity === 'error');
      if (errors.length > 0 && errors.every((d) => d.given === 'context'))
        throw new CliError(
          `the --context values are not valid for ${req.file}; nothing was resumed`,
          'give each parameter a value of its type (ll-loop show lists them), then resume again',
          EXIT.usage,
        );
      throw new CliError(
        `${req.file} is not a valid loop any more; nothing was resumed`,
        'fix the errors above, then resume again',
        EXIT.usage,
      );
    }
    return { definition: loaded.definition, file: req.file, fromFile: true };
  }
  if (!req.previous) throw new NoDefinitionError(req.runId, req.file);
  const old = req.previous.definition;
  const [typed] = contextTypeProblems(old, req.context);
  if (typed) throw new CliError(`--context: ${typed.message}; nothing was resumed`, typed.fix, EXIT.usage);
  if (req.refuseUnusedContext) {
    const fresh = Object.keys(req.context).filter((k) => !Object.hasOwn(old.context, k));
    checkContextKeys(
      fresh,
      usedContextKeys(old as unknown as Record<string, unknown>, dirname(req.file ?? '.'), resolveLoopFile),
      old.name,
    );
  }
  const definition: LoopDefinition = {
    ...old,
    context: resolveContext({
      ...previousContext(req.previous),
      ...Object.fromEntries(Object.entries(old.context).filter(([, v]) => typeof v !== 'string')),
      ...req.context,
    }),
    ...(req.maxIterations === undefined ? {} : { max_iterations: req.maxIterations }),
  };
  return { definition, file: req.file ?? '', fromFile: false };
}
