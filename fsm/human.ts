/**
 * Human states (`action_type: human`, alias `human_approval`): a question a person answers. What
 * kinds of answer each `ask:` takes, which verdict an answer gives and what is captured of it.
 * Shared by the core (fsm/run/on-human.ts), the workflow's update validator and the CLI, so all
 * three judge an answer alike. Pure.
 */
import { routeFor } from './routing.js';
import type { HumanAsk, StateConfig } from './schema.js';
import type { VerdictSet } from './evaluators/verdicts.js';

/** True for a state that asks a person instead of running an action. */
export function isHumanState(state: Pick<StateConfig, 'action_type'>): boolean {
  return state.action_type === 'human' || state.action_type === 'human_approval';
}

/** The state's `ask:`, defaulted. */
export function humanAsk(state: Pick<StateConfig, 'ask'>): HumanAsk {
  return state.ask ?? 'approval';
}

/** The verdict of a wait that reached its deadline; it routes `on_timeout`, else the `no` route. */
export const HUMAN_TIMEOUT_VERDICT = 'timeout';

/** What a person can answer (the `answerHuman` update's argument, without who answered). */
export type HumanReply =
  | { kind: 'yes' }
  | { kind: 'no' }
  | { kind: 'edit'; text: string }
  | { kind: 'choice'; option: string }
  | { kind: 'text'; text: string }
  | { kind: 'json'; value: unknown };

/** The verdicts a human state can give: its answers' and `timeout`. */
export function humanVerdicts(state: StateConfig): VerdictSet {
  const ask = humanAsk(state);
  if (ask === 'approval') return { verdicts: ['yes', 'no', 'edit', HUMAN_TIMEOUT_VERDICT], pass: 'yes', fail: 'no' };
  if (ask === 'choice') {
    const options = state.options ?? [];
    const first = options[0] ?? 'yes';
    return { verdicts: [...options, HUMAN_TIMEOUT_VERDICT], pass: first, fail: options[1] ?? first };
  }
  // A text or JSON answer is one verdict, `yes` (answered); only the deadline gives another.
  return { verdicts: ['yes', HUMAN_TIMEOUT_VERDICT], pass: 'yes', fail: HUMAN_TIMEOUT_VERDICT };
}

/** The verdict an answer gives. */
export function replyVerdict(reply: HumanReply): string {
  if (reply.kind === 'choice') return reply.option;
  if (reply.kind === 'text' || reply.kind === 'json') return 'yes';
  return reply.kind;
}

/** `${captured.<state>.answer}`: the approval (yes, no, edit), the option, the text or the JSON value. */
export function replyAnswer(reply: HumanReply): unknown {
  switch (reply.kind) {
    case 'choice':
      return reply.option;
    case 'text':
      return reply.text;
    case 'json':
      return reply.value;
    default:
      return reply.kind;
  }
}

/** The kinds of answer each `ask:` takes, as the answering command spells them. */
function answerForms(state: StateConfig): string {
  switch (humanAsk(state)) {
    case 'approval':
      return routeFor(state, 'edit') === undefined ? 'yes | no' : 'yes | no | --edit TEXT';
    case 'choice':
      return `--choice ${(state.options ?? []).join('|')}`;
    case 'text':
      return '--text TEXT';
    case 'json':
      return "--json '{…}'";
  }
}

/**
 * Why `reply` does not fit the question of `state`, or undefined when it does. The shape only:
 * a JSON answer's schema is checked where a JSON Schema validator runs (the client).
 */
export function replyMismatch(state: StateConfig, reply: HumanReply): string | undefined {
  const ask = humanAsk(state);
  const forms = answerForms(state);
  const fits =
    ask === 'approval'
      ? reply.kind === 'yes' || reply.kind === 'no' || reply.kind === 'edit'
      : ask === 'choice'
        ? reply.kind === 'choice'
        : reply.kind === ask;
  if (!fits)
    return `the question asks for ${describeAsk(ask)}, not ${reply.kind === 'json' ? 'JSON' : `"${reply.kind}"`}: answer ${forms}`;
  if (reply.kind === 'edit' && routeFor(state, 'edit') === undefined)
    return 'this approval takes no edits (its state has no on_edit route): answer yes or no';
  if (reply.kind === 'edit' && reply.text.length === 0) return 'an edit needs its text: --edit TEXT';
  if (reply.kind === 'choice' && !(state.options ?? []).includes(reply.option))
    return `"${reply.option}" is not an option: answer ${forms}`;
  if (reply.kind === 'json' && reply.value === undefined) return 'a JSON answer needs a value';
  return undefined;
}

function describeAsk(ask: HumanAsk): string {
  return ask === 'approval' ? 'an approval' : ask === 'choice' ? 'a choice' : ask === 'json' ? 'JSON' : 'a text';
}

/** The command that answers run `runId` waiting in `state`. */
export function answerCommand(runId: string, state: StateConfig): string {
  return `ll-loop answer ${runId} ${answerForms(state)}`;
}

const JSON_TYPES = ['object', 'array', 'string', 'number', 'integer', 'boolean', 'null'] as const;

function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/**
 * The shape check of a JSON answer where no JSON Schema validator runs (the workflow's sandbox):
 * the schema's top-level `type` and `required` keys. The full check is ajv's, in the client.
 */
export function jsonTypeMismatch(schema: Record<string, unknown> | undefined, value: unknown): string | undefined {
  if (schema === undefined) return undefined;
  const declared = schema.type;
  const types = (Array.isArray(declared) ? declared : declared === undefined ? [] : [declared]).filter(
    (t): t is string => typeof t === 'string' && (JSON_TYPES as readonly string[]).includes(t),
  );
  const actual = jsonTypeOf(value);
  if (types.length > 0 && !types.includes(actual) && !(actual === 'integer' && types.includes('number')))
    return `the answer must be JSON of type ${types.join(' or ')}, not ${actual}`;
  if (actual === 'object' && Array.isArray(schema.required)) {
    const missing = schema.required.filter((k) => typeof k === 'string' && !(k in (value as object)));
    if (missing.length > 0)
      return `the answer misses required ${missing.length === 1 ? 'key' : 'keys'} ${missing.join(', ')}`;
  }
  return undefined;
}

/**
 * How a run's last wait for a person ended, for an answer that came too late: `run <id> no longer
 * waits in state "<s>": nobody answered by its deadline (<time>)` (answered: by whom and when, the
 * first answer winning; steered: where to, by whom).
 */
export function humanEndedText(runId: string, ended: HumanEnded): string {
  const at = new Date(ended.at_ms).toISOString();
  const how =
    ended.how === 'timeout'
      ? `nobody answered by its deadline (${at})`
      : ended.how === 'steered'
        ? `it was steered to "${ended.to ?? '?'}" by ${ended.by ?? '?'} at ${at}`
        : `it was already answered by ${ended.by ?? '?'} at ${at} (the first answer wins)`;
  return `run ${runId} no longer waits in state "${ended.state}": ${how}`;
}

/** How a wait for a person ended: answered (by whom), its deadline, or a steer (by whom, to where). */
export interface HumanEnded {
  state: string;
  how: 'answered' | 'timeout' | 'steered';
  by?: string;
  to?: string;
  at_ms: number;
}
