/**
 * The `contract` and `comparator` evaluators on a real workflow, the judge being fake-claude (the
 * host CLI's wire format): contract pairs read from the run's directory and judged one question
 * each; a blind comparison against `<baseline_path>/output.txt`, bootstrapped and promoted.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeTemporal, definition, project, runLoop, toolEnv, verdicts } from './harness.js';

afterAll(closeTemporal);

const prompts = (log: string) =>
  readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { prompt: string }).prompt);
const evaluation = (run: Awaited<ReturnType<typeof runLoop>>) => run.events.find((e) => e.event === 'evaluate');

const contractLoop = (pairs: Array<Record<string, unknown>>) =>
  definition({
    name: 'contracted',
    initial: 'check',
    states: {
      check: {
        evaluate: { type: 'contract', pairs },
        route: { yes: 'aligned', no: 'mismatched', error: 'broken' },
      },
      aligned: { terminal: true },
      mismatched: { terminal: true },
      broken: { terminal: true, failure: true },
    },
  });

describe('contract evaluator', () => {
  it('answers yes when every pair is aligned, the files and the rule in the questions', async () => {
    const p = project();
    const log = join(p.cwd, 'judge.log');
    writeFileSync(join(p.cwd, 'api.json'), 'header\n{"user_id": 1}\n');
    writeFileSync(join(p.cwd, 'client.ts'), 'read(body.user_id)\n');
    const file = verdicts(p.cwd, [{ verdict: 'yes', confidence: 0.8, reason: 'same field' }]);
    const pairs = [
      { producer: 'api.json', consumer: 'client.ts', producer_pattern: '\\{.*\\}', contract: 'user_id is snake_case' },
    ];
    const run = await runLoop(contractLoop(pairs), {
      cwd: p.cwd,
      env: toolEnv(p, { FAKE_CLAUDE_VERDICTS: file, FAKE_CLAUDE_JUDGE_LOG: log }),
    });
    expect(run.result).toMatchObject({ final_state: 'aligned', failure: false });
    expect(evaluation(run)).toMatchObject({
      type: 'contract',
      verdict: 'yes',
      details: {
        pair_results: [
          { producer: 'api.json', consumer: 'client.ts', verdict: 'yes', confidence: 0.8, reason: 'same field' },
        ],
      },
    });
    const [question] = prompts(log);
    expect(question).toContain('Contract: user_id is snake_case');
    // The pattern's match, not the whole file.
    expect(question).toContain('<producer path="api.json">\n{"user_id": 1}\n</producer>');
    expect(question).toContain('<consumer path="client.ts">\nread(body.user_id)\n\n</consumer>');
  });

  it('answers no when one pair is misaligned, and error when a file is missing', async () => {
    const p = project();
    writeFileSync(join(p.cwd, 'a.txt'), 'userId');
    writeFileSync(join(p.cwd, 'b.txt'), 'user_id');
    const file = verdicts(p.cwd, [
      { verdict: 'yes', confidence: 0.9, reason: 'ok' },
      { verdict: 'no', confidence: 0.9, reason: 'casing differs' },
    ]);
    const env = toolEnv(p, { FAKE_CLAUDE_VERDICTS: file });
    const two = [
      { producer: 'a.txt', consumer: 'a.txt' },
      { producer: 'a.txt', consumer: 'b.txt' },
    ];
    const misaligned = await runLoop(contractLoop(two), { cwd: p.cwd, env });
    expect(misaligned.result).toMatchObject({ final_state: 'mismatched' });
    expect(evaluation(misaligned)).toMatchObject({
      verdict: 'no',
      details: { pair_results: [{ verdict: 'yes' }, { verdict: 'no', reason: 'casing differs' }] },
    });

    const missing = await runLoop(contractLoop([{ producer: 'gone.txt', consumer: 'b.txt' }]), { cwd: p.cwd, env });
    expect(missing.result).toMatchObject({ final_state: 'broken', failure: true });
    const details = evaluation(missing)?.details as { pair_results: Array<Record<string, unknown>>; error: string };
    expect(evaluation(missing)?.verdict).toBe('error');
    expect(details.pair_results[0]).toMatchObject({ producer: 'gone.txt', verdict: 'error' });
    expect(details.pair_results[0]!.error).toMatch(/cannot read producer file gone\.txt/);
  });
});

const comparatorLoop = (output: string, autoPromote: boolean, minPairs = 1) =>
  definition({
    name: 'compared',
    initial: 'write',
    states: {
      write: {
        action: `printf '${output}'`,
        evaluate: {
          type: 'comparator',
          baseline_path: 'baselines/compared',
          auto_promote: autoPromote,
          min_pairs: minPairs,
        },
        route: { yes: 'better', no: 'worse', tie: 'same', no_baseline: 'unset', error: 'broken' },
      },
      better: { terminal: true },
      worse: { terminal: true },
      same: { terminal: true },
      unset: { terminal: true },
      broken: { terminal: true, failure: true },
    },
  });

describe('comparator evaluator', () => {
  it('answers no_baseline without a baseline, and with auto_promote makes the output the baseline', async () => {
    const p = project();
    const log = join(p.cwd, 'judge.log');
    const env = toolEnv(p, { FAKE_CLAUDE_JUDGE_LOG: log });
    const baseline = join(p.cwd, 'baselines', 'compared', 'output.txt');

    const unset = await runLoop(comparatorLoop('first draft', false), { cwd: p.cwd, env });
    expect(unset.result).toMatchObject({ final_state: 'unset' });
    expect(evaluation(unset)).toMatchObject({ type: 'comparator', verdict: 'no_baseline' });
    expect(existsSync(baseline)).toBe(false);

    const bootstrapped = await runLoop(comparatorLoop('first draft', true), { cwd: p.cwd, env });
    expect(bootstrapped.result).toMatchObject({ final_state: 'better' });
    expect(evaluation(bootstrapped)).toMatchObject({ verdict: 'yes', details: { bootstrapped: true } });
    expect(readFileSync(baseline, 'utf8')).toBe('first draft');
    // Nothing was compared: the judge was never asked.
    expect(existsSync(log)).toBe(false);
  });

  it('answers yes for a better output, blind, and promotes it; no for a worse one', async () => {
    const p = project();
    const log = join(p.cwd, 'judge.log');
    mkdirSync(join(p.cwd, 'baselines', 'compared'), { recursive: true });
    const baseline = join(p.cwd, 'baselines', 'compared', 'output.txt');
    writeFileSync(baseline, 'old answer');
    const env = toolEnv(p, { FAKE_CLAUDE_JUDGE_LOG: log, FAKE_CLAUDE_PREFER: 'tested' });

    const better = await runLoop(comparatorLoop('new answer, tested', true, 4), { cwd: p.cwd, env });
    expect(better.result).toMatchObject({ final_state: 'better' });
    expect(evaluation(better)).toMatchObject({
      verdict: 'yes',
      details: { harness_wins: 4, baseline_wins: 0, min_pairs: 4, promoted: true },
    });
    expect(readFileSync(baseline, 'utf8')).toBe('new answer, tested');
    const asked = prompts(log);
    expect(asked).toHaveLength(4);
    for (const q of asked) expect(q).toMatch(/<output_a>[\s\S]*<\/output_a>\n\n<output_b>[\s\S]*<\/output_b>$/);

    const worse = await runLoop(comparatorLoop('a guess', true), { cwd: p.cwd, env });
    expect(worse.result).toMatchObject({ final_state: 'worse' });
    expect(evaluation(worse)).toMatchObject({ verdict: 'no', details: { harness_wins: 0, baseline_wins: 1 } });
    expect(readFileSync(baseline, 'utf8')).toBe('new answer, tested');
  });
});
