/**
 * little-loops' `contract` and `comparator` evaluators, their pure parts: the schema's fields and
 * messages, the verdicts validation knows, the activity input only these evaluators carry, and
 * the verdicts decided from the judge's answers. Loops written here.
 */
import { describe, expect, it } from 'vitest';
import { validateLoop } from '../../fsm/definition/validate.js';
import {
  comparatorVerdict,
  comparisonSides,
  contractResult,
  judgedSlice,
  tail,
  type PairResult,
} from '../../fsm/evaluators/file-judges.js';
import { stateVerdicts } from '../../fsm/verdicts.js';
import { def, drive, eventsNamed, loop } from './helpers.js';

const PAIR = { producer: 'out/api.json', consumer: 'src/client.ts' };
const raw = (evaluate: Record<string, unknown>, routes: Record<string, unknown> = { on_yes: 'done', on_no: 'done' }) =>
  loop({ a: { action: 'make build', evaluate, ...routes } });
const messages = (evaluate: Record<string, unknown>) =>
  validateLoop(raw(evaluate))
    .diagnostics.map((d) => `${d.path?.join('.') ?? ''}: ${d.message}`)
    .join('\n');

describe('contract and comparator: the schema', () => {
  it('loads both with little-loops defaults', () => {
    const contract = def(
      raw({ type: 'contract', pairs: [{ ...PAIR, producer_pattern: 'a(b)', contract: 'same keys' }] }),
    );
    expect(contract.states.a!.evaluate).toEqual({
      type: 'contract',
      pairs: [{ ...PAIR, producer_pattern: 'a(b)', contract: 'same keys' }],
    });
    const comparator = def(raw({ type: 'comparator', baseline_path: '.loops/baselines/x' }, { route: { _: 'done' } }));
    expect(comparator.states.a!.evaluate).toEqual({
      type: 'comparator',
      baseline_path: '.loops/baselines/x',
      auto_promote: false,
      min_pairs: 1,
    });
  });

  it.each([
    [{ type: 'contract' }, /evaluate\.pairs: missing required field "pairs"/],
    [{ type: 'contract', pairs: [] }, /requires at least one pair in pairs/],
    [{ type: 'contract', pairs: [{ producer: 'a' }] }, /pairs\.0\.consumer: missing required field "consumer"/],
    [{ type: 'contract', pairs: [{ producer: '', consumer: 'b' }] }, /pairs\.0\.producer: producer names a file/],
    [{ type: 'contract', pairs: [{ ...PAIR, consumer_patern: 'x' }] }, /consumer_patern/],
    [{ type: 'comparator' }, /evaluate\.baseline_path: missing required field "baseline_path"/],
    [{ type: 'comparator', baseline_path: 'b', min_pairs: 1.5 }, /min_pairs is a whole number/],
    [{ type: 'comparator', baseline_path: 'b', auto_promote: 'yes' }, /auto_promote/],
  ])('refuses %j with a message naming the field', (evaluate, message) => {
    expect(validateLoop(raw(evaluate)).definition).toBeUndefined();
    expect(messages(evaluate)).toMatch(message);
  });
});

describe('contract and comparator: the verdicts validation knows', () => {
  it('contract answers yes/no; comparator also tie and no_baseline', () => {
    const contract = def(raw({ type: 'contract', pairs: [PAIR] }));
    expect(stateVerdicts(contract, contract.states.a!)?.verdicts).toEqual(['yes', 'no']);
    const routes = { route: { yes: 'done', no: 'done', tie: 'done', no_baseline: 'done' } };
    const comparator = def(raw({ type: 'comparator', baseline_path: 'b' }, routes));
    expect(stateVerdicts(comparator, comparator.states.a!)).toEqual({
      verdicts: ['yes', 'no', 'tie', 'no_baseline'],
      pass: 'yes',
      fail: 'no',
    });
    expect(validateLoop(raw({ type: 'comparator', baseline_path: 'b' }, routes)).diagnostics).toEqual([]);
  });

  it('warns when a comparator leaves tie and no_baseline unrouted', () => {
    expect(messages({ type: 'comparator', baseline_path: 'b' })).toMatch(
      /its evaluator \(comparator\) can answer "tie", "no_baseline", which no route handles/,
    );
  });

  it('a contract state needs no action: it reads its files', () => {
    const noAction = validateLoop(
      loop({ a: { evaluate: { type: 'contract', pairs: [PAIR] }, on_yes: 'done', on_no: 'done' } }),
    );
    expect(noAction.diagnostics).toEqual([]);
  });
});

