/** output_json: jq-style paths and comparisons (split from evaluators.test.ts). */
import { describe, expect, it } from 'vitest';
import { evaluatePure, parseJsonPath, type EvalInput } from '../../fsm/evaluators/index.js';

/** An input with ordinary defaults: exit 0, not abnormal, no last value. */
function input(output: string, overrides: Partial<EvalInput> = {}): EvalInput {
  return { output, exitCode: 0, abnormal: false, ...overrides };
}

describe('output_json paths', () => {
  const doc = JSON.stringify({
    summary: { failed: 2, passed: 10 },
    items: [{ name: 'a' }, { name: 'b' }, { name: 'c' }],
    'key with space': 'spaced',
    matrix: [
      [1, 2],
      [3, 4],
    ],
    nothing: null,
  });

  it.each([
    ['.', JSON.parse(doc) as unknown],
    ['.summary.failed', 2],
    ['.items[0].name', 'a'],
    ['.items[1].name', 'b'],
    ['.items[-1].name', 'c'],
    ['.items[-3].name', 'a'],
    ['.["key with space"]', 'spaced'],
    ['."key with space"', 'spaced'],
    ['.summary["failed"]', 2],
    ['.["summary"]', { failed: 2, passed: 10 }],
    ['.matrix[1][0]', 3],
    ['.items.[2].name', 'c'],
    ['  .summary.passed  ', 10],
    ['.nothing', null],
  ])('%s', (path, value) => {
    const result = evaluatePure({ type: 'output_json', path, target: value }, input(doc));
    expect(result.verdict).toBe('yes');
    expect(result.details.value).toEqual(value);
  });

  it.each([
    ['.missing'],
    ['.summary.skipped'],
    ['.items[3]'],
    ['.items[-4]'],
    ['.nothing.deeper'],
    ['.missing.deeper[0]'],
  ])('missing %s → no with value null and missing: true', (path) => {
    expect(evaluatePure({ type: 'output_json', path, target: 0 }, input(doc))).toEqual({
      verdict: 'no',
      details: { value: null, missing: true, path, target: 0, operator: 'eq' },
    });
  });

  it.each([
    ['eq', 'no'],
    ['ne', 'yes'],
    ['lt', 'no'],
    ['le', 'no'],
    ['gt', 'no'],
    ['ge', 'no'],
  ] as const)('missing value with %s → %s', (operator, verdict) => {
    expect(evaluatePure({ type: 'output_json', path: '.missing', operator, target: 1 }, input(doc)).verdict).toBe(
      verdict,
    );
  });

  it.each([
    ['.summary.failed.x', /cannot read key "x" of number at \.summary\.failed/],
    ['.summary[0]', /cannot index object at \.summary with \[0\]/],
    ['.items.name', /cannot read key "name" of array at \.items/],
  ])('%s on the wrong kind of value → error', (path, message) => {
    const result = evaluatePure({ type: 'output_json', path, target: 1 }, input(doc));
    expect(result.verdict).toBe('error');
    expect(result.details.error).toMatch(message);
  });

  it.each([
    ['summary', /at character 1: a path starts with "\."/],
    ['', /a path starts with "\."/],
    ['..a', /unexpected "\." after "\."/],
    ['.a.', /a "\." must be followed by a key/],
    ['.a[', /expected an integer index or a quoted key/],
    ['.a[x]', /expected an integer index or a quoted key/],
    ['.a[0', /expected "\]"/],
    ['.a[1.5]', /expected "\]"/],
    ['.["unterminated]', /unterminated quoted key/],
    ['.["bad \\q escape"]', /invalid escape/],
    ['.a b', /unexpected " "/],
    ['.a-b', /unexpected "-"/],
    ['.1a', /unexpected "1" after "\."/],
  ])('malformed path %j → error', (path, message) => {
    const parsed = parseJsonPath(path);
    expect(parsed.ok).toBe(false);
    const result = evaluatePure({ type: 'output_json', path, target: 1 }, input(doc));
    expect(result.verdict).toBe('error');
    expect(result.details.error).toMatch(/^malformed JSON path/);
    expect(result.details.error).toMatch(message);
  });

  it.each([
    ['.', []],
    ['.a.b', ['a', 'b']],
    ['.a[0].b', ['a', 0, 'b']],
    ['.a[-1]', ['a', -1]],
    ['.["key with space"]', ['key with space']],
    ['.["quote \\" inside"]', ['quote " inside']],
    ['."k"[2]', ['k', 2]],
  ])('parseJsonPath(%j)', (path, segments) => {
    expect(parseJsonPath(path)).toEqual({ ok: true, segments });
  });
});

