/**
 * Seed 001's six "Complete Examples", loaded from YAML exactly as written and run on the real
 * Temporal dev server. Tools (pytest, mypy, ruff, git, notify-team) are scripted stand-ins on
 * PATH; prompt and LLM states go through the fake host CLI.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadLoopFile } from '../../loader/load.js';
import { closeTemporal, FIXTURES, project, runLoop, script, toolEnv, verdicts } from './harness.js';

afterAll(closeTemporal);

function seedExample(name: string) {
  const loaded = loadLoopFile(join(FIXTURES, 'seed-examples', `${name}.yaml`));
  if (!loaded.definition) throw new Error(JSON.stringify(loaded.diagnostics, null, 2));
  return loaded.definition;
}

function calls(toolsDir: string): Array<{ tool: string; args: string[]; stdin: string }> {
  return readFileSync(join(toolsDir, 'calls.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

const MYPY_3 = 'src/a.py:1: error: x\nsrc/b.py:2: error: y\nsrc/c.py:3: error: z\n';
const MYPY_1 = 'src/a.py:1: error: x\n';

describe('seed 001 complete examples', () => {
  it('1. test-until-pass: test → fix → test → done', async () => {
    const p = project(['pytest', 'git']);
    script(p.toolsDir, 'pytest', [
      [1, '1 failed'],
      [0, '3 passed'],
    ]);
    const run = await runLoop(seedExample('test-until-pass'), { cwd: p.cwd, env: toolEnv(p) });
    expect(run.states).toEqual(['test', 'fix', 'test', 'done']);
    expect(run.result).toMatchObject({ final_state: 'done', terminated_by: 'terminal', iterations: 2, failure: false });
    expect(calls(p.toolsDir).map((c) => [c.tool, ...c.args].join(' '))).toEqual(['pytest', 'git stash pop', 'pytest']);
    expect(run.result.captured).toEqual({});
  });

  it('2. fix-types: mypy fails, the prompt fix is judged by the LLM, mypy passes', async () => {
    const p = project(['mypy']);
    script(p.toolsDir, 'mypy', [
      [1, MYPY_1],
      [0, 'Success'],
    ]);
    const file = verdicts(p.cwd, [{ verdict: 'yes', confidence: 0.9, reason: 'fixed the annotation' }]);
    const log = join(p.cwd, 'claude.log');
    const run = await runLoop(seedExample('fix-types'), {
      cwd: p.cwd,
      env: toolEnv(p, { FAKE_CLAUDE_VERDICTS: file, FAKE_CLAUDE_LOG: log }),
    });
    expect(run.states).toEqual(['check', 'fix', 'check', 'done']);
    expect(run.result).toMatchObject({ final_state: 'done', terminated_by: 'terminal', iterations: 2 });
    const prompt = JSON.parse(readFileSync(log, 'utf8').trim()) as { prompt: string; args: string[] };
    expect(prompt.prompt).toBe('/ll:manage-issue bug fix');
    expect(prompt.args).toContain('--dangerously-skip-permissions');
    const evaluation = run.events.find((e) => e.event === 'evaluate' && e.state === 'fix');
    expect(evaluation).toMatchObject({ type: 'llm_structured', verdict: 'yes', confidence: 0.9 });
  });

  it('3. smart-fix: partial → probe (2 errors) → fix → verify → done', async () => {
    const p = project(['mypy', 'pytest']);
    script(p.toolsDir, 'mypy', [[1, 'a.py:1: error: x\na.py:2: error: y\n']]);
    script(p.toolsDir, 'pytest', [[0, 'ok']]);
    const file = verdicts(p.cwd, [
      { verdict: 'partial', confidence: 0.9, reason: 'half done' },
      { verdict: 'yes', confidence: 0.95, reason: 'done' },
    ]);
    const run = await runLoop(seedExample('smart-fix'), {
      cwd: p.cwd,
      env: toolEnv(p, { FAKE_CLAUDE_VERDICTS: file }),
    });
    expect(run.states).toEqual(['fix', 'probe', 'fix', 'verify', 'done']);
    const probe = run.events.find((e) => e.event === 'evaluate' && e.state === 'probe');
    expect(probe).toMatchObject({ type: 'output_numeric', verdict: 'no' });
    expect((probe?.details as { value: number }).value).toBe(2);
    expect(run.result).toMatchObject({ final_state: 'done', terminated_by: 'terminal' });
  });

  it('3b. smart-fix: blocked → escalate passes the reason to notify-team as data', async () => {
    const p = project(['notify-team']);
    const reason = `needs a human: it's "stuck"; $(touch pwned) \`touch pwned2\``;
    const file = verdicts(p.cwd, [{ verdict: 'blocked', confidence: 0.9, reason }]);
    const run = await runLoop(seedExample('smart-fix'), {
      cwd: p.cwd,
      env: toolEnv(p, { FAKE_CLAUDE_VERDICTS: file }),
    });
    expect(run.states).toEqual(['fix', 'escalate']);
    expect(run.result).toMatchObject({ final_state: 'escalate', terminated_by: 'terminal' });
    const notify = calls(p.toolsDir).find((c) => c.tool === 'notify-team');
    expect(notify?.stdin).toBe(`Blocked: ${reason}\n`);
    expect(() => readFileSync(join(p.cwd, 'pwned'))).toThrow();
    expect(() => readFileSync(join(p.cwd, 'pwned2'))).toThrow();
  });

  it('4. reduce-errors: measure 3 → fix → 1 → fix → 0 → done, capturing the count', async () => {
    const p = project(['mypy']);
    script(p.toolsDir, 'mypy', [
      [1, MYPY_3],
      [1, MYPY_1],
      [0, 'Success: no issues found\n'],
    ]);
    const run = await runLoop(seedExample('reduce-errors'), { cwd: p.cwd, env: toolEnv(p) });
    expect(run.states).toEqual(['measure', 'fix', 'measure', 'fix', 'measure', 'done']);
    const verdictsSeen = run.events.filter((e) => e.event === 'evaluate').map((e) => e.verdict);
    expect(verdictsSeen).toEqual(['progress', 'progress', 'target']);
    // `grep -c` prints 0 and exits 1 when nothing matches, so `|| echo 0` prints a second 0.
    expect(run.result.captured.errors).toMatchObject({ output: '0\n0', exit_code: 0 });
    const done = run.events.find((e) => e.event === 'action_start' && e.state === 'done');
    expect(done?.action).toBe("echo 'Finished with 0\n0 errors'");
    expect(run.result).toMatchObject({ final_state: 'done', terminated_by: 'terminal', iterations: 3 });
  });

  it('5. ci-checks: lint fails, fix_lint, lint passes, typecheck fails → done (no LLM)', async () => {
    const p = project(['ruff', 'mypy', 'pytest']);
    script(p.toolsDir, 'ruff', [
      [1, 'E501'],
      [0, 'fixed'],
      [0, 'All checks passed!'],
    ]);
    script(p.toolsDir, 'mypy', [[1, MYPY_1]]);
    const run = await runLoop(seedExample('ci-checks'), { cwd: p.cwd, env: toolEnv(p) });
    expect(run.states).toEqual(['lint', 'fix_lint', 'lint', 'typecheck', 'done']);
    expect(calls(p.toolsDir).map((c) => [c.tool, ...c.args].join(' '))).toEqual([
      'ruff check src/',
      'ruff check src/ --fix',
      'ruff check src/',
      'mypy src/',
    ]);
    expect(run.result).toMatchObject({ final_state: 'done', terminated_by: 'terminal', iterations: 2 });
  });

  it('6. safe-refactor: found opportunities, low-confidence yes → manual_check', async () => {
    const p = project([]);
    const file = verdicts(p.cwd, [
      { verdict: 'found_opportunities', confidence: 0.9, opportunities: ['split module'] },
      { verdict: 'yes', confidence: 0.6, reason: 'tests untouched' },
    ]);
    const run = await runLoop(seedExample('safe-refactor'), {
      cwd: p.cwd,
      env: toolEnv(p, { FAKE_CLAUDE_VERDICTS: file }),
    });
    expect(run.states).toEqual(['analyze', 'refactor', 'manual_check']);
    const refactor = run.events.find((e) => e.event === 'evaluate' && e.state === 'refactor');
    expect(refactor).toMatchObject({ verdict: 'yes_uncertain', confidence: 0.6 });
    const manual = run.events.find((e) => e.event === 'action_start' && e.state === 'manual_check');
    expect(manual?.action).toBe("echo 'Low confidence refactor - needs review: tests untouched'");
    expect(run.result).toMatchObject({ final_state: 'manual_check', terminated_by: 'terminal' });
  });
});
