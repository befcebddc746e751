/**
 * The I/O half of the `contract` and `comparator` evaluators (pure half:
 * fsm/evaluators/file-judges.ts): the files read relative to the run's directory, the blind
 * positions drawn, each question put to the judge through `ask` (the same host CLI or HTTP API
 * path as `llm_structured`: activities/evaluate-llm.ts), the baseline promoted. The verdict is
 * decided here from several answers, so the reply is a `result`, not one judgement.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import {
  COMPARISON_ANSWER_SCHEMA,
  CONTRACT_ANSWER_SCHEMA,
  DEFAULT_CONTRACT_RULE,
  comparatorVerdict,
  comparisonQuestion,
  comparisonSides,
  contractQuestion,
  contractResult,
  judgedSlice,
  type PairResult,
} from '../fsm/evaluators/file-judges.js';
import type { ContractPair } from '../fsm/file-judges-schema.js';
import type { LlmReply } from '../fsm/run/snapshot.js';
import type { EvalResult, EvaluateLlmInput, LlmUsage } from '../fsm/types.js';

/** One answer of the judge (its JSON object), or why there is none; what the call used. */
export type JudgeAnswer = ({ answer: Record<string, unknown> } | { error: string }) & { usage?: LlmUsage };
/** Asks the judge one question whose answer follows `schema`, within `timeoutS`. */
type Ask = (prompt: string, schema: Record<string, unknown>, timeoutS: number) => Promise<JudgeAnswer>;

/** True for the inputs this module answers (only `contract` and `comparator` evaluations carry these fields). */
export function isFileJudgeInput(input: EvaluateLlmInput): boolean {
  return input.contract !== undefined || input.comparator !== undefined;
}

/**
 * The evaluation's result and the usage of all its questions. `input.timeout_s` is the whole
 * evaluation's: each question gets its share (llm.timeout each, fsm/file-judges-input.ts).
 * Never throws: a file that cannot be read or written, or a judge that fails, is in the result.
 */
export async function judgeFiles(input: EvaluateLlmInput, ask: Ask, random = Math.random): Promise<LlmReply> {
  const used: LlmUsage[] = [];
  const counted: Ask = async (prompt, schema, timeoutS) => {
    const answer = await ask(prompt, schema, timeoutS);
    if (answer.usage !== undefined) used.push(answer.usage);
    return answer;
  };
  let result: EvalResult;
  if (input.contract !== undefined) {
    const perCall = input.timeout_s / input.contract.pairs.length;
    result = await judgeContract(input.cwd, input.contract.pairs, (p, s) => counted(p, s, perCall));
  } else {
    result = await compareWithBaseline(input, counted, random);
  }
  const usage = sumUsage(used);
  return usage === undefined ? { result } : { result, usage };
}

/** Reads one file of a pair; the error names which file and why. */
async function readSide(
  cwd: string,
  side: 'producer' | 'consumer',
  path: string,
): Promise<{ text: string } | { error: string }> {
  try {
    return { text: await readFile(resolve(cwd, path), 'utf8') };
  } catch (e) {
    return { error: `cannot read ${side} file ${path}: ${(e as Error).message}` };
  }
}

async function judgePair(
  cwd: string,
  pair: ContractPair,
  ask: (prompt: string, schema: Record<string, unknown>) => Promise<JudgeAnswer>,
): Promise<PairResult> {
  const base = { producer: pair.producer, consumer: pair.consumer };
  const fail = (error: string): PairResult => ({ ...base, verdict: 'error', error });
  const producer = await readSide(cwd, 'producer', pair.producer);
  if ('error' in producer) return fail(producer.error);
  const consumer = await readSide(cwd, 'consumer', pair.consumer);
  if ('error' in consumer) return fail(consumer.error);
  const producerSlice = judgedSlice(producer.text, pair.producer_pattern);
  if ('error' in producerSlice) return fail(`producer_pattern ${producerSlice.error} in ${pair.producer}`);
  const consumerSlice = judgedSlice(consumer.text, pair.consumer_pattern);
  if ('error' in consumerSlice) return fail(`consumer_pattern ${consumerSlice.error} in ${pair.consumer}`);
  const question = contractQuestion(
    pair.contract ?? DEFAULT_CONTRACT_RULE,
    { path: pair.producer, text: producerSlice.text },
    { path: pair.consumer, text: consumerSlice.text },
  );
  const reply = await ask(question, CONTRACT_ANSWER_SCHEMA);
  if ('error' in reply) return fail(reply.error);
  const { verdict, confidence, reason } = reply.answer;
  if (typeof verdict !== 'string' || verdict === '') return fail('the judge answered without a verdict');
  return {
    ...base,
    verdict,
    confidence: typeof confidence === 'number' ? confidence : 1,
    reason: typeof reason === 'string' ? reason : '',
  };
}

