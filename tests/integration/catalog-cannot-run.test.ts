/**
 * Every built-in, on the test run's real Temporal server: a loop that cannot run in a project ends
 * at once with the reason and the fix, never after burning its attempts. In a project where each
 * loop would reach its agent (HEALTHY), each of its command parameters in turn names a program
 * that is not installed (exit 127): the run ends in a failure terminal and calls the agent no
 * more once a command could not run; when the first command it runs is the missing one, it calls
 * no agent at all and its last words name the parameter to set. With the host CLI missing
 * (LL_HOST_CLI), the run ends at the first agent call, naming LL_HOST_CLI. Run as shipped in a
 * project without Node's tools, no built-in calls its agent.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { builtinLoopNames } from '../../loader/catalog.js';
import { closeTemporal, runLoop, toolEnv, type RunOutcome } from './harness.js';
import { builtin, prompts, repo, type Sandbox } from './catalog-sandbox.js';

afterAll(closeTemporal);

/** The project's "tools": each a script at its top (git ignores them); counters live in bin/. */
const SCRIPTS = {
  'pass.sh': 'exit 0',
  'fail.sh': 'echo "src/a.ts:1: a problem"; exit 1',
  'five.sh': 'echo 5',
  'types.sh': 'echo "src/a.ts(1,1): error TS2304: a problem"; exit 2',
  'diff.sh': 'printf "+a change\\n"',
  'files.sh': 'echo src/a.ts',
  // 5 at the baseline, 10 after: a regression.
  'bench.sh':
    'n=$(cat bin/.bench 2>/dev/null || echo 0); echo $((n + 1)) > bin/.bench; [ "$n" -eq 0 ] && echo 5 || echo 10',
  // Fails on every other run.
  'flaky.sh': 'n=$(cat bin/.flaky 2>/dev/null || echo 0); echo $((n + 1)) > bin/.flaky; [ $((n % 2)) -eq 0 ]',
};

/** For each built-in, parameters with which it runs to an agent call in the project. */
const HEALTHY: Record<string, Record<string, string>> = {
  'bisect-regression': { test_cmd: './fail.sh', good_ref: 'HEAD', bad_ref: 'HEAD' },
  build: { build_cmd: './fail.sh' },
  'check-matrix': { build_cmd: './pass.sh', type_cmd: './pass.sh', lint_cmd: './pass.sh', test_cmd: './fail.sh' },
  'code-run-gate': { run_cmd: './fail.sh', expected_file: '' },
  'complexity-ratchet': { metric_cmd: './five.sh', test_cmd: './pass.sh' },
  'coverage-up': { coverage_cmd: './five.sh', test_cmd: './pass.sh' },
  'dead-code': { find_cmd: './fail.sh', test_cmd: './pass.sh' },
  'dependency-upgrades': { outdated_cmd: './fail.sh', test_cmd: './pass.sh', install_cmd: './pass.sh' },
  'docs-sync': { links_cmd: './pass.sh', examples_cmd: './fail.sh' },
  'fan-out-files': { task: 'add a header', files_cmd: './files.sh', test_cmd: './pass.sh', setup_cmd: 'true' },
  'file-task': { task: 'add a header', file: 'src/a.ts', test_cmd: './pass.sh', setup_cmd: './pass.sh' },
  'fix-bug': { bug: 'a problem', test_cmd: './pass.sh' },
  'fix-lint': { lint_cmd: './fail.sh', fix_cmd: './pass.sh' },
  'fix-types': { type_cmd: './fail.sh' },
  'flaky-tests': { test_cmd: './flaky.sh', runs: '2' },
  format: { check_cmd: './fail.sh', format_cmd: './pass.sh' },
  'general-task': { task: 'add a header', test_cmd: './pass.sh', done_cmd: './fail.sh' },
  'incremental-refactor': { goal: 'split a.ts', test_cmd: './pass.sh' },
  'migrate-usage': { migration: 'drop it', pattern: 'problem', test_cmd: './pass.sh' },
  'perf-guard': { bench_cmd: './bench.sh', test_cmd: './pass.sh' },
  'reduce-errors': { count_cmd: './five.sh' },
  'review-and-fix': { diff_cmd: './diff.sh', test_cmd: './pass.sh' },
  'security-advisories': { audit_cmd: './fail.sh', test_cmd: './pass.sh' },
  'stricter-types': { type_cmd: './types.sh', test_cmd: './pass.sh' },
  'test-until-pass': { test_cmd: './fail.sh' },
};

/**
 * general-task's done_cmd runs the agent's definition of done, whose checks may call a program the
 * task is to create: its 127 before the work is a failing check, not a missing tool.
 */
const RUNS_WHAT_THE_AGENT_WROTE = new Set(['general-task.done_cmd']);

/** The command parameters of a built-in, in the order its file declares them. */
function commandParameters(name: string, p: Sandbox): string[] {
  const def = builtin(p, name, HEALTHY[name]!);
  return Object.entries(def.parameters ?? {})
    .filter(([param, spec]) => spec.type === 'command' && !RUNS_WHAT_THE_AGENT_WROTE.has(`${name}.${param}`))
    .map(([param]) => param);
}

const project = () => repo(SCRIPTS, { 'src/a.ts': 'let a = 1; // a problem\n' }, '/*.sh\nbin/\ntools/\nprompts/\n');

async function run(name: string, context: Record<string, string>, extraEnv: Record<string, string> = {}) {
  const p = project();
  const def = builtin(p, name, { ...HEALTHY[name]!, ...context });
  const outcome = await runLoop(def, { cwd: p.cwd, env: toolEnv(p, extraEnv) });
  const agentStates = new Set(
    Object.entries(def.states)
      .filter(
        ([, s]) =>
          s.action_type === 'prompt' ||
          s.evaluate?.type === 'llm_structured' ||
          s.loop !== undefined ||
          s.parallel !== undefined,
      )
      .map(([n]) => n),
  );
  return { ...outcome, p, agentStates, terminal: terminalWords(outcome) };
}

