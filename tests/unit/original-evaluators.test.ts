/** The original's `classify` and `score_stall` evaluators: table-driven, through the registry's entry point. */
import { describe, expect, it } from 'vitest';
import { evaluatePure, type PureEvaluatorConfig } from '../../fsm/evaluators/index.js';

const run = (config: PureEvaluatorConfig, output: string, exitCode = 0) =>
  evaluatePure(config, { output, exitCode, abnormal: false });

describe('classify', () => {
  it.each([
    ['RUN_CHILD\n', {}, 'RUN_CHILD'],
    ['log line\nmore\nFINISH\n\n', {}, 'FINISH'],
    ['  STOP  reason given\n', {}, 'STOP'],
    ['WIRE\nlog\n', { line: 'first' }, 'WIRE'],
    ['a\nb\nc\n', { line: 1 }, 'b'],
    ['a\nb\nc\n', { line: -2 }, 'b'],
    ['yes-or-no\n', {}, 'yes-or-no'],
  ] as const)('%j %j → %s', (output, extra, verdict) => {
    expect(run({ type: 'classify', ...extra }, output).verdict).toBe(verdict);
  });

  it.each([
    ['', {}, /output is empty/],
    ['\n  \n', {}, /output is empty/],
    ['a\n', { line: 3 }, /line 3 does not exist/],
    ['{"x": 1}\n', {}, /is not a verdict/],
  ] as const)('%j %j is an error', (output, extra, message) => {
    const result = run({ type: 'classify', ...extra }, output);
    expect(result.verdict).toBe('error');
    expect(String(result.details.error)).toMatch(message);
  });

  it('the line read is in the details', () => {
    expect(run({ type: 'classify' }, 'FINISH done\n').details).toEqual({ line: 'last', text: 'FINISH done' });
  });
});

describe('score_stall', () => {
  it.each([
    ['one score never stalls', '5\n', {}, 'yes', 0],
    ['an improvement of epsilon is progress', '5\n5.5\n', {}, 'yes', 0],
    ['less than epsilon is a stalled round', '5\n5.4\n', {}, 'no', 1],
    ['a drop is a stalled round', '5\n3\n', {}, 'no', 1],
    ['max_stall rounds must stall in a row', '5\n5.1\n', { max_stall: 2 }, 'yes', 1],
    ['two stalled rounds reach max_stall 2', '5\n5.1\n5.2\n', { max_stall: 2 }, 'no', 2],
    ['progress resets the count', '1\n1.1\n3\n3.1\n', { max_stall: 2 }, 'yes', 1],
    ['progress is measured against the best so far', '1\n9\n2\n9.2\n', { max_stall: 2, epsilon: 0.5 }, 'no', 2],
    ['epsilon 0 counts any rise', '1\n1.01\n', { epsilon: 0 }, 'yes', 0],
    ['an empty history is no stall', '', {}, 'yes', 0],
  ] as const)('%s', (_, output, extra, verdict, stall) => {
    const result = run({ type: 'score_stall', ...extra }, output);
    expect(result.verdict).toBe(verdict);
    expect(result.details.stall_count).toBe(stall);
  });

  it('a line that is not a number is an error', () => {
    const result = run({ type: 'score_stall' }, '5\nscore: 6\n');
    expect(result.verdict).toBe('error');
    expect(String(result.details.error)).toMatch(/"score: 6" is not a score/);
  });
});

describe('open_question_stall', () => {
  it.each([
    ['one count never stalls', '4\n', {}, 'yes', 0],
    ['a lower count is progress', '4\n3\n', {}, 'yes', 0],
    ['the same count is a stalled round (epsilon 0: strictly lower)', '4\n4\n', {}, 'no', 1],
    ['a higher count is a stalled round', '4\n6\n', {}, 'no', 1],
    ['progress is against the lowest so far', '4\n2\n3\n', { max_stall: 2 }, 'yes', 1],
    ['epsilon asks for a larger drop', '4\n3\n', { epsilon: 1 }, 'no', 1],
  ] as const)('%s', (_, output, extra, verdict, stall) => {
    const result = run({ type: 'open_question_stall', ...extra }, output);
    expect(result.verdict).toBe(verdict);
    expect(result.details.stall_count).toBe(stall);
  });
});
