/**
 * `ll-loop test <loop> <state>`: one state's action really runs (bash; the fake host CLI for
 * prompts and LLM judgements), the core judges and routes it, and no run is started.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../support/cli.js';

const LOOP = `
name: checks
description: states to test
initial: check
context:
  greeting: hello
states:
  check:
    action: "echo \${context.greeting} > ran-check; echo all good"
    on_yes: done
    on_no: fix
  failing:
    action: "echo 'src/a.ts: 2 errors'; echo oops >&2; exit 1"
    on_yes: done
    on_no: fix
  measure:
    action: "echo 5"
    capture: count
    evaluate: { type: convergence, target: 0 }
    route: { target: done, progress: fix, stall: escalate }
  unrouted:
    action: "exit 1"
    on_yes: done
  secret:
    action: "curl -H \${env.LL_TEST_UNSET_VAR} example.invalid"
    on_yes: done
    on_no: fix
    on_error: escalate
  flaky:
    action: "echo try >> attempts; exit 1"
    retry: { attempts: 3, backoff: 0 }
    on_yes: done
    on_no: escalate
  review:
    action: "Review the change"
    action_type: prompt
    on_yes: done
    on_no: fix
    on_blocked: escalate
    on_partial: fix
  report:
    action: "echo errors were \${captured.count.output}"
    next: done
  parsed:
    action: "echo first \${captured.count.json.items}"
    next: done
  judged:
    action: "echo 1"
    evaluate: { type: output_numeric, operator: lt, target: "\${result.details.current}" }
    on_yes: done
    on_no: "\${prev.state}"
  child:
    loop: other
    on_success: done
    on_failure: escalate
  fix:
    action: "true"
    next: check
  done:
    terminal: true
  escalate:
    action: "echo escalating"
    terminal: true
    failure: true
`;

let dir: string;
const savedHost = process.env.LL_HOST_CLI;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'll-test-state-'));
  mkdirSync(join(dir, '.loops'));
  writeFileSync(join(dir, '.loops', 'checks.yaml'), LOOP);
  writeFileSync(
    join(dir, '.loops', 'other.yaml'),
    'name: other\ndescription: a child\ninitial: done\nstates:\n  done: {terminal: true}\n',
  );
  // Prompts and LLM judgements go through the host CLI, as in a run: the fake one answers yes.
  process.env.LL_HOST_CLI = join(import.meta.dirname, '..', 'fixtures', 'fake-claude');
});
afterAll(() => {
  if (savedHost === undefined) delete process.env.LL_HOST_CLI;
  else process.env.LL_HOST_CLI = savedHost;
  rmSync(dir, { recursive: true, force: true });
});

const test = (...argv: string[]) => runCliInProcess(['test', 'checks', ...argv], { cwd: dir });

describe('ll-loop test: a passing and a failing state', () => {
  it('runs the action and prints the route of a pass (exit 0)', async () => {
    const r = await test('check');
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(dir, 'ran-check'))).toBe(true);
    expect(r.stdout).toContain('action (shell): echo hello > ran-check; echo all good');
    expect(r.stdout).toMatch(/exit code 0 after \d+\.\d\d s\n {2}stdout:\n {4}\| all good\n/);
    expect(r.stdout).toMatch(/evaluator: exit_code\nverdict: yes\n/);
    expect(r.stdout).toContain('route: check → done (verdict yes)');
  });

  it('a failing check shows its output and the route of no', async () => {
    const r = await test('failing');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/stdout:\n {4}\| src\/a\.ts: 2 errors\n {2}stderr:\n {4}\| oops\n/);
    expect(r.stdout).toContain('verdict: no');
    expect(r.stdout).toContain('route: failing → fix (verdict no)');
  });

  it('--exit-code N judges without running the action', async () => {
    rmSync(join(dir, 'ran-check'), { force: true });
    const r = await test('check', '--exit-code', '1');
    expect(r.code).toBe(0);
    expect(existsSync(join(dir, 'ran-check'))).toBe(false);
    expect(r.stdout).toContain('not run: judged as if it exited 1 with no output (--exit-code)');
    expect(r.stdout).toContain('route: check → fix (verdict no)');
    const pass = await test('failing', '--exit-code', '0', '--json');
    const json = JSON.parse(pass.stdout) as {
      verdict: string;
      to: string;
      actions: Array<{ simulated: boolean; exit_code: number; output: string }>;
      exit_code: number;
    };
    expect(json).toMatchObject({ verdict: 'yes', to: 'done', exit_code: 0 });
    expect(json.actions).toEqual([expect.objectContaining({ simulated: true, exit_code: 0, output: '' })]);
  });

  it('any evaluator: convergence reads the number and routes progress', async () => {
    const r = await test('measure', '--json');
    const json = JSON.parse(r.stdout) as {
      evaluator: string;
      verdict: string;
      details: Record<string, unknown>;
      to: string;
    };
    expect(json).toMatchObject({
      evaluator: 'convergence',
      verdict: 'progress',
      to: 'fix',
      details: { current: 5, target: 0 },
    });
  });

  it('retries under retry: as a run would, without waiting for the delay', async () => {
    const r = await test('flaky', '--json');
    const json = JSON.parse(r.stdout) as { actions: unknown[]; verdict: string; to: string };
    expect(json.actions).toHaveLength(3);
    expect(json).toMatchObject({ verdict: 'no', to: 'escalate' });
  });

  it('a prompt action and its LLM judgement go through the host CLI', async () => {
    const r = await test('review');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('action (prompt): Review the change');
    expect(r.stdout).toContain('| done: Review the change');
    expect(r.stdout).toMatch(/evaluator: llm_structured\nverdict: yes\n/);
    expect(r.stdout).toContain('route: review → done (verdict yes)');
  });

  it('an action that cannot be prepared (an unset ${env.*}) is the error verdict, said as such', async () => {
    delete process.env.LL_TEST_UNSET_VAR;
    const r = await test('secret', '--json');
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout) as { verdict: string; to: string; action_error?: string };
    expect(json).toMatchObject({ verdict: 'error', to: 'escalate' });
    expect(json.action_error).toMatch(/LL_TEST_UNSET_VAR/);
  });

  it('a verdict nothing routes: the run would end with an error (exit 5)', async () => {
    const r = await test('unrouted');
    expect(r.code).toBe(5);
    expect(r.stdout).toMatch(
      /route: none — the run would end here with an error: no valid transition from state "unrouted" for verdict "no"/,
    );
  });

  it('terminal states run their action and say the run ends (a failure terminal: exit 2)', async () => {
    const r = await test('escalate');
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('| escalating');
    expect(r.stdout).toContain(
      '"escalate" is a failure terminal state: the run would end here (ll-loop run would exit 2)',
    );
  });

  it('starts no run: no events or state files under .loops/.running', () => {
    const running = join(dir, '.loops', '.running');
    const files = existsSync(running) ? readdirSync(running) : [];
    expect(files.filter((f) => f.endsWith('.jsonl') || f.endsWith('.json'))).toEqual([]);
  });
});

describe('ll-loop test: what it refuses, with the fix', () => {
  it('an unknown state, with did-you-mean', async () => {
    const r = await test('chek');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error: checks has no state "chek" (did you mean "check"?); its states: check, failing');
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });

  it('no state at all', async () => {
    const r = await runCliInProcess(['test', 'checks'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('test needs the state to run');
    expect(r.stderr).toContain('fix: ll-loop test checks check');
  });

  it('a sub-loop state', async () => {
    const r = await test('child');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('state "child" runs a sub-loop (loop: other); ll-loop test runs one state\'s action');
    expect(r.stderr).toContain("fix: test the child's states (ll-loop test other <state>)");
  });

  it('captured values: says which, and --captured passes them', async () => {
    const r = await test('report');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      '${captured.count.output} (action): no state has run before this one in a test, so nothing is captured; pass --captured count=VALUE',
    );
    const ok = await test('report', '--captured', 'count=7');
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('| errors were 7');
    expect(ok.stdout).toContain('route: report → done (next)');
    // One field of it, by name; a field a capture does not have is refused with the near name.
    const field = await test('report', '--captured', 'count.output=8', '--captured', 'count.exit_code=1');
    expect(field.code, field.stderr).toBe(0);
    expect(field.stdout).toContain('| errors were 8');
    const typo = await test('report', '--captured', 'count.outptu=8');
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain(
      'error: --captured "count.outptu=8": a capture\'s field to set is one of output, stderr, exit_code, not "outptu" (did you mean "output"?)',
    );
    const code = await test('report', '--captured', 'count.exit_code=one');
    expect(code.stderr).toContain('an exit code is a whole number');
    // A field no --captured gives (a schema's json, a join's count): refused with what to do instead.
    const parsed = await test('parsed', '--captured', 'count=7');
    expect(parsed.code).toBe(1);
    expect(parsed.stderr).toContain(
      '${captured.count.json.items} (action): a test cannot give a capture\'s "json" (--captured gives output, stderr, exit_code); write ${captured.count.json.items:-default} in the loop, or run the loop',
    );
  });

  it('the previous state and the last evaluation: says where, and how to write a fallback', async () => {
    const r = await test('judged');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('state "judged" reads values a single-state test does not have:');
    expect(r.stderr).toContain(
      '${result.details.current} (evaluate.target): no evaluation has run before this state in a test; write ${result.details.current:-default} in the loop',
    );
    expect(r.stderr).toContain('${prev.state} (on_no): the state run before this one does not exist in a test');
  });

  it('bad --exit-code', async () => {
    const r = await test('check', '--exit-code', 'x');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--exit-code "x" is not an exit code (0–255)');
  });
});
