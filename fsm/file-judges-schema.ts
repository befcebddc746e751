/**
 * little-loops' two LLM evaluators that judge more than one text: `contract` (does each producer
 * file satisfy its consumer file's contract?) and `comparator` (is the state's output better than
 * a stored baseline, judged blind?). Their fields, with little-loops' constraints; what they do is
 * in fsm/evaluators/file-judges.ts (the decisions) and activities/file-judges.ts (the I/O).
 */
import { z } from 'zod';

/** One producer/consumer pair of a `contract` evaluation. Paths are relative to the run's directory. */
const contractPair = z.strictObject({
  producer: z.string().min(1, 'producer names a file'),
  consumer: z.string().min(1, 'consumer names a file'),
  /** A regular expression: the judge sees its matches in the producer file instead of the file's end. */
  producer_pattern: z.string().min(1).optional(),
  /** The same for the consumer file. */
  consumer_pattern: z.string().min(1).optional(),
  /** The rule the judge checks; default: the two must be compatible. */
  contract: z.string().min(1).optional(),
});
export type ContractPair = z.output<typeof contractPair>;

export const contractEvaluate = z.strictObject({
  type: z.literal('contract'),
  pairs: z
    .array(contractPair, { error: 'the contract evaluator requires pairs: a list of {producer, consumer}' })
    .min(1, 'the contract evaluator requires at least one pair in pairs'),
});

export const comparatorEvaluate = z.strictObject({
  type: z.literal('comparator'),
  source: z.string().optional(),
  /** The baseline's directory: its `output.txt` is the output compared against. */
  baseline_path: z.string().min(1, 'baseline_path names the baseline directory'),
  /** On `yes` the output becomes the baseline; with no baseline yet, the first output is it. */
  auto_promote: z.boolean().default(false),
  /** How many blind comparisons are made (fewer than 1 counts as 1, as in little-loops). */
  min_pairs: z.number().int('min_pairs is a whole number of comparisons').default(1),
  /** The judge's criteria, instead of the default framing. */
  prompt: z.string().optional(),
});