describe('output_json comparisons', () => {
  const json = (value: unknown) => input(JSON.stringify({ v: value }));

  it.each([
    [0, 'eq', 0, 'yes'],
    [0, 'eq', '0', 'yes'],
    ['0', 'eq', 0, 'yes'],
    [1.5, 'eq', '1.50', 'yes'],
    [0, 'eq', 1, 'no'],
    [0, 'eq', 'zero', 'no'],
    ['0', 'eq', '0.0', 'no'],
    ['abc', 'eq', 'abc', 'yes'],
    [true, 'eq', true, 'yes'],
    [null, 'eq', null, 'yes'],
    [[1, { a: 2 }], 'eq', [1, { a: 2 }], 'yes'],
    [{ a: 1, b: [2] }, 'eq', { b: [2], a: 1 }, 'yes'],
    [{ a: 1 }, 'eq', { a: 1, b: 2 }, 'no'],
    [[1, 2], 'eq', [2, 1], 'no'],
    [[], 'eq', {}, 'no'],
    [0, 'ne', '0', 'no'],
    [0, 'ne', 1, 'yes'],
    [{ a: 1 }, 'ne', { a: 2 }, 'yes'],
  ] as const)('%j %s %j → %s', (value, operator, target, verdict) => {
    expect(evaluatePure({ type: 'output_json', path: '.v', operator, target }, json(value))).toEqual({
      verdict,
      details: { value, path: '.v', target, operator },
    });
  });

  it.each([
    [1, 'lt', 2, 'yes'],
    [2, 'lt', 2, 'no'],
    [2, 'le', 2, 'yes'],
    [3, 'le', 2, 'no'],
    [3, 'gt', 2, 'yes'],
    [2, 'gt', 2, 'no'],
    [2, 'ge', '2', 'yes'],
    ['1', 'ge', 2, 'no'],
    ['10', 'gt', '9', 'yes'],
  ] as const)('%j %s %j → %s', (value, operator, target, verdict) => {
    expect(evaluatePure({ type: 'output_json', path: '.v', operator, target }, json(value)).verdict).toBe(verdict);
  });

  it.each([
    ['abc', 'lt', 1, /the value at \.v is string "abc"/],
    [true, 'gt', 0, /the value at \.v is boolean true/],
    [[1], 'ge', 1, /the value at \.v is array \[1\]/],
    [1, 'le', 'many', /the target is string "many"/],
    [1, 'lt', null, /the target is null null/],
  ] as const)('%j %s %j needs numbers → error', (value, operator, target, message) => {
    const result = evaluatePure({ type: 'output_json', path: '.v', operator, target }, json(value));
    expect(result.verdict).toBe('error');
    expect(result.details.error).toMatch(message);
  });

  it.each([
    [1, 'yes'],
    ['x', 'yes'],
    [true, 'yes'],
    [[0], 'yes'],
    [{ a: null }, 'yes'],
    [-1, 'yes'],
    [0, 'no'],
    ['', 'no'],
    [false, 'no'],
    [null, 'no'],
    [[], 'no'],
    [{}, 'no'],
  ])('no target: %j is truthy → %s', (value, verdict) => {
    expect(evaluatePure({ type: 'output_json', path: '.v' }, json(value))).toEqual({
      verdict,
      details: { value, path: '.v', target: null, operator: 'eq' },
    });
  });

  it.each([['eq'], ['ne']] as const)('no target and a missing value → no (operator %s)', (operator) => {
    expect(evaluatePure({ type: 'output_json', path: '.absent', operator }, json(1))).toEqual({
      verdict: 'no',
      details: { value: null, missing: true, path: '.absent', target: null, operator },
    });
  });

  it.each([
    ['', /output is not valid JSON .*: the output is empty/],
    ['{"a": 1', /output is not valid JSON/],
    ['passed: 3', /output is not valid JSON .*"passed: 3"/],
  ])('unparsable output %j → error', (output, message) => {
    const result = evaluatePure({ type: 'output_json', path: '.a', target: 1 }, input(output));
    expect(result.verdict).toBe('error');
    expect(result.details.error).toMatch(message);
  });

  it('parses output with surrounding whitespace', () => {
    expect(evaluatePure({ type: 'output_json', path: '.a', target: 1 }, input('\n  {"a": 1}\n')).verdict).toBe('yes');
  });
});
