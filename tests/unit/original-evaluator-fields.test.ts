/**
 * Evaluator fields of little-loops that its catalog uses: `output_numeric`'s `key` (and its unread
 * `path`), `output_contains`' `error_patterns`. Loops written here, never the original's files.
 */
import { describe, expect, it } from 'vitest';
import { validateLoop } from '../../fsm/definition/validate.js';
import { evaluatePure, type PureEvaluatorConfig } from '../../fsm/evaluators/index.js';
import type { OutputContainsConfig } from '../../fsm/evaluators/pure-config.js';

const run = (config: PureEvaluatorConfig, output: string) =>
  evaluatePure(config, { output, exitCode: 0, abnormal: false });

const loopWith = (evaluate: Record<string, unknown>) => ({
  name: 'x',
  description: 'd',
  initial: 'a',
  states: {
    a: { action: 'make', evaluate, on_yes: 'done', on_no: 'done', on_error: 'done' },
    done: { terminal: true },
  },
});

describe('output_numeric key: the last <key>=<number> field of the output', () => {
  it.each([
    ['exit_code=0 pass_rate=0.97', 'pass_rate', 'ge', 0.95, 'yes', 0.97],
    ['pass_rate=0.5\nexit_code=1 pass_rate=0.9', 'pass_rate', 'ge', 0.95, 'no', 0.9],
    ['remaining_findings = 0\n', 'remaining_findings', 'eq', 0, 'yes', 0],
    ['a.b=3 ab=7', 'a.b', 'eq', 3, 'yes', 3],
    ['n=-2.5e1', 'n', 'lt', 0, 'yes', -25],
  ] as const)('%j, key %s %s %s → %s', (output, key, operator, target, verdict, value) => {
    const result = run({ type: 'output_numeric', key, operator, target }, output);
    expect(result).toEqual({ verdict, details: { value, target, operator } });
  });

  it.each([
    ['0.97', /no pass_rate=<number> field/],
    ['pass_rate=high', /no pass_rate=<number> field/],
    ['', /no pass_rate=<number> field/],
  ])('%j without the field is an error', (output, message) => {
    const result = run({ type: 'output_numeric', key: 'pass_rate', target: 1 }, output);
    expect(result.verdict).toBe('error');
    expect(String(result.details.error)).toMatch(message);
  });

  it('a loop with key: and path: loads; path: is noted as read by nothing', () => {
    const result = validateLoop(loopWith({ type: 'output_numeric', key: 'n', path: 'output_length', target: 0 }));
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(result.definition).toBeDefined();
    expect(result.diagnostics.filter((d) => d.severity === 'note').map((d) => d.message)).toEqual([
      expect.stringMatching(/^path: on output_numeric: accepted and read by nothing/),
    ]);
  });

  it('a misspelled field is still an error with a did-you-mean', () => {
    const result = validateLoop(loopWith({ type: 'output_numeric', keys: 'n', target: 0 }));
    expect(result.definition).toBeUndefined();
    expect(result.diagnostics.map((d) => d.message).join('\n')).toMatch(/unknown field "keys" \(did you mean "key"/);
  });
});

describe('output_contains error_patterns: an error verdict when the pattern is not found', () => {
  const config: OutputContainsConfig = {
    type: 'output_contains',
    pattern: 'LIMIT_EXCEEDED',
    error_patterns: ['AUTH_FAILURE', '401'],
  };

  it.each([
    ['RETRY 2 of 3', 'no'],
    ['LIMIT_EXCEEDED after AUTH_FAILURE', 'yes'],
    ['AUTH_FAILURE_DETECTED', 'error'],
    ['HTTP 401', 'error'],
  ] as const)('%j → %s', (output, verdict) => {
    expect(run(config, output).verdict).toBe(verdict);
  });

  it('the error names the pattern it found', () => {
    expect(run(config, 'HTTP 401').details).toMatchObject({
      error_pattern: '401',
      error: expect.stringMatching(/"401"/),
    });
  });

  it('with negate the error patterns are not read', () => {
    expect(run({ ...config, negate: true }, 'HTTP 401').verdict).toBe('yes');
  });

  it('a loop with error_patterns loads', () => {
    const result = validateLoop(loopWith({ ...config, error_patterns: ['AUTH_FAILURE'] }));
    expect(result.diagnostics.filter((d) => d.severity !== 'warning')).toEqual([]);
    expect(result.definition).toBeDefined();
  });
});

describe("a terminal state's output: (little-loops ignores it)", () => {
  it('loads with a note; a misspelling of a state field is still an error', () => {
    const raw = {
      name: 'x',
      description: 'd',
      initial: 'a',
      states: {
        a: { action: 'make', next: 'done' },
        done: { terminal: true, output: { plan: '${captured.plan.output:-}' } },
      },
    };
    const result = validateLoop(raw);
    expect(result.definition).toBeDefined();
    expect(result.diagnostics.map((d) => `${d.severity}: ${d.message}`)).toEqual([
      expect.stringMatching(/^note: output: accepted: read by nothing, as in little-loops/),
    ]);
    const typo = validateLoop({ ...raw, states: { ...raw.states, done: { terminal: true, outptu: 1 } } });
    expect(typo.definition).toBeUndefined();
    expect(typo.diagnostics.map((d) => d.message).join('\n')).toMatch(
      /unknown state field "outptu" \(did you mean "output"/,
    );
  });
});