describe('contract and comparator: the activity input', () => {
  it('a contract state asks the judge with its pairs rendered, and routes on the result', () => {
    const d = def(
      loop(
        {
          a: {
            evaluate: { type: 'contract', pairs: [{ producer: '${context.dir}/api.json', consumer: 'client.ts' }] },
            on_yes: 'done',
            on_no: 'a',
          },
        },
        { context: { dir: 'out' } },
      ),
    );
    const run = drive(d, { llm: { a: [{ verdict: 'yes', details: { pair_results: [] } }] } });
    const asked = run.commands.find((c) => c.type === 'evaluate_llm');
    expect(asked).toMatchObject({
      input: { state: 'a', contract: { pairs: [{ producer: 'out/api.json', consumer: 'client.ts' }] }, output: '' },
    });
    expect(asked && 'input' in asked && 'comparator' in (asked.input as object)).toBe(false);
    expect(eventsNamed(run, 'evaluate')[0]).toMatchObject({ type: 'contract', verdict: 'yes' });
    expect(run.entered).toEqual(['a', 'done']);
  });

  it('a comparator gives the output, the baseline and a whole-evaluation timeout of llm.timeout per comparison', () => {
    const d = def(
      loop(
        {
          a: {
            action: 'make report',
            evaluate: { type: 'comparator', baseline_path: 'b', min_pairs: 3, prompt: 'Which is clearer?' },
            route: { _: 'done' },
          },
        },
        { llm: { timeout: 20 } },
      ),
    );
    const run = drive(d, { actions: { a: [{ output: 'report v2' }] }, llm: { a: ['tie'] } });
    expect(run.commands.find((c) => c.type === 'evaluate_llm')).toMatchObject({
      input: {
        output: 'report v2',
        prompt: 'Which is clearer?',
        comparator: { baseline_path: 'b', auto_promote: false, min_pairs: 3 },
        timeout_s: 60,
      },
    });
  });

  it('a comparator whose action timed out gives error without asking; llm_structured inputs carry neither field', () => {
    const failing = def(
      loop({ a: { action: 'make', evaluate: { type: 'comparator', baseline_path: 'b' }, route: { _: 'done' } } }),
    );
    const run = drive(failing, { actions: { a: [{ exit_code: 124, timed_out: true }] } });
    expect(run.commands.some((c) => c.type === 'evaluate_llm')).toBe(false);
    expect(eventsNamed(run, 'evaluate')[0]).toMatchObject({
      type: 'comparator',
      verdict: 'error',
      details: { error: 'the action timed out (exit 124)', exit_code: 124 },
    });
    const judged = def(loop({ a: { action: 'make', evaluate: { type: 'llm_structured' }, route: { _: 'done' } } }));
    const asked = drive(judged, { llm: { a: ['yes'] } }).commands.find((c) => c.type === 'evaluate_llm');
    expect(Object.keys((asked as { input: object }).input).sort()).toEqual(
      ['min_confidence', 'output', 'schema', 'state', 'timeout_s', 'uncertain_suffix'].sort(),
    );
  });
});

const pair = (verdict: string): PairResult => ({ producer: 'p', consumer: 'c', verdict });

describe('contract and comparator: decisions from the answers', () => {
  it.each([
    [['yes'], 'yes'],
    [['yes', 'yes'], 'yes'],
    [['yes', 'no'], 'no'],
    [['yes', 'maybe'], 'no'],
    [['no', 'error'], 'error'],
    [['error', 'yes'], 'error'],
    [[], 'no'],
  ])('pairs %j give %s', (verdicts, expected) => {
    expect(contractResult(verdicts.map(pair)).verdict).toBe(expected);
  });

  it('the first failed pair is the error, every pair in pair_results', () => {
    const failed = { ...pair('error'), error: 'cannot read producer file p' };
    expect(contractResult([pair('yes'), failed]).details).toEqual({
      pair_results: [pair('yes'), failed],
      error: 'p → c: cannot read producer file p',
    });
  });

  it.each([
    [{ verdict_a: 'yes', verdict_b: 'no' }, true, { output_pass: true, baseline_pass: false }],
    [{ verdict_a: 'yes', verdict_b: 'no' }, false, { output_pass: false, baseline_pass: true }],
    [{ verdict_a: 'no', verdict_b: 'yes' }, false, { output_pass: true, baseline_pass: false }],
    [{ verdict_a: 'yes', verdict_b: 'yes' }, true, { output_pass: true, baseline_pass: true }],
    [{ verdict_a: 'maybe' }, true, { output_pass: false, baseline_pass: false }],
  ])('answer %j with the output as A=%s undoes the positions', (answer, outputIsA, sides) => {
    expect(comparisonSides(answer, outputIsA)).toEqual(sides);
  });

  it.each([
    [3, 1, 'yes'],
    [1, 3, 'no'],
    [2, 2, 'tie'],
    [0, 0, 'tie'],
  ])('%i output wins against %i baseline wins: %s', (output, baseline, verdict) => {
    expect(comparatorVerdict(output, baseline)).toBe(verdict);
  });

  it.each([
    ['x'.repeat(5000), undefined, { text: 'x'.repeat(4000) }],
    ['a {"k": 1} b {"k": 2}', '\\{[^}]*\\}', { text: '{"k": 1}\n{"k": 2}' }],
    ['key=1\nkey=2', 'key=(\\d)', { text: '1\n2' }],
    ['multi\nline', 'multi.line', { text: 'multi\nline' }],
    ['abc', 'z+', { error: '"z+" matched nothing' }],
  ])('judgedSlice(%j, %j)', (content, pattern, expected) => {
    expect(judgedSlice(content, pattern)).toEqual(expected);
  });

  it('an invalid pattern is an error, and a cut never starts inside a surrogate pair', () => {
    expect(judgedSlice('abc', '(')).toMatchObject({ error: expect.stringMatching(/invalid regular expression "\("/) });
    // 5001 code units: the last 4000 start with the low half of an emoji, which is dropped.
    expect(tail('😀'.repeat(2500) + 'x')).toBe('😀'.repeat(1999) + 'x');
  });
});
