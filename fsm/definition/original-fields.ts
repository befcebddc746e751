/**
 * little-loops' fields at load (fsm/original-fields.ts has their shapes): the spellings that mean
 * one of ours are folded into it, the original's constraints between fields are checked, and each
 * field that means nothing on ll-loop (or whose meaning is not enforced yet) gets a one-line note
 * saying so (docs/migrating.md has the reasons).
 */
import { error, note, warning, type Diagnostic } from '../diagnostics.js';
import { ACKNOWLEDGEMENTS, GUARD_VALUES, SESSION_MODES } from '../original-fields.js';
import type { LoopDefinition } from '../schema.js';
import { didYouMean } from '../suggest.js';
import { actionKind } from '../action.js';

/** Loop fields read by nothing here, and why. */
const LOOP_NOTES: Record<string, string> = {
  max_edge_revisits: "little-loops' cap on revisits of one transition; ll-loop's caps are max_iterations and max_steps",
  artifact_versioning: "a run's files are kept per run (.loops/.running/<run>) already",
  targets: "read by little-loops' harness-optimize tools, not by the runner",
  circuit: "little-loops' stall detector; use diff_stall/score_stall evaluators or max_iterations",
  host_guard: "little-loops' host memory guard; the worker's slots bound concurrency here",
  singleton:
    'not enforced yet: two runs of this loop may overlap; scope: locks still keep runs with overlapping scopes apart',
  pruning_profile: "little-loops' context-pruning profile of its own host integration",
};

/** State fields read by nothing here, and why. */
const STATE_NOTES: Record<string, string> = {
  parameters: "a fragment's parameters; on a state that is not expanded from a fragment they bind nothing",
  type: "little-loops' state kind; ll-loop runs the state's action as written",
  learning: "little-loops' learning-tests registry is not part of ll-loop",
  worktree: "not yet enforced: the state runs in the run's directory (parallel: isolation: worktree isolates children)",
  pruning_profile: "little-loops' context-pruning profile of its own host integration",
  throttle: "little-loops' tool-call throttle of its own host integration",
  append_to_messages: "little-loops' message log; use capture: to keep a state's output",
  output:
    "read by nothing, as in little-loops (which ignores it); a parent reads a child's captured values under the state's name",
  rate_limit_long_wait_ladder: "ll-loop's pauses double up to llm.rate_limit.max_backoff instead of a ladder",
};

type Path = Diagnostic['path'];

function given(value: unknown): boolean {
  return value !== undefined && value !== null;
}

/** `with_` is `with`; `model` is `llm.model`. In place; the diagnostics of those that cannot be folded. */
function foldState(path: Path, state: LoopDefinition['states'][string], out: Diagnostic[]): void {
  if (state.with_ !== undefined) {
    if (state.with !== undefined)
      out.push(error([...path, 'with_'], 'both with: and with_: are set', 'keep one: with_ is the spelling of with'));
    else state.with = state.with_;
    delete state.with_;
  }
  if (state.model !== undefined) {
    if (state.llm?.model !== undefined && state.llm.model !== state.model)
      out.push(
        error([...path, 'model'], `model: "${state.model}" and llm.model: "${state.llm.model}" disagree`, 'keep one'),
      );
    else state.llm = { ...state.llm, model: state.model };
    delete state.model;
  }
}

/** The original's constraints between a state's fields (its validator's messages). */
function checkState(path: Path, state: LoopDefinition['states'][string], out: Diagnostic[]): void {
  const routes = state as Record<string, unknown>;
  if (state.max_retries !== undefined && routes.on_retry_exhausted === undefined)
    out.push(
      error(
        [...path, 'max_retries'],
        'max_retries requires on_retry_exhausted',
        'add on_retry_exhausted: <state> (where the run goes when the re-entries are used up)',
      ),
    );
  if (state.retryable_exit_codes !== undefined && state.on_error === undefined)
    out.push(
      error(
        [...path, 'retryable_exit_codes'],
        'retryable_exit_codes requires on_error (the codes not listed route there)',
        'add on_error: <state>',
      ),
    );
  if (
    (state.prepatch_check === 'fail' || state.prepatch_check === 'warn') &&
    (state.action === undefined || actionKind(state) !== 'shell')
  )
    out.push(
      warning(
        [...path, 'prepatch_check'],
        "prepatch_check runs the state's shell action again before the patch; this state has none, so no check runs",
        'put prepatch_check: on the state that runs the tests',
      ),
    );
  if (state.max_rate_limit_retries !== undefined && routes.on_rate_limit_exhausted === undefined)
    out.push(
      error(
        [...path, 'max_rate_limit_retries'],
        'max_rate_limit_retries requires on_rate_limit_exhausted',
        'add on_rate_limit_exhausted: <state>',
      ),
    );
}

