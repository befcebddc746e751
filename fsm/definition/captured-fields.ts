/**
 * The field a `${captured.x.<field>}` names: what an action's capture has (`output`, `stderr`,
 * `exit_code`, `duration_ms`, `json`). A misspelt one (`${captured.n.outptu}`) is undefined every
 * time the state runs, so validation warns with the near name. Checked where every state
 * capturing `x` is an action (a human state's answer, a join and a child's values have fields of
 * their own). A warning, as the run's error is one the state's routes may take. Pure.
 */
import { warning, type Diagnostic } from '../diagnostics.js';
import { isHumanState } from '../human.js';
import type { LoopDefinition } from '../schema.js';
import { closest } from '../suggest.js';
import { namesCapturedBy, requiredCapturedRefs } from './template-checks.js';

/** The fields of an action's captured value (fsm/types.ts CapturedValue). */
const ACTION_CAPTURE_FIELDS = ['output', 'stderr', 'exit_code', 'duration_ms', 'json'] as const;

/** The names only action states capture. */
function actionCaptures(def: LoopDefinition): Set<string> {
  const plain = new Set<string>();
  const other = new Set<string>();
  for (const [name, state] of Object.entries(def.states)) {
    const isAction =
      state.action !== undefined && state.loop === undefined && state.parallel === undefined && !isHumanState(state);
    for (const captured of namesCapturedBy(def, name, state)) (isAction ? plain : other).add(captured);
  }
  return new Set([...plain].filter((name) => !other.has(name)));
}

export function checkCapturedFields(def: LoopDefinition, out: Diagnostic[]): void {
  const actions = actionCaptures(def);
  const fields: readonly string[] = ACTION_CAPTURE_FIELDS;
  for (const { path, ref, name } of requiredCapturedRefs(def)) {
    const field = ref.path[1];
    if (!actions.has(name) || field === undefined || fields.includes(field)) continue;
    const near = closest(field, fields);
    out.push(
      warning(
        path,
        `${ref.raw}: a capture has no field "${field}"${near === undefined ? '' : ` (did you mean "${near}"?)`}; it has ${fields.join(', ')}, so this is undefined when the state runs`,
        near === undefined
          ? `use one of ${fields.join(', ')}`
          : `write \${captured.${[name, near, ...ref.path.slice(2)].join('.')}}`,
      ),
    );
  }
}