/** What the final state's action said (its action_start, values filled in). */
function terminalWords(outcome: RunOutcome): string {
  const last = outcome.events
    .filter((e) => e.event === 'action_start' && e.state === outcome.result.final_state)
    .at(-1);
  return String(last?.action ?? '');
}

/** The states entered after the first shell action that exited 126 or 127; undefined: none did. */
function afterNotRunnable(outcome: RunOutcome, agentStates: Set<string>): string[] | undefined {
  const i = outcome.events.findIndex(
    (e) =>
      e.event === 'action_complete' &&
      (e.exit_code === 126 || e.exit_code === 127) &&
      !agentStates.has(String(e.state)),
  );
  if (i < 0) return undefined;
  return outcome.events
    .slice(i)
    .filter((e) => e.event === 'state_enter')
    .map((e) => String(e.state));
}

describe('a built-in that cannot run', () => {
  it('every built-in has a project in which it reaches its agent', () => {
    expect(Object.keys(HEALTHY).sort()).toEqual(builtinLoopNames());
  });

  describe.each(builtinLoopNames())('%s', (name) => {
    it('with each command parameter naming a missing program: once it runs, a failure terminal and no agent call', async () => {
      const p = project();
      let ran = 0;
      for (const param of commandParameters(name, p)) {
        const r = await run(name, { [param]: `no-such-tool-${param.replace(/_/g, '-')} --flag` });
        const after = afterNotRunnable(r, r.agentStates);
        // A command this project's run never reaches (an install after a revert, …) proves nothing.
        if (after === undefined) continue;
        ran++;
        const where = `${name} with ${param} missing: ${r.states.join(' ')}`;
        expect(r.result.failure, where).toBe(true);
        expect(r.result.terminated_by, where).toBe('terminal');
        expect(
          after.filter((s) => r.agentStates.has(s)),
          where,
        ).toEqual([]);
      }
      // bisect-regression runs test_cmd inside git bisect, which reports it (the next test).
      if (name !== 'bisect-regression') expect(ran).toBeGreaterThan(0);
    });

    it('when the first command it runs is missing: no agent call, and its last words name the parameter', async () => {
      const p = project();
      const def = builtin(p, name, HEALTHY[name]!);
      const first = def.states[def.initial]!;
      const param = /^\$\{context\.([a-z_]+)\}$/.exec(String(first.action))?.[1] ?? 'test_cmd';
      const r = await run(name, { [param]: `no-such-tool --flag` });
      expect(prompts(r.p), `${name}: ${r.states.join(' ')}`).toEqual([]);
      expect(r.states.filter((s) => r.agentStates.has(s))).toEqual([]);
      expect(r.result).toMatchObject({ failure: true, terminated_by: 'terminal' });
      expect(r.terminal, `${name} ended in ${r.result.final_state}`).toContain(
        param.replace(/^clean_check_cmd$/, 'git'),
      );
    });
  });

  // bisect-regression runs no agent, and its test_cmd inside git bisect.
  describe.each(builtinLoopNames().filter((n) => n !== 'bisect-regression'))('%s as shipped', (name) => {
    it('in a project without its Node tools (no package.json, no node_modules): no agent call', async () => {
      const required = Object.fromEntries(
        Object.entries(HEALTHY[name]!).filter(([k]) =>
          ['task', 'file', 'goal', 'bug', 'migration', 'pattern'].includes(k),
        ),
      );
      const p = project();
      const def = builtin(p, name, required);
      const outcome = await runLoop(def, { cwd: p.cwd, env: toolEnv(p) });
      expect(prompts(p), `${name}: ${outcome.states.join(' ')}`).toEqual([]);
      expect(outcome.result.terminated_by).toBe('terminal');
      // docs-sync's own link check needs only git, and it has no examples to run here: done.
      expect(outcome.result.failure).toBe(name !== 'docs-sync');
    });
  });

  // npm with --silent says nothing when it has nothing to run, and exits 1 as a broken program does.
  it.each([
    ['a package.json without a start script', { 'package.json': '{"name":"p","version":"1.0.0","scripts":{}}\n' }],
    ['no package.json', {}],
  ])(
    'code-run-gate as shipped, with its expected output, in a project with %s: no agent call, names run_cmd',
    async (_, files) => {
      const p = repo(SCRIPTS, { 'expected-output.txt': '5\n', ...files });
      const def = builtin(p, 'code-run-gate', {});
      const outcome = await runLoop(def, { cwd: p.cwd, env: toolEnv(p) });
      expect(prompts(p), outcome.states.join(' ')).toEqual([]);
      expect(outcome.result).toMatchObject({ final_state: 'not_runnable', failure: true, terminated_by: 'terminal' });
      expect(terminalWords(outcome)).toContain('set run_cmd');
    },
  );

  describe.each(builtinLoopNames().filter((n) => n !== 'bisect-regression'))('%s without its agent', (name) => {
    it('ends at the first agent call, naming LL_HOST_CLI', async () => {
      const r = await run(name, {}, { LL_HOST_CLI: '/nonexistent/claude' });
      expect(r.result).toMatchObject({ failure: true, terminated_by: 'terminal' });
      const calls = r.states.filter((s) => r.agentStates.has(s));
      expect(calls, `${name}: ${r.states.join(' ')}`).toHaveLength(1);
      expect(r.terminal, `${name} ended in ${r.result.final_state}`).toContain('LL_HOST_CLI');
    });
  });
});
