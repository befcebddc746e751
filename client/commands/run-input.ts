/**
 * The context `ll-loop run <loop> [input]` gives besides `--context`: the positional input and the
 * steering file (`--program-md`, else the project's `.ll/program.md`), as `KEY=VALUE` pairs that
 * go before `--context`'s, so that `--context` wins over both (as in little-loops).
 *
 * The input is a JSON object, whose keys become context keys (a value that is not a string is
 * given as its JSON text), or anything else, which becomes the value of the loop's `input_key`
 * (default `input`). Unlike little-loops, an input the loop would never read is refused, as a
 * mistyped `--context` key is: little-loops dropped an object's unknown keys and stored a text
 * under a key the loop might not use, and the run then did other work than asked
 * (docs/decisions.md). A steering file is shared by every loop of a project: only the keys the
 * run's loop uses are taken from it.
 */
import { LoadError } from '../../loader/errors.js';
import { resolveLoopFile } from '../../loader/load.js';
import { DEFAULT_INPUT_KEY, loopInputs, type LoopInputs } from '../../loader/loop-inputs.js';
import { didYouMean } from '../../fsm/suggest.js';
import { UsageError } from '../../errors/errors.js';
import { programMdFile, readProgramMd } from './program-md.js';

export interface RunInputOptions {
  /** The loop as `run` was given it (a name or a path) and the project root. */
  target: string;
  cwd: string;
  invokedIn: string;
  /** The positional input, as typed. */
  input?: string;
  /** `--program-md PATH`, as typed. */
  programMd?: string;
  /** `--context-allow-unknown`: hand the loop input keys it does not use. */
  allowUnknown: boolean;
}

/** A short quote of the input for messages. */
function quoted(text: string): string {
  const one = text.replace(/\s+/g, ' ');
  return JSON.stringify(one.length > 60 ? `${one.slice(0, 57)}...` : one);
}

/** The `[key, value]` pairs the positional input gives to a loop with `inputs`. */
export function inputPairs(input: string, inputs: Pick<LoopInputs, 'inputKey'>): Array<[string, string]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(input);
  } catch {
    parsed = undefined;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return [[inputs.inputKey, input]];
  const pairs: Array<[string, string]> = [];
  for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) {
    if (key === '' || key.includes('=') || key === '__proto__')
      throw new UsageError(
        `the input ${quoted(input)}: ${JSON.stringify(key)} cannot be a context key`,
        'give keys without "=" (and not __proto__), or pass the value with --context KEY=VALUE',
      );
    pairs.push([key, typeof value === 'string' ? value : JSON.stringify(value)]);
  }
  if (pairs.length === 0)
    throw new UsageError(
      `the input ${quoted(input)} is an empty JSON object: it sets no context key`,
      'give the keys to set, e.g. \'{"issue": "BUG-1"}\', or give the input as text',
    );
  return pairs;
}

/** Refuse the input's keys `inputs.used` lacks, saying where they came from. */
function checkUsed(pairs: Array<[string, string]>, input: string, inputs: LoopInputs): void {
  if (inputs.used === undefined) return;
  const known = [...inputs.used].sort();
  const uses = known.length ? known.join(', ') : 'no context keys';
  const unknown = pairs.map(([k]) => k).filter((k) => !inputs.used!.has(k));
  if (unknown.length === 0) return;
  const isText = pairs.length === 1 && pairs[0]![0] === inputs.inputKey && pairs[0]![1] === input;
  if (isText)
    throw new UsageError(
      `the input ${quoted(input)} goes to context.${inputs.inputKey} (the loop's input_key), which loop "${inputs.name}" does not use; it uses ${uses}`,
      `give it to the key the loop reads (--context KEY=VALUE or '{"KEY": "…"}'), set input_key: <key> in the loop, or pass --context-allow-unknown to hand it over anyway`,
    );
  const hint = unknown.length === 1 ? didYouMean(unknown[0]!, known) : '';
  throw new UsageError(
    `the input ${quoted(input)}: loop "${inputs.name}" does not use ${unknown.map((k) => `"${k}"`).join(', ')}${hint}; it uses ${uses}`,
    "fix the key's name, or pass --context-allow-unknown to hand it to the loop anyway",
  );
}

/** The `KEY=VALUE` pairs the input and the steering file give (none when neither is there). */
export function runInputPairs(opts: RunInputOptions): string[] {
  const steering = programMdFile(opts.programMd, opts.invokedIn, opts.cwd);
  if (opts.input === undefined && steering === undefined) return [];
  let inputs: LoopInputs | undefined;
  try {
    inputs = loopInputs(resolveLoopFile(opts.target, opts.cwd), opts.cwd);
  } catch (err) {
    // An unknown loop: the load that follows says so, in its own words.
    if (!(err instanceof LoadError)) throw err;
  }
  const pairs: Array<[string, string]> = [];
  if (opts.input !== undefined) {
    const given = inputPairs(opts.input, inputs ?? { inputKey: DEFAULT_INPUT_KEY });
    if (inputs && !opts.allowUnknown) checkUsed(given, opts.input, inputs);
    pairs.push(...given);
  }
  // A loop that cannot be read takes nothing from the steering file: its load says what is wrong.
  if (steering !== undefined && inputs !== undefined) {
    const flag = opts.programMd === undefined ? steering : `--program-md ${opts.programMd}`;
    const used = inputs.used;
    pairs.push(...readProgramMd(steering, flag).filter(([k]) => used === undefined || used.has(k)));
  }
  return pairs.map(([k, v]) => `${k}=${v}`);
}
