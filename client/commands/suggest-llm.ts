/**
 * `ll-loop suggest --llm`: the LLM ranks the same loops (worker/llm-ask.ts), and its ranking
 * replaces the words' score: each loop it names gets its score (0–1) and `llm: <its reason>` first
 * in `why`, then the words that matched. Loops it does not name are left out; when it cannot answer,
 * the words' ranking stands (suggest works without an LLM) and the reason is said.
 */
import type { Candidate, Ranked } from './suggest-rank.js';

export const RANKING_SCHEMA = {
  type: 'object',
  properties: {
    ranking: {
      type: 'array',
      items: {
        type: 'object',
        properties: { name: { type: 'string' }, score: { type: 'number' }, why: { type: 'string' } },
        required: ['name', 'score', 'why'],
      },
    },
  },
  required: ['ranking'],
};

/** The question: the task, then every loop in a line. */
export function rankingPrompt(task: string, candidates: readonly Candidate[]): string {
  const lines = candidates.map((c) => {
    const params = Object.entries(c.parameters).map(([k, d]) => (d ? `${k} (${d})` : k));
    return `- ${c.name}: ${c.description ?? '(no description)'}${c.labels.length ? `; labels: ${c.labels.join(', ')}` : ''}${params.length ? `; parameters: ${params.join('; ')}` : ''}`;
  });
  return [
    'Which of these automation loops fits the task below? Score each loop that could do it from 0 (no) to 1 (exactly this), with one sentence why; leave out loops that do not fit.',
    `Task: ${task}`,
    'Loops:',
    ...lines,
    'Answer with JSON only: {"ranking": [{"name": "...", "score": 0.8, "why": "..."}]}.',
  ].join('\n');
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The LLM's ranking over the words' one, best first; undefined when the answer is not a ranking.
 * Names that are no candidate are dropped; scores are clamped to 0–1.
 */
export function mergeRanking(
  answer: unknown,
  byWords: readonly Ranked[],
  candidates: readonly Candidate[],
): Ranked[] | undefined {
  let value = answer;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  if (!isRecord(value) || !Array.isArray(value.ranking)) return undefined;
  const out: Ranked[] = [];
  for (const entry of value.ranking) {
    if (!isRecord(entry) || typeof entry.name !== 'string' || typeof entry.score !== 'number') return undefined;
    const known = candidates.find((c) => c.name === entry.name);
    if (known === undefined || out.some((r) => r.name === entry.name)) continue;
    const words = byWords.find((r) => r.name === entry.name)?.why ?? [];
    const reason = typeof entry.why === 'string' && entry.why.trim() ? [`llm: ${entry.why.trim()}`] : [];
    const score = Math.round(Math.min(1, Math.max(0, entry.score)) * 1000) / 1000;
    out.push({ name: known.name, source: known.source, score, why: [...reason, ...words] });
  }
  return out.sort((a, b) => b.score - a.score);
}
