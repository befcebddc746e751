/**
 * Validation of human states (`action_type: human`, fsm/human.ts): the question they need, the
 * fields that belong to them only, the answers nothing routes, and the deadline they should have.
 */
import { error, warning, type Diagnostic } from '../diagnostics.js';
import { humanAsk, isHumanState } from '../human.js';
import { routeFor, unroutedVerdicts } from '../routing.js';
import type { StateConfig } from '../schema.js';

type Path = Diagnostic['path'];

const HUMAN_ONLY = ['prompt', 'ask', 'options', 'schema', 'notify'] as const;
const NOT_FOR_HUMANS = ['action', 'evaluate', 'loop', 'retry', 'output_schema'] as const;

export function checkHumanState(path: Path, state: StateConfig, out: Diagnostic[]): void {
  if (!isHumanState(state)) {
    for (const key of HUMAN_ONLY)
      if (state[key] !== undefined)
        out.push(
          error(
            [...path, key],
            `${key}: is for human states (action_type: human)`,
            `add action_type: human, or remove ${key}:`,
          ),
        );
    return;
  }
  for (const key of NOT_FOR_HUMANS)
    if (state[key] !== undefined)
      out.push(
        error(
          [...path, key],
          `a human state asks a person; it has no ${key}:`,
          key === 'action' ? 'write the question as prompt: and remove action:' : `remove ${key}:`,
        ),
      );
  if (state.terminal)
    out.push(error([...path, 'terminal'], 'a human state cannot be terminal', 'route its answers to a terminal state'));
  if (state.prompt === undefined || state.prompt.trim() === '')
    out.push(error(path, 'a human state needs prompt: (the question)', 'add prompt: "Apply the plan?"'));
  const ask = humanAsk(state);
  if (ask === 'choice' && state.options === undefined)
    out.push(
      error([...path, 'ask'], 'ask: choice needs options:', 'add options: [ship, rework] and on_ship:, on_rework:'),
    );
  if (ask !== 'choice' && state.options !== undefined)
    out.push(
      error(
        [...path, 'options'],
        `options: is for ask: choice (this state asks ${ask})`,
        'add ask: choice, or remove options:',
      ),
    );
  if (ask !== 'json' && state.schema !== undefined)
    out.push(
      error(
        [...path, 'schema'],
        `schema: is for ask: json (this state asks ${ask})`,
        'add ask: json, or remove schema:',
      ),
    );
  checkHumanRoutes(path, state, out);
}

function checkHumanRoutes(path: Path, state: StateConfig, out: Diagnostic[]): void {
  const ask = humanAsk(state);
  if (state.next === undefined) {
    const needed = ask === 'approval' ? ['yes', 'no'] : ask === 'choice' ? (state.options ?? []) : ['yes'];
    const missing = unroutedVerdicts(state, needed);
    if (missing.length > 0)
      out.push(
        warning(
          path,
          `the answer${missing.length === 1 ? '' : 's'} ${missing.map((v) => `"${v}"`).join(', ')} of this human state ${missing.length === 1 ? 'has' : 'have'} no route: the run would end with "no valid transition"`,
          `add ${missing.map((v) => `on_${v}: <state>`).join(', ')}${ask === 'text' || ask === 'json' ? ' (or next:)' : ''}`,
        ),
      );
  }
  if (state.timeout === undefined) {
    out.push(
      warning(
        path,
        'a human state without timeout: waits for an answer as long as the loop runs',
        'add timeout: <seconds> (e.g. 14400 for 4 h) and on_timeout: <state> (default: the on_no route)',
      ),
    );
  } else if (routeFor(state, 'timeout') === undefined && routeFor(state, 'no') === undefined) {
    out.push(
      warning(
        [...path, 'timeout'],
        "nothing routes this human state's timeout (no on_timeout, no on_no): the run ends with an error at the deadline",
        'add on_timeout: <state>',
      ),
    );
  }
}