/** A guard word outside its set: little-loops warns and runs no guard; so does ll-loop. */
function guardWarnings(path: Path, fields: Record<string, unknown>, out: Diagnostic[]): void {
  for (const [key, words] of Object.entries(GUARD_VALUES)) {
    const value = fields[key];
    if (typeof value === 'string' && !(words as readonly string[]).includes(value))
      out.push(
        warning(
          [...path, key],
          `${key}: "${value}" is not one of ${words.join(', ')}; no guard applies`,
          `set ${key}: to one of ${words.join(', ')}`,
        ),
      );
  }
}

/** A `session_mode:` other than fresh or continue: little-loops' two; any other runs as fresh. */
function sessionModeWarning(path: Path, value: unknown, out: Diagnostic[]): void {
  if (typeof value !== 'string' || (SESSION_MODES as readonly string[]).includes(value)) return;
  out.push(
    warning(
      [...path, 'session_mode'],
      `session_mode: "${value}" is not one of ${SESSION_MODES.join(', ')}; the state runs as fresh`,
      `set session_mode: to ${SESSION_MODES.join(' or ')}`,
    ),
  );
}

/** Folds the original's spellings into ours and notes the fields that mean nothing here. */
export function originalFields(def: LoopDefinition): Diagnostic[] {
  const out: Diagnostic[] = [];
  const loop = def as Record<string, unknown>;
  for (const [key, why] of Object.entries(LOOP_NOTES)) {
    if (given(loop[key])) out.push(note([key], `${key}: accepted: ${why}`));
  }
  guardWarnings([], loop, out);
  sessionModeWarning([], loop['session_mode'], out);
  // capture_reachability_ok is read: it silences the warnings of captures (capture-order.ts, template-checks.ts).
  const acks = ACKNOWLEDGEMENTS.filter((key) => key !== 'capture_reachability_ok' && given(loop[key]));
  if (acks.length)
    out.push(
      note(
        [acks[0]!],
        `${acks.join(', ')}: accepted; they acknowledge little-loops' validator warnings, which ll-loop does not give`,
      ),
    );
  for (const key of ['on_max_steps', 'on_max_iterations'] as const) {
    const target = def[key];
    if (target === undefined || target in def.states) continue;
    const names = Object.keys(def.states);
    out.push(
      error(
        [key],
        `${key} goes to "${target}", which is not a state${didYouMean(target, names)}`,
        `define states.${target} or set ${key}: to one of ${names.join(', ')}`,
      ),
    );
  }
  // One note per field however many states use it, at its first use.
  const noted = new Map<string, { path: Path; states: string[] }>();
  for (const [name, state] of Object.entries(def.states)) {
    const path: Path = ['states', name];
    foldState(path, state, out);
    checkState(path, state, out);
    const stall = state.evaluate;
    if (
      (stall?.type === 'score_stall' || stall?.type === 'open_question_stall') &&
      stall.source === undefined &&
      stall.history_file === undefined
    ) {
      const file = stall.type === 'score_stall' ? '.score_history' : '.open_questions_history';
      out.push(
        note(
          [...path, 'evaluate'],
          `${stall.type} without source: or history_file: judges \${context.run_dir}/${file} when the run's context has run_dir, else the action's output`,
        ),
      );
    }
    if (stall?.type === 'output_numeric' && stall.path !== undefined) {
      out.push(
        note(
          [...path, 'evaluate', 'path'],
          'path: on output_numeric: accepted and read by nothing, as in little-loops; key: reads a <key>=<number> field',
        ),
      );
    }
    const fields = state as Record<string, unknown>;
    guardWarnings(path, fields, out);
    sessionModeWarning(path, fields['session_mode'], out);
    for (const key of Object.keys(STATE_NOTES)) {
      if (!given(fields[key])) continue;
      const seen = noted.get(key);
      if (seen) seen.states.push(name);
      else noted.set(key, { path: [...path, key], states: [name] });
    }
  }
  for (const [key, { path, states }] of noted) {
    const where = states.length > 1 ? ` (states ${states.join(', ')})` : '';
    out.push(note(path, `${key}${where}: accepted: ${STATE_NOTES[key]}`));
  }
  return out;
}
