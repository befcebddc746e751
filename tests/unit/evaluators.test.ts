import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  evaluatePure,
  isPureEvaluator,
  pureEvaluators,
  PURE_EVALUATOR_TYPES,
  type EvalInput,
  type PureEvaluatorConfig,
  type PureEvaluatorType,
} from '../../fsm/evaluators/index.js';
import { evaluateConfig, type EvaluateConfig } from '../../fsm/schema.js';

/** An input with ordinary defaults: exit 0, not abnormal, no last value. */
function input(output: string, overrides: Partial<EvalInput> = {}): EvalInput {
  return { output, exitCode: 0, abnormal: false, ...overrides };
}

describe('contract', () => {
  it('accepts every parsed schema config of a pure type', () => {
    expectTypeOf<Extract<EvaluateConfig, { type: PureEvaluatorType }>>().toExtend<PureEvaluatorConfig>();
    const parsed = evaluateConfig.parse({ type: 'output_numeric', operator: 'le', target: 5 });
    if (!isPureEvaluator(parsed.type)) throw new Error('output_numeric must be pure');
    expect(evaluatePure(parsed as Extract<EvaluateConfig, { type: PureEvaluatorType }>, input('4'))).toEqual({
      verdict: 'yes',
      details: { value: 4, target: 5, operator: 'le' },
    });
  });

  it.each([
    ['exit_code', true],
    ['output_numeric', true],
    ['output_json', true],
    ['output_contains', true],
    ['convergence', true],
    ['harbor_scorer', true],
    ['mcp_result', true],
    ['llm_structured', false],
    ['diff_stall', false],
    ['', false],
  ])('isPureEvaluator(%j) is %s', (type, expected) => {
    expect(isPureEvaluator(type)).toBe(expected);
  });

  it('has one registry entry per pure type', () => {
    expect(Object.keys(pureEvaluators).sort()).toEqual([...PURE_EVALUATOR_TYPES].sort());
  });

  it('answers error, not a throw, for a type it does not run', () => {
    const result = evaluatePure({ type: 'llm_structured' } as unknown as PureEvaluatorConfig, input('x'));
    expect(result.verdict).toBe('error');
    expect(result.details.error).toMatch(/llm_structured.*not a deterministic evaluator/);
  });

  it('answers error, not a throw, for a config that makes an evaluator throw', () => {
    const result = evaluatePure({ type: 'output_json', path: 42 } as unknown as PureEvaluatorConfig, input('{}'));
    expect(result.verdict).toBe('error');
    expect(result.details.error).toMatch(/^output_json evaluator failed: /);
  });
});

describe('exit_code', () => {
  it.each([
    [0, 'yes'],
    [1, 'no'],
    [2, 'error'],
    [124, 'error'],
    [126, 'error'],
    [127, 'error'],
    [137, 'error'],
    [-1, 'error'],
  ])('exit %i → %s', (exitCode, verdict) => {
    expect(evaluatePure({ type: 'exit_code' }, input('whatever', { exitCode }))).toEqual({
      verdict,
      details: { exit_code: exitCode },
    });
  });
});

describe('content evaluators on exceptional exits', () => {
  const configs: PureEvaluatorConfig[] = [
    { type: 'output_numeric', target: 1 },
    { type: 'output_json', path: '.' },
    { type: 'output_contains', pattern: 'ok' },
    { type: 'convergence', target: 0 },
    { type: 'harbor_scorer' },
  ];
  const exits: Array<[number, boolean, RegExp]> = [
    [124, false, /timed out/],
    [124, true, /timed out/],
    [126, false, /not executable/],
    [127, false, /not found/],
    [137, true, /killed by signal 9/],
    [143, true, /killed by signal 15/],
    [1, true, /killed by a signal/],
  ];
  const cases = configs.flatMap((config) =>
    exits.map(([exitCode, abnormal, why]) => [config.type, exitCode, abnormal, why, config] as const),
  );

  it.each(cases)('%s with exit %i (abnormal %s) → error', (_type, exitCode, abnormal, why, config) => {
    const result = evaluatePure(config, input('1', { exitCode, abnormal }));
    expect(result.verdict).toBe('error');
    expect(result.details.exit_code).toBe(exitCode);
    expect(result.details.error).toMatch(why);
  });

  it.each([
    [{ type: 'output_numeric', target: 1 }, 'yes'],
    [{ type: 'output_json', path: '.' }, 'yes'],
    [{ type: 'output_contains', pattern: '1' }, 'yes'],
    [{ type: 'convergence', target: 5 }, 'target'],
  ] as Array<[PureEvaluatorConfig, string]>)(
    '%j still judges the output after an ordinary exit 1',
    (config, verdict) => {
      expect(evaluatePure(config, input('1', { exitCode: 1 })).verdict).toBe(verdict);
    },
  );
});