async function judgeContract(
  cwd: string,
  pairs: ContractPair[],
  ask: (prompt: string, schema: Record<string, unknown>) => Promise<JudgeAnswer>,
): Promise<EvalResult> {
  const results: PairResult[] = [];
  for (const pair of pairs) results.push(await judgePair(cwd, pair, ask));
  return contractResult(results);
}

function errorResult(error: string, details: Record<string, unknown> = {}): EvalResult {
  return { verdict: 'error', details: { ...details, error } };
}

/** `comparator`: blind comparisons of the output against `<baseline_path>/output.txt`. */
async function compareWithBaseline(input: EvaluateLlmInput, ask: Ask, random: () => number): Promise<EvalResult> {
  const { baseline_path, auto_promote, min_pairs } = input.comparator!;
  const file = join(resolve(input.cwd, baseline_path), 'output.txt');
  const promote = async (): Promise<string | undefined> => {
    try {
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, input.output);
      return undefined;
    } catch (e) {
      return `cannot write the baseline ${file}: ${(e as Error).message}`;
    }
  };
  let baseline: string;
  try {
    baseline = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT')
      return errorResult(`cannot read the baseline ${file}: ${(e as Error).message}`);
    if (!auto_promote) return { verdict: 'no_baseline', details: { reason: `no baseline: ${file} does not exist` } };
    const failed = await promote();
    if (failed !== undefined) return errorResult(failed);
    return { verdict: 'yes', details: { reason: 'no baseline: this output is the baseline now', bootstrapped: true } };
  }
  let harnessWins = 0;
  let baselineWins = 0;
  let reason = '';
  let raw: Record<string, unknown> = {};
  const errors: string[] = [];
  for (let i = 0; i < min_pairs; i++) {
    // The positions are drawn per comparison, so the judge cannot tell which output is which.
    const outputIsA = random() < 0.5;
    const [a, b] = outputIsA ? [input.output, baseline] : [baseline, input.output];
    const reply = await ask(
      comparisonQuestion(input.prompt, a, b),
      COMPARISON_ANSWER_SCHEMA,
      input.timeout_s / min_pairs,
    );
    if ('error' in reply) {
      errors.push(reply.error);
      continue;
    }
    const sides = comparisonSides(reply.answer, outputIsA);
    if (sides.output_pass) harnessWins++;
    if (sides.baseline_pass) baselineWins++;
    reason = typeof reply.answer.reason === 'string' ? reply.answer.reason : '';
    raw = { ...reply.answer, output_is_a: outputIsA };
  }
  const details: Record<string, unknown> = {
    harness_wins: harnessWins,
    baseline_wins: baselineWins,
    min_pairs,
    reason,
    raw,
  };
  if (errors.length > 0) details.errors = errors;
  // A comparison the judge could not make counts for neither side; none made is an error.
  if (errors.length === min_pairs)
    return errorResult(`the judge could not compare: ${errors[errors.length - 1]}`, details);
  const verdict = comparatorVerdict(harnessWins, baselineWins);
  if (verdict === 'yes' && auto_promote) {
    const failed = await promote();
    if (failed !== undefined) return errorResult(failed, details);
    details.promoted = true;
  }
  return { verdict, details };
}

/** The usage of several calls, added up; undefined when none reported any. */
function sumUsage(all: LlmUsage[]): LlmUsage | undefined {
  if (all.length === 0) return undefined;
  const out: LlmUsage = {};
  for (const u of all) {
    for (const key of ['input_tokens', 'output_tokens', 'cost_usd', 'duration_ms'] as const) {
      const v = u[key];
      if (v !== undefined) out[key] = (out[key] ?? 0) + v;
    }
  }
  return out;
}
