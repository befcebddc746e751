/**
 * The drafting loop of `ll-loop create --describe`: ask for a loop, check the answer
 * (describe-check.ts), and while it has problems ask again with the exact messages, at most
 * {@link MAX_TRIES} asks in all. Pure apart from what it is given: `ask` (the host CLI or an API
 * provider; a scripted function in unit tests) and `check`.
 *
 * Invariant: `ok` is only ever true for an answer whose check found no problem. An `ask` that
 * throws a {@link DraftStopped} (timeout, refusal, a provider that fails) ends the drafting at
 * once with what was spent so far: asking again would not help.
 */
import type { LlmUsage } from '../../fsm/types.js';
import type { LoopDefinition } from '../../fsm/schema.js';
import { extractYaml, type DraftCheck } from './describe-check.js';
import { draftPrompt, retryPrompt } from './describe-prompt.js';

/** Asks for a loop draft, at most this many times (the first ask and two corrections). */
export const MAX_TRIES = 3;

/** One answer of the LLM: its text and what it cost, when the LLM said. */
interface AskAnswer {
  text: string;
  usage?: LlmUsage;
}

export type Ask = (prompt: string) => Promise<AskAnswer>;

/** Why drafting stopped before a valid loop: no answer in time, a refusal, or a failed call. */
export type StopReason = 'timeout' | 'refusal' | 'failed';

/** Thrown by an {@link Ask} that cannot answer; ends the drafting (nothing is saved). */
export class DraftStopped extends Error {
  override readonly name = 'DraftStopped';
  constructor(
    readonly reason: StopReason,
    message: string,
    readonly usage?: LlmUsage,
  ) {
    super(message);
  }
}

/** What drafting spent, summed over the asks. */
export interface DraftCost {
  asks: number;
  input_tokens?: number;
  output_tokens?: number;
  cost_usd?: number;
}

export type DraftResult =
  | { ok: true; yaml: string; definition: LoopDefinition; tries: number; cost: DraftCost }
  | { ok: false; problems: string[]; tries: number; cost: DraftCost; stopped?: DraftStopped };

function add(cost: DraftCost, usage: LlmUsage | undefined): void {
  if (usage === undefined) return;
  for (const key of ['input_tokens', 'output_tokens', 'cost_usd'] as const) {
    const v = usage[key];
    if (typeof v === 'number') cost[key] = (cost[key] ?? 0) + v;
  }
}

export interface DraftOptions {
  description: string;
  ask: Ask;
  /** Checks an answer (the whole text: the YAML is taken out of it). */
  check: (answer: string) => DraftCheck;
  maxTries?: number;
  /** Told before each ask after the first, with the problems of the one before. */
  onRetry?: (attempt: number, problems: readonly string[]) => void;
}

export async function draftLoop(o: DraftOptions): Promise<DraftResult> {
  const maxTries = o.maxTries ?? MAX_TRIES;
  const cost: DraftCost = { asks: 0 };
  let prompt = draftPrompt(o.description);
  let problems: string[] = [];
  for (let attempt = 1; attempt <= maxTries; attempt += 1) {
    if (attempt > 1) o.onRetry?.(attempt, problems);
    let answer: AskAnswer;
    cost.asks += 1;
    try {
      answer = await o.ask(prompt);
    } catch (e) {
      if (!(e instanceof DraftStopped)) throw e;
      add(cost, e.usage);
      return { ok: false, problems: [e.message], tries: attempt, cost, stopped: e };
    }
    add(cost, answer.usage);
    const checked = o.check(answer.text);
    if (checked.problems.length === 0 && checked.definition !== undefined)
      return { ok: true, yaml: extractYaml(answer.text), definition: checked.definition, tries: attempt, cost };
    problems = checked.problems;
    prompt = retryPrompt(o.description, answer.text, problems);
  }
  return { ok: false, problems, tries: maxTries, cost };
}

/** "3 asks, 1234 input + 567 output tokens, $0.0123" — what was stated; tokens when no cost. */
export function costText(cost: DraftCost): string {
  const parts = [`${cost.asks} ask${cost.asks === 1 ? '' : 's'}`];
  if (cost.input_tokens !== undefined || cost.output_tokens !== undefined)
    parts.push(`${cost.input_tokens ?? 0} input + ${cost.output_tokens ?? 0} output tokens`);
  if (cost.cost_usd !== undefined) parts.push(`$${cost.cost_usd.toFixed(4)}`);
  else parts.push('cost not reported');
  return parts.join(', ');
}