describe('output_numeric', () => {
  it.each([
    ['5', 'eq', 5, 'yes'],
    ['4', 'eq', 5, 'no'],
    ['4', 'ne', 5, 'yes'],
    ['5', 'ne', 5, 'no'],
    ['4', 'lt', 5, 'yes'],
    ['5', 'lt', 5, 'no'],
    ['5', 'le', 5, 'yes'],
    ['6', 'le', 5, 'no'],
    ['6', 'gt', 5, 'yes'],
    ['5', 'gt', 5, 'no'],
    ['5', 'ge', 5, 'yes'],
    ['4', 'ge', 5, 'no'],
  ] as const)('%s %s %s → %s', (output, operator, target, verdict) => {
    expect(evaluatePure({ type: 'output_numeric', operator, target }, input(output))).toEqual({
      verdict,
      details: { value: Number(output), target, operator },
    });
  });

  it.each([
    ['  42 \n', 42],
    ['3.5', 3.5],
    ['-2', -2],
    ['1e3', 1000],
    ['+7', 7],
    ['.5', 0.5],
    ['running checks\nfound errors:\n12\n\n', 12],
  ])('reads %j as %d', (output, value) => {
    expect(evaluatePure({ type: 'output_numeric', target: value }, input(output))).toEqual({
      verdict: 'yes',
      details: { value, target: value, operator: 'eq' },
    });
  });

  it.each([
    ['5', 5],
    [' 5 ', 5],
    ['2.5', 2.5],
  ])('parses string target %j', (target, parsed) => {
    expect(evaluatePure({ type: 'output_numeric', operator: 'le', target }, input('2.5')).details.target).toBe(parsed);
  });

  it('defaults the operator to eq', () => {
    expect(evaluatePure({ type: 'output_numeric', target: 3 }, input('3'))).toEqual({
      verdict: 'yes',
      details: { value: 3, target: 3, operator: 'eq' },
    });
  });

  it.each([
    ['', /output is empty/],
    ['   \n \n', /output is empty/],
    ['abc', /could not parse a number from the output \("abc"\)/],
    ['12 errors', /"12 errors"/],
    ['0x10', /"0x10"/],
    ['Infinity', /"Infinity"/],
    ['1e999', /"1e999"/],
    ['7\nnot a number', /last line "not a number"/],
    ['x'.repeat(200), /"x{80}…"/],
  ])('output %j → error', (output, message) => {
    const result = evaluatePure({ type: 'output_numeric', target: 1 }, input(output));
    expect(result.verdict).toBe('error');
    expect(result.details.error).toMatch(message);
  });

  it.each([['five'], [''], ['${context.limit}']])('target %j that is not a number → error', (target) => {
    const result = evaluatePure({ type: 'output_numeric', target }, input('5'));
    expect(result.verdict).toBe('error');
    expect(result.details.error).toMatch(/target .* is not a number/);
  });

  it('unknown operator → error', () => {
    const config = { type: 'output_numeric', target: 1, operator: 'approx' } as unknown as PureEvaluatorConfig;
    const result = evaluatePure(config, input('1'));
    expect(result.verdict).toBe('error');
    expect(result.details.error).toMatch(/unknown operator "approx"/);
  });
});

