/**
 * The pure half of the `contract` and `comparator` evaluators (schema: fsm/file-judges-schema.ts):
 * the questions put to the judge, the answers' schemas, and the verdicts decided from the answers.
 * The activity (activities/file-judges.ts) reads the files, flips the positions and asks.
 */
import type { EvalResult } from '../types.js';

/** How much of a file or an output the judge sees: its end, where results usually are. */
const JUDGED_CHARS = 4000;

/** A contract pair's rule when it gives none. */
export const DEFAULT_CONTRACT_RULE = 'the producer and consumer must be compatible';

const yesNo = { type: 'string', enum: ['yes', 'no'] };

/** The answer to one contract pair. */
export const CONTRACT_ANSWER_SCHEMA: Record<string, unknown> = {
  type: 'object',
  properties: { verdict: yesNo, confidence: { type: 'number' }, reason: { type: 'string' } },
  required: ['verdict', 'confidence', 'reason'],
};

/** The answer to one blind comparison: each output judged on its own. */
export const COMPARISON_ANSWER_SCHEMA: Record<string, unknown> = {
  type: 'object',
  properties: {
    verdict_a: { ...yesNo, description: 'Does output A meet the criteria?' },
    verdict_b: { ...yesNo, description: 'Does output B meet the criteria?' },
    confidence: { type: 'number', minimum: 0, maximum: 1 },
    reason: { type: 'string' },
  },
  required: ['verdict_a', 'verdict_b', 'confidence', 'reason'],
};

/** The criteria of a comparison when the evaluator gives no `prompt`. */
const DEFAULT_COMPARISON_PROMPT =
  'Two outputs of the same task follow, labelled A and B in an order that means nothing. ' +
  'Judge each one on its own: does it meet the criteria of the task? Be impartial.';

/** The end of a text, never starting with the low half of a surrogate pair the cut split. */
export function tail(text: string): string {
  const cut = text.length > JUDGED_CHARS ? text.slice(-JUDGED_CHARS) : text;
  return /^[\uDC00-\uDFFF]/.test(cut) ? cut.slice(1) : cut;
}

/**
 * What the judge sees of a file: the matches of `pattern` (each match's first group when it has
 * groups), one per line, else the file's end. An error when the pattern is invalid or matches nothing.
 */
export function judgedSlice(content: string, pattern: string | undefined): { text: string } | { error: string } {
  if (pattern === undefined) return { text: tail(content) };
  let re: RegExp;
  try {
    re = new RegExp(pattern, 'gs');
  } catch (e) {
    return { error: `invalid regular expression ${JSON.stringify(pattern)}: ${(e as Error).message}` };
  }
  const found = [...content.matchAll(re)].map((m) => (m.length > 1 ? (m[1] ?? '') : m[0]));
  return found.length === 0 ? { error: `${JSON.stringify(pattern)} matched nothing` } : { text: found.join('\n') };
}

/** The question for one contract pair. */
export function contractQuestion(
  rule: string,
  producer: { path: string; text: string },
  consumer: { path: string; text: string },
): string {
  return [
    'Check a producer against the contract its consumer expects.',
    `Contract: ${rule}`,
    `<producer path=${JSON.stringify(producer.path)}>\n${producer.text}\n</producer>`,
    `<consumer path=${JSON.stringify(consumer.path)}>\n${consumer.text}\n</consumer>`,
    'Compare names, types, casing and structure. Answer verdict "yes" when the producer satisfies the consumer, "no" when it does not.',
  ].join('\n\n');
}

/** The question for one blind comparison; `a` and `b` are already in their drawn positions. */
export function comparisonQuestion(prompt: string | undefined, a: string, b: string): string {
  return `${prompt ?? DEFAULT_COMPARISON_PROMPT}\n\n<output_a>\n${tail(a)}\n</output_a>\n\n<output_b>\n${tail(b)}\n</output_b>`;
}

/** One pair's result as `details.pair_results` lists it. */
export interface PairResult {
  producer: string;
  consumer: string;
  verdict: string;
  confidence?: number;
  reason?: string;
  error?: string;
}

/** `yes` only when every pair is aligned; any pair's `error` wins over a `no`. */
export function contractResult(pairs: PairResult[]): EvalResult {
  const verdict = pairs.some((p) => p.verdict === 'error')
    ? 'error'
    : pairs.length > 0 && pairs.every((p) => p.verdict === 'yes')
      ? 'yes'
      : 'no';
  const failed = pairs.find((p) => p.verdict === 'error');
  const details: Record<string, unknown> = { pair_results: pairs };
  if (failed !== undefined) details.error = `${failed.producer} → ${failed.consumer}: ${failed.error ?? 'error'}`;
  return { verdict, details };
}

/** Which side passed in one comparison, with the drawn positions undone. */
export function comparisonSides(
  answer: Record<string, unknown>,
  outputIsA: boolean,
): { output_pass: boolean; baseline_pass: boolean } {
  const a = answer['verdict_a'] === 'yes';
  const b = answer['verdict_b'] === 'yes';
  return outputIsA ? { output_pass: a, baseline_pass: b } : { output_pass: b, baseline_pass: a };
}

/** The comparisons' verdict: `yes` when the output passed more often than the baseline, `no` when less, else `tie`. */
export function comparatorVerdict(outputWins: number, baselineWins: number): 'yes' | 'no' | 'tie' {
  return outputWins > baselineWins ? 'yes' : outputWins < baselineWins ? 'no' : 'tie';
}
