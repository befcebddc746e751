/** One-line descriptions of a state's parts (action, evaluator, exits) for `ll-loop show`. */
import { humanAsk, isHumanState } from '../../fsm/human.js';
import { actionKind } from '../../fsm/action.js';
import { effectiveEvaluator } from '../../fsm/evaluate-state.js';
import { mergedLlm, promptProviderRequest, providerRequest, type ProviderChoice } from '../../fsm/llm-provider.js';
import { oneLine } from '../../fsm/format.js';
import type { EvaluateConfig, LoopDefinition, StateConfig } from '../../fsm/schema.js';
import { fanOutText, type Exit } from './graph.js';

/** Shown where a state has nothing of that kind (no action, no evaluation). */
const NONE = '—';

/** Names and labels as one printable line: control characters (newlines, ESC) become spaces. */
export function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');
}

/** What a state does, for the KIND column: a child loop, an end, a shell command or a prompt. */
export function kindText(state: StateConfig): string {
  if (state.terminal) return 'terminal';
  if (typeof state.loop === 'string') return 'sub-loop';
  if (isHumanState(state)) return `human (${humanAsk(state)})`;
  if (state.parallel !== undefined) return 'parallel';
  if (state.action === undefined) return NONE;
  return actionKind(state);
}

/** How a sub-loop state feeds its child: `with: a, b`, passthrough, or isolated. */
function childInput(state: StateConfig): string {
  if (state.context_passthrough) return ' (context passthrough)';
  const keys = Object.keys(state.with ?? {});
  return keys.length ? ` (with ${keys.join(', ')})` : '';
}

/** The action (or the child loop), flattened to one line of at most `max` characters; a prompt says who runs it when the loop names a provider or model. */
export function actionText(state: StateConfig, max: number, def?: LoopDefinition): string {
  if (typeof state.loop === 'string') return oneLine(printable(`${state.loop}${childInput(state)}`), max);
  if (isHumanState(state)) return oneLine(printable(`asks: ${state.prompt ?? ''}`), max);
  const fanOut = fanOutText(state);
  if (fanOut !== undefined) return oneLine(printable(fanOut), max);
  if (state.action === undefined) return NONE;
  const runner =
    def === undefined || actionKind(state) !== 'prompt'
      ? undefined
      : runnerText(promptProviderRequest(def, state), state.llm?.model);
  return oneLine(printable(runner === undefined ? state.action : `[${runner}] ${state.action}`), max);
}

/**
 * Who answers, when the loop says: `anthropic claude-sonnet-4-5`, `host CLI sonnet`, or undefined
 * for the host CLI with its own default model (nothing configured, nothing to show).
 */
function runnerText(choice: ProviderChoice, model: string | undefined): string | undefined {
  if (choice !== undefined && 'invalid' in choice) return `llm: ${choice.invalid}`;
  if (choice !== undefined) return `${choice.provider} ${choice.model}`;
  return model === undefined ? undefined : `host CLI ${model}`;
}

function value(v: unknown): string {
  return typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v));
}

/** Comparison operators as the symbols people read fastest. */
const OPERATOR: Record<string, string> = { eq: '=', ne: '≠', lt: '<', le: '≤', gt: '>', ge: '≥' };

/**
 * One evaluator as a short phrase. A comparison reads `<what> <op> <target>`, where `<what>` is
 * the `source` when there is one; other evaluators name their source at the end (`of …`).
 */
function evaluatorDetail(config: EvaluateConfig): string {
  const source = 'source' in config ? config.source : undefined;
  const of = source === undefined ? '' : ` of ${source}`;
  switch (config.type) {
    case 'output_numeric':
      return `output_numeric ${source === undefined ? '' : `${source} `}${OPERATOR[config.operator]} ${value(config.target)}`;
    case 'output_json':
      return `output_json ${config.path}${config.target === undefined ? '' : ` ${OPERATOR[config.operator]} ${value(config.target)}`}${of}`;
    case 'output_contains':
      return `output_contains ${config.negate ? 'not ' : ''}${JSON.stringify(config.pattern)}${of}`;
    case 'convergence': {
      const target = config.target ?? config.toward;
      const tolerance = config.tolerance === 0 ? '' : ` ±${value(config.tolerance)}`;
      return `convergence ${config.direction === 'maximize' ? 'up' : 'down'}${target === undefined ? '' : ` to ${value(target)}`}${tolerance}${of}`;
    }
    case 'llm_structured':
      return (config.min_confidence === 0.5 ? 'llm_structured' : `llm_structured ≥${config.min_confidence}`) + of;
    case 'diff_stall':
      return `diff_stall ${config.scope?.join(' ') ?? 'repo'}${config.max_stall === 1 ? '' : ` max_stall ${config.max_stall}`}`;
    default:
      return config.type + of;
  }
}

/**
 * How the state's outcome is judged: the explicit or default evaluator, `—` when nothing is
 * evaluated (terminal and `next:` states), the child's outcome for a sub-loop; plus author retries.
 */
export function evaluatorText(def: LoopDefinition, state: StateConfig): string {
  let text: string;
  if (state.terminal || state.next !== undefined) text = NONE;
  else if (typeof state.loop === 'string') text = 'child loop result';
  else if (isHumanState(state))
    text = `a person's answer${state.timeout === undefined ? '' : ` (timeout ${state.timeout}s)`}`;
  else if (state.parallel !== undefined) text = 'join: all (yes), some (partial), none (no)';
  else {
    const config = effectiveEvaluator(def, state);
    text = evaluatorDetail(config);
    const runner =
      config.type === 'llm_structured'
        ? runnerText(providerRequest(def, config), mergedLlm(def, config).model)
        : undefined;
    if (runner !== undefined) text += ` by ${runner}`;
  }
  const attempts = state.retry?.attempts ?? 1;
  return printable(attempts > 1 ? `${text}, ${attempts} attempts` : text);
}

/**
 * Where an exit goes, as text: a state, the same state again (`$current`), or a template (chosen
 * at run time; `brief` leaves out the words saying so, for the narrow table).
 */
export function targetText(exit: Exit, brief = false): string {
  if (exit.target.kind === 'dynamic')
    return brief ? printable(exit.target.template) : `${printable(exit.target.template)} (dynamic)`;
  return exit.target.viaCurrent ? `${printable(exit.target.name)} ($current)` : printable(exit.target.name);
}

/** `yes, no` — the labels of one exit. */
export function labelsText(exit: Exit): string {
  return printable(exit.labels.join(', '));
}