describe('output_contains', () => {
  it.each([
    ['All tests passed', 'tests passed', false, true, 'yes'],
    ['3 failures', 'tests passed', false, false, 'no'],
    ['All tests passed', 'tests passed', true, true, 'no'],
    ['3 failures', 'tests passed', true, false, 'yes'],
  ])('%j / %j negate=%s → matched %s, %s', (output, pattern, negate, matched, verdict) => {
    expect(evaluatePure({ type: 'output_contains', pattern, negate }, input(output))).toEqual({
      verdict,
      details: { matched, pattern, negate },
    });
  });

  it.each([
    ['regex', 'abc', 'a.c', true],
    ['regex', 'ran 12 tests', '\\d+ tests', true],
    ['regex', 'line one\nDONE', '^DONE$', false],
    ['regex anchored', 'DONE\n', '^DONE', true],
    ['regex is case-sensitive', 'ERROR', 'error', false],
    ['regex, not substring', 'a.c', 'a\\.c', true],
    ['regex alternation', 'status: warn', 'ok|warn', true],
    ['invalid regex falls back to substring', 'call f(x', 'f(x', true],
    ['invalid regex, substring absent', 'call g', 'f(x', false],
    ['invalid regex with brackets', 'arr[0', 'arr[', true],
    ['invalid quantifier as substring', 'a *b', '*b', true],
  ])('%s: %j in %j → matched %s', (_why, output, pattern, matched) => {
    const result = evaluatePure({ type: 'output_contains', pattern }, input(output));
    expect(result.details.matched).toBe(matched);
    expect(result.verdict).toBe(matched ? 'yes' : 'no');
  });

  it('defaults negate to false', () => {
    expect(evaluatePure({ type: 'output_contains', pattern: 'x' }, input('x')).details.negate).toBe(false);
  });
});

