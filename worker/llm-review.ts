/**
 * `ll-loop review --llm`: an LLM's review of a loop, asked of the provider an LLM evaluation of the
 * loop would use (worker/llm-ask.ts). The answer is JSON findings, checked here; a timeout, a
 * refusal or an answer that is not findings is an error naming the provider and why.
 */
import { askLlm } from './llm-ask.js';
import type { Finding } from '../fsm/tools/review/finding.js';
import type { LlmOverride, LoopDefinition } from '../fsm/schema.js';

/** The answer asked for: the findings, each with the state it is about and the fix. */
const FINDINGS_SCHEMA = {
  type: 'object',
  properties: {
    findings: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          state: { type: 'string' },
          severity: { type: 'string', enum: ['error', 'warning', 'info'] },
          message: { type: 'string' },
          fix: { type: 'string' },
        },
        required: ['severity', 'message', 'fix'],
      },
    },
  },
  required: ['findings'],
};

export type LlmReview = { findings: Finding[] } | { error: string; fix: string };

function prompt(source: string, found: readonly Finding[]): string {
  const known = found.length
    ? found.map((f) => `- [${f.severity}] ${f.state ?? '(loop)'}: ${f.message}`).join('\n')
    : '- none';
  return [
    'You review a loop of ll-loop: a finite state machine written in YAML whose states run shell commands or agent prompts, are judged by evaluators, and route on verdicts (on_yes, on_no, on_error, route:).',
    'Find what would make it fail, loop without progress, waste agent calls or judge the wrong thing. For each finding name the state, say what is wrong and give the fix as an edit to the YAML.',
    'Do not repeat these findings of the static review:',
    known,
    'The loop file:',
    '```yaml',
    source.trimEnd(),
    '```',
    'Answer with JSON only: {"findings": [{"state": "...", "severity": "error|warning|info", "message": "...", "fix": "..."}]}.',
  ].join('\n');
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The findings in an answer (an object, or text holding one, possibly fenced), or undefined. */
export function parseFindings(answer: unknown, states: readonly string[]): Finding[] | undefined {
  let value = answer;
  if (typeof value === 'string') {
    const fence = /```(?:json)?\s*\n?([\s\S]*?)```/i.exec(value);
    try {
      value = JSON.parse((fence?.[1] ?? value).trim());
    } catch {
      return undefined;
    }
  }
  if (!isRecord(value) || !Array.isArray(value.findings)) return undefined;
  const out: Finding[] = [];
  for (const f of value.findings) {
    if (!isRecord(f) || typeof f.message !== 'string' || typeof f.fix !== 'string') return undefined;
    const severity = f.severity === 'error' || f.severity === 'info' ? f.severity : 'warning';
    const state = typeof f.state === 'string' && states.includes(f.state) ? f.state : undefined;
    out.push({ rule: 'llm', severity, ...(state ? { state } : {}), message: f.message, fix: f.fix });
  }
  return out;
}

export interface LlmReviewOptions {
  def: LoopDefinition;
  /** The loop file's text, as the LLM reads it. */
  source: string;
  found: readonly Finding[];
  override: LlmOverride;
  timeoutS?: number;
  /** Where the host CLI runs (the project). */
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/** Ask the LLM (worker/llm-ask.ts) for its review. */
export async function llmReview(o: LlmReviewOptions): Promise<LlmReview> {
  const asked = await askLlm({
    llm: o.def.llm,
    override: o.override,
    prompt: prompt(o.source, o.found),
    schema: FINDINGS_SCHEMA,
    ...(o.timeoutS === undefined ? {} : { timeoutS: o.timeoutS }),
    cwd: o.cwd,
    env: o.env,
  });
  if ('error' in asked) return asked;
  const findings = parseFindings(asked.answer, Object.keys(o.def.states));
  if (findings !== undefined) return { findings };
  const text = typeof asked.answer === 'string' ? asked.answer : JSON.stringify(asked.answer);
  return {
    error: `${asked.where}: the answer is not a review (JSON with findings): ${String(text).slice(0, 200)}`,
    fix: 'try again, or another --model',
  };
}
