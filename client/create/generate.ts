/**
 * Answers → paradigm document → compiled FSM → FSM YAML. The FSM is what is written to
 * `.loops/<name>.yaml` (seed 001: loops in .loops/ are FSM YAML); the paradigm document is kept
 * for `--paradigm` output and for messages.
 */
import { formatDiagnostic, hasErrors, type Diagnostic } from '../../fsm/diagnostics.js';
import { compileParadigm } from '../../fsm/definition/paradigms/index.js';
import { unroutedVerdicts } from '../../fsm/routing.js';
import { validateLoop } from '../../fsm/definition/validate.js';
import { stateVerdicts } from '../../fsm/verdicts.js';
import { CliError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { toFsmYaml } from '../../loader/fsm-yaml.js';
import { actionTypeFor } from './actions.js';
import { addApproval } from './approval.js';
import type { Answers } from './answers.js';
import { eachLoop } from './each.js';
import { paradigmDocument, type ParadigmDocument } from './paradigm.js';

export interface GeneratedLoop {
  paradigm: Record<string, unknown>;
  fsm: Record<string, unknown>;
  yaml: string;
}

/** The answers make a paradigm document its compiler rejects (e.g. an empty command). */
export class GenerationError extends CliError {
  override readonly name = 'GenerationError';
  constructor(
    readonly diagnostics: Diagnostic[],
    paradigm: string,
  ) {
    super(
      `the answers do not make a valid ${paradigm} loop:\n${diagnostics.map((d) => `  ${formatDiagnostic(d)}`).join('\n')}`,
      'change the answers named above (paths are fields of the paradigm document; see docs/create.md)',
      EXIT.usage,
    );
  }
}

type States = Record<string, Record<string, unknown>>;

/**
 * Give each fix/step state the `action_type` its answer asked for, when the loop format would
 * infer another kind from the text (a prompt that does not start with `/` would otherwise run
 * in bash). `action_type` goes right after `action`, where a reader looks for it.
 */
function applyChosenKinds(
  fsm: Record<string, unknown>,
  chosen: ParadigmDocument['chosenKinds'],
  paradigm: string,
): void {
  const states = fsm.states as States | undefined;
  for (const { state, action } of chosen) {
    const config = states?.[state];
    // The compilers' state names are seed 000's contract; a mismatch is a bug, not bad input.
    if (!config || config.action !== action.text) {
      throw new Error(
        `the ${paradigm} compiler did not produce state "${state}" with action ${JSON.stringify(action.text)} (seed 000's shape); ll-loop create cannot mark its action type`,
      );
    }
    const type = actionTypeFor(action);
    if (type === undefined || config.action_type !== undefined) continue;
    const { action: text, ...rest } = config;
    states![state] = { action: text, action_type: type, ...rest };
  }
}

/**
 * A check written as a `/slash` command or prompt is judged by the LLM, which may also answer
 * `blocked` or `partial` (fsm/evaluators/verdicts.ts); seed 000's compilers route only success and
 * failure, and an unrouted verdict would end the run with an error. Such verdicts take the
 * failure route: the check did not pass. Added right after it, where a reader looks.
 */
function routeEveryVerdict(fsm: Record<string, unknown>): void {
  const def = validateLoop(structuredClone(fsm)).definition;
  const states = fsm.states as States | undefined;
  if (!def || !states) return;
  for (const [name, state] of Object.entries(def.states)) {
    const set = stateVerdicts(def, state);
    const failure = state.on_failure ?? state.on_no;
    if (!set || failure === undefined || state.route) continue;
    const missing = unroutedVerdicts(state, set.verdicts);
    if (!missing.length) continue;
    const raw = states[name]!;
    const entries = Object.entries(raw);
    const at = entries.findIndex(([key]) => key === 'on_failure' || key === 'on_no') + 1;
    entries.splice(at, 0, ...missing.map((v) => [`on_${v}`, failure] as [string, unknown]));
    states[name] = Object.fromEntries(entries);
  }
}

export function generateLoop(answers: Answers, cwd = '.'): GeneratedLoop {
  if (answers.kind === 'each') {
    const fsm = eachLoop(answers, cwd);
    return { paradigm: fsm, fsm, yaml: toFsmYaml(fsm) };
  }
  const { doc, chosenKinds } = paradigmDocument(answers);
  const paradigm = String(doc.paradigm);
  const compiled = compileParadigm(structuredClone(doc));
  if (!compiled.raw || hasErrors(compiled.diagnostics)) throw new GenerationError(compiled.diagnostics, paradigm);
  if (compiled.raw.paradigm !== undefined) {
    throw new Error(`compileParadigm returned the ${paradigm} document uncompiled (fsm/definition/paradigms/index.ts)`);
  }
  const fsm = structuredClone(compiled.raw);
  applyChosenKinds(fsm, chosenKinds, paradigm);
  routeEveryVerdict(fsm);
  if (answers.approval) addApproval(fsm, answers.approval);
  return { paradigm: doc, fsm, yaml: toFsmYaml(fsm) };
}