describe('convergence', () => {
  it.each([
    [
      'seed: improved toward target',
      { target: 0, previous: '5' },
      '3',
      'progress',
      { current: 3, previous: 5, delta: -2 },
    ],
    ['seed: unchanged', { target: 0, previous: '5' }, '5', 'stall', { current: 5, previous: 5, delta: 0 }],
    ['seed: reached target', { target: 0, previous: '5' }, '0', 'target', { current: 0, previous: 5, delta: -5 }],
    ['worsened', { target: 0, previous: '5' }, '7', 'stall', { delta: 2 }],
    ['past the target counts', { target: 0, previous: '5' }, '-1', 'target', { current: -1 }],
    ['first measurement', { target: 0 }, '9', 'progress', { previous: null, delta: null }],
    ['first measurement at target', { target: 0 }, '0', 'target', { previous: null, delta: null }],
    ['within tolerance', { target: 0, tolerance: 2, previous: '5' }, '2', 'target', { tolerance: 2 }],
    ['just outside tolerance', { target: 0, tolerance: 2, previous: '5' }, '2.5', 'progress', { tolerance: 2 }],
    ['tolerance as string', { target: 10, tolerance: '0.5', previous: 12 }, '10.5', 'target', { tolerance: 0.5 }],
    ['target as string', { target: '3', previous: '9' }, '4', 'progress', { target: 3 }],
    ['toward alias', { toward: 10, previous: '20' }, '15', 'progress', { target: 10 }],
    ['target wins over toward', { target: 0, toward: 100, previous: '5' }, '50', 'stall', { target: 0 }],
    ['maximize improved', { target: 100, direction: 'maximize', previous: '50' }, '60', 'progress', { delta: 10 }],
    ['maximize worsened', { target: 100, direction: 'maximize', previous: '50' }, '40', 'stall', { delta: -10 }],
    ['maximize unchanged', { target: 100, direction: 'maximize', previous: '50' }, '50', 'stall', { delta: 0 }],
    ['maximize reached', { target: 100, direction: 'maximize', previous: '50' }, '100', 'target', {}],
    ['maximize past target', { target: 100, direction: 'maximize', previous: '50' }, '120', 'target', {}],
    ['maximize tolerance', { target: 100, tolerance: 5, direction: 'maximize', previous: '50' }, '95', 'target', {}],
    ['maximize first measurement', { target: 100, direction: 'maximize' }, '1', 'progress', { direction: 'maximize' }],
    ['previous from multi-line output', { target: 0, previous: 'errors:\n4\n' }, '3', 'progress', { previous: 4 }],
    ['current from last line', { target: 0, previous: '5' }, 'mypy done\n4', 'progress', { current: 4 }],
  ] as const)('%s', (_why, fields, output, verdict, details) => {
    const result = evaluatePure({ type: 'convergence', ...fields }, input(output));
    expect(result.verdict).toBe(verdict);
    expect(result.details).toMatchObject(details);
  });

  it('reports every detail', () => {
    expect(evaluatePure({ type: 'convergence', target: 0, previous: '5' }, input('3'))).toEqual({
      verdict: 'progress',
      details: { current: 3, previous: 5, target: 0, tolerance: 0, direction: 'minimize', delta: -2 },
    });
  });

  it.each([
    ['lastValue used without previous', {}, 5, '3', 'progress', 5],
    ['lastValue equal → stall', {}, 3, '3', 'stall', 3],
    ['empty previous falls back to lastValue', { previous: '' }, 3, '3', 'stall', 3],
    ['unparsable previous falls back to lastValue', { previous: 'n/a' }, 3, '2', 'progress', 3],
    ['previous wins over lastValue', { previous: '2' }, 9, '3', 'stall', 2],
    ['numeric previous', { previous: 4 }, undefined, '3', 'progress', 4],
    ['unparsable previous, no lastValue → first measurement', { previous: 'n/a' }, undefined, '3', 'progress', null],
  ] as const)('%s', (_why, fields, lastValue, output, verdict, previous) => {
    const result = evaluatePure({ type: 'convergence', target: 0, ...fields }, input(output, { lastValue }));
    expect(result.verdict).toBe(verdict);
    expect(result.details.previous).toBe(previous);
  });

  it.each([
    ['no target', {}, '3', /convergence needs target \(or toward\)/],
    ['non-numeric target', { target: 'zero' }, '3', /target "zero" is not a number/],
    ['non-numeric tolerance', { target: 0, tolerance: 'x' }, '3', /tolerance "x" is not a non-negative number/],
    ['negative tolerance', { target: 0, tolerance: -1 }, '3', /tolerance -1 is not a non-negative number/],
    ['unparsable output', { target: 0 }, 'lots', /could not parse a number from the output \("lots"\)/],
    ['empty output', { target: 0 }, '', /output is empty/],
    ['unknown direction', { target: 0, direction: 'sideways' }, '3', /unknown direction "sideways"/],
  ])('%s → error', (_why, fields, output, message) => {
    const config = { type: 'convergence', ...fields } as unknown as PureEvaluatorConfig;
    const result = evaluatePure(config, input(output));
    expect(result.verdict).toBe('error');
    expect(result.details.error).toMatch(message);
  });
});

describe('harbor_scorer', () => {
  it.each([
    ['0.75', 0, 'yes', { score: 0.75, exit_code: 0 }],
    ['  1.0\n', 0, 'yes', { score: 1, exit_code: 0 }],
    ['0', 0, 'yes', { score: 0, exit_code: 0 }],
    ['scoring 12 tasks\n0.5', 0, 'yes', { score: 0.5, exit_code: 0 }],
    ['0.75', 1, 'no', { exit_code: 1 }],
    ['', 2, 'no', { exit_code: 2 }],
    ['crash', 3, 'no', { exit_code: 3 }],
  ])('output %j exit %i → %s', (output, exitCode, verdict, details) => {
    expect(evaluatePure({ type: 'harbor_scorer' }, input(output, { exitCode }))).toEqual({ verdict, details });
  });

  it.each([[''], ['n/a'], ['score: high']])('exit 0 with %j → error', (output) => {
    const result = evaluatePure({ type: 'harbor_scorer' }, input(output));
    expect(result.verdict).toBe('error');
    expect(result.details.exit_code).toBe(0);
    expect(result.details.error).toMatch(/scorer printed no score/);
  });
});
