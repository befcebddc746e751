/**
 * `ll-loop review --llm`: an LLM's review of a loop, asked of the providers the runs use, chosen
 * as an LLM evaluation's provider is: the loop's `llm:` with the command's `--provider`/`--model`/
 * `--base-url` on top (fsm/llm-provider.ts): an HTTP API (activities/llm-providers.ts), or the host
 * CLI (worker/llm-review-host.ts). An API key is read from the environment and never printed. The
 * answer is JSON findings, checked here; a timeout, a refusal or an answer that is not findings is
 * an error naming the provider and why.
 */
import { hostCli } from '../activities/host-cli.js';
import { callProvider } from '../activities/llm-providers.js';
import { askHostCli } from './llm-review-host.js';
import { providerRequest } from '../fsm/llm-provider.js';
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

/** Findings from an answer, or the error saying the answer is not a review. */
function reviewOf(answer: unknown, def: LoopDefinition, where: string): LlmReview {
  const findings = parseFindings(answer, Object.keys(def.states));
  if (findings !== undefined) return { findings };
  const text = typeof answer === 'string' ? answer : JSON.stringify(answer);
  return {
    error: `${where}: the answer is not a review (JSON with findings): ${String(text).slice(0, 200)}`,
    fix: 'try again, or another --model',
  };
}

/** Ask the provider (an HTTP API, or the host CLI when the loop and flags name none) for its review. */
export async function llmReview(o: LlmReviewOptions): Promise<LlmReview> {
  const request = providerRequest(o.def, {
    type: 'llm_structured',
    llm: o.override,
    min_confidence: 0.5,
    uncertain_suffix: false,
  });
  if (request !== undefined && 'invalid' in request) return { error: request.invalid, fix: request.fix };
  const timeoutS = o.timeoutS ?? o.def.llm.timeout;
  const question = prompt(o.source, o.found);
  if (request === undefined) {
    const model = o.override.model ?? o.def.llm.model;
    const host = await askHostCli({
      prompt: question,
      schema: FINDINGS_SCHEMA,
      ...(model === undefined ? {} : { model }),
      timeoutS,
      cwd: o.cwd,
      env: o.env,
    });
    return 'error' in host ? host : reviewOf(host.answer, o.def, `host CLI '${hostCli(o.env).binary}'`);
  }
  const outcome = await callProvider(
    {
      request: { ...request, max_tokens: Math.max(request.max_tokens, 4096) },
      prompt: question,
      schema: FINDINGS_SCHEMA,
      timeoutMs: timeoutS * 1000,
    },
    o.env,
  );
  if ('error' in outcome) {
    const timedOut = outcome.details['reason'] === 'timeout';
    return {
      error: timedOut ? `${outcome.error} (${timeoutS}s)` : outcome.error,
      fix: timedOut
        ? 'try again, or give it longer with --timeout SECONDS'
        : 'check the provider, its model and its key variable, then try again',
    };
  }
  return reviewOf(
    outcome.answer,
    o.def,
    `LLM provider ${request.provider}${request.base_url ? ` at ${request.base_url}` : ''}`,
  );
}
