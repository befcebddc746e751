/**
 * The gate built-ins (format, build, check-matrix, security-advisories) run on the test run's real
 * Temporal server with a scripted agent: the honest fixer reaches `done`; a checker that cannot run
 * ends at once in the not-runnable terminal, before any agent call; check-matrix starts over after
 * each fix, so a fix that breaks an earlier check is caught; security-advisories runs the tests
 * after every upgrade.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeTemporal } from './harness.js';
import { builtin, failsWhile, prompts, runIn, sandbox } from './catalog-sandbox.js';

afterAll(closeTemporal);

describe('build', () => {
  it('builds, lets the agent fix the errors one per attempt, and ends in done', async () => {
    const p = sandbox(
      { 'build.sh': failsWhile('errors.txt', 2), 'agent.sh': "sed -i '1d' errors.txt" },
      { 'errors.txt': "src/a.ts(3,1): error TS1005: ';' expected.\nsrc/b.ts(9,2): error TS2304\n" },
    );
    const { result, states } = await runIn(p, builtin(p, 'build', { build_cmd: './build.sh' }));
    expect(states).toEqual(['build', 'triage', 'budget', 'fix', 'build', 'triage', 'budget', 'fix', 'build', 'done']);
    expect(result).toMatchObject({ final_state: 'done', failure: false, iterations: 3 });
    expect(prompts(p)[0]).toContain('The build `./build.sh` fails (fix attempt 1 of 5).');
  });

  it('ends in agent_failed when the host CLI fails (its message renders without an error text)', async () => {
    const p = sandbox(
      { 'build.sh': failsWhile('errors.txt'), 'agent.sh': 'echo "agent crashed" >&2; exit 3' },
      { 'errors.txt': 'e\n' },
    );
    const { result, states } = await runIn(p, builtin(p, 'build', { build_cmd: './build.sh' }));
    expect(states.slice(-2)).toEqual(['fix', 'agent_failed']);
    expect(result).toMatchObject({ terminated_by: 'terminal', final_state: 'agent_failed', failure: true });
  });

  it('ends at once in not_runnable when the build command is missing (exit 127), without the agent', async () => {
    const p = sandbox({});
    const { result, states } = await runIn(p, builtin(p, 'build', { build_cmd: './no-such-build' }));
    expect(states).toEqual(['build', 'triage', 'not_runnable']);
    expect(result).toMatchObject({ final_state: 'not_runnable', failure: true });
    expect(result.captured.build?.exit_code).toBe(127);
    expect(prompts(p)).toEqual([]);
  });
});

describe('format', () => {
  // unformatted.txt lists the badly formatted files; the formatter fixes the "auto" ones.
  const FORMAT = {
    'check.sh': failsWhile('unformatted.txt'),
    'formatter.sh': "sed -i '/auto/d' unformatted.txt; [ ! -s unformatted.txt ]",
    'agent.sh': "sed -i '1d' unformatted.txt",
  };

  it('checks, runs the formatter, lets the agent fix what it cannot, and ends in done', async () => {
    const p = sandbox(FORMAT, { 'unformatted.txt': 'auto: src/a.ts\nsyntax: src/broken.ts\n' });
    const { result, states } = await runIn(
      p,
      builtin(p, 'format', { check_cmd: './check.sh', format_cmd: './formatter.sh' }),
    );
    expect(states).toEqual([
      'check',
      'triage',
      'autofix',
      'autofix_triage',
      'recheck',
      'budget',
      'fix',
      'autofix',
      'autofix_triage',
      'recheck',
      'done',
    ]);
    expect(result).toMatchObject({ final_state: 'done', failure: false });
    expect(prompts(p)).toHaveLength(1);
    expect(prompts(p)[0]).toContain('The formatting check `./check.sh` still fails after the formatter');
    expect(readFileSync(join(p.cwd, 'unformatted.txt'), 'utf8')).toBe('');
  });

  it('writes nothing when the files are already formatted', async () => {
    const p = sandbox({ ...FORMAT, 'formatter.sh': 'touch formatter-ran' }, { 'unformatted.txt': '' });
    const { states } = await runIn(p, builtin(p, 'format', { check_cmd: './check.sh', format_cmd: './formatter.sh' }));
    expect(states).toEqual(['check', 'done']);
    expect(existsSync(join(p.cwd, 'formatter-ran'))).toBe(false);
  });

  it('ends at once when the checker or the formatter is missing, without the agent', async () => {
    const p = sandbox(FORMAT, { 'unformatted.txt': 'syntax: src/broken.ts\n' });
    const missingCheck = await runIn(p, builtin(p, 'format', { check_cmd: './no-such-check' }));
    expect(missingCheck.states).toEqual(['check', 'triage', 'not_runnable']);
    expect(missingCheck.result).toMatchObject({ final_state: 'not_runnable', failure: true });
    const missingFormatter = await runIn(
      p,
      builtin(p, 'format', { check_cmd: './check.sh', format_cmd: './no-such-formatter' }),
    );
    expect(missingFormatter.states).toEqual(['check', 'triage', 'autofix', 'autofix_triage', 'formatter_not_runnable']);
    expect(missingFormatter.result).toMatchObject({ final_state: 'formatter_not_runnable', failure: true });
    expect(prompts(p)).toEqual([]);
  });
});

describe('check-matrix', () => {
  const CHECKS = {
    'build.sh': failsWhile('build.txt'),
    'types.sh': failsWhile('types.txt', 2),
    'lint.sh': failsWhile('lint.txt'),
    'tests.sh': failsWhile('tests.txt'),
  };
  const COMMANDS = { build_cmd: './build.sh', type_cmd: './types.sh', lint_cmd: './lint.sh', test_cmd: './tests.sh' };

  it('fixes the first failing check, starts over, catches a fix that broke an earlier check, and ends when all pass in one pass', async () => {
    const p = sandbox(
      {
        ...CHECKS,
        // Fixes the first failing check; its lint fix breaks the build once (a regression).
        'agent.sh': [
          'for f in build.txt types.txt lint.txt tests.txt; do',
          '  if [ -s $f ]; then : > $f',
          '    if [ $f = lint.txt ] && [ ! -e broke-build ]; then echo "a.ts: cannot find module" > build.txt; touch broke-build; fi',
          '    exit 0',
          '  fi',
          'done',
        ].join('\n'),
      },
      { 'build.txt': '', 'types.txt': '', 'lint.txt': 'unused variable x\n', 'tests.txt': 'FAIL parse.test.ts\n' },
    );
    const { result, states } = await runIn(p, builtin(p, 'check-matrix', COMMANDS));
    const fixStart = (s: string[]) => s.join(' ').split(' fix ');
    expect(fixStart(states)).toEqual([
      'pin build types lint triage budget', // lint fails → fix (which breaks the build)
      'build triage budget', // the build is caught at once → fix
      'build types lint tests triage budget', // tests fail → fix
      'build types lint tests unchanged done', // all four in one pass, the configuration as it was
    ]);
    expect(result).toMatchObject({ final_state: 'done', failure: false, iterations: 4 });
    const asked = prompts(p);
    expect(asked).toHaveLength(3);
    expect(asked[0]).toContain('lint `./lint.sh`, tests `./tests.sh`');
    expect(asked[0]).toContain('(fix attempt 1 of 6)');
    expect(asked[0]).toContain('unused variable x');
    expect(asked[1]).toContain('a.ts: cannot find module');
    expect(asked[2]).toContain('FAIL parse.test.ts');
  });

  it('ends at once in not_runnable when a check cannot run, without the agent and without the later checks', async () => {
    const p = sandbox(CHECKS, { 'build.txt': '', 'types.txt': '', 'lint.txt': '', 'tests.txt': 'FAIL\n' });
    const { result, states } = await runIn(p, builtin(p, 'check-matrix', { ...COMMANDS, type_cmd: 'no-such-tsc' }));
    expect(states).toEqual(['pin', 'build', 'types', 'triage', 'not_runnable']);
    expect(result).toMatchObject({ final_state: 'not_runnable', failure: true });
    expect(result.captured.check?.exit_code).toBe(127);
    expect(prompts(p)).toEqual([]);
  });
});

describe('security-advisories', () => {
  const AUDIT = { 'audit.sh': failsWhile('advisories.txt'), 'tests.sh': '[ ! -e broken ]' };
  const COMMANDS = { audit_cmd: './audit.sh', test_cmd: './tests.sh' };

  it('lets the agent upgrade, makes it repair the tests the upgrade broke, and ends when the audit is clean', async () => {
    const p = sandbox(
      {
        ...AUDIT,
        // The upgrade fixes the advisory but breaks a test; asked again, the agent repairs it.
        'agent.sh': 'if [ -e broken ]; then rm broken; else : > advisories.txt; touch broken; fi',
      },
      { 'advisories.txt': 'lodash <4.17.21: prototype pollution (GHSA-35jh-r3h4-6jhm)\n' },
    );
    const { result, states } = await runIn(p, builtin(p, 'security-advisories', COMMANDS));
    expect(states).toEqual([
      'baseline',
      'audit',
      'triage',
      'budget',
      'fix',
      'verify',
      'budget',
      'fix',
      'verify',
      'audit',
      'done',
    ]);
    expect(result).toMatchObject({ final_state: 'done', failure: false });
    const asked = prompts(p);
    expect(asked).toHaveLength(2);
    expect(asked[0]).toContain('The dependency audit `./audit.sh` reports advisories');
    expect(asked[0]).toContain('GHSA-35jh-r3h4-6jhm');
    expect(asked[1]).toContain('(fix attempt 2 of 3)');
  });

  it('ends at once in not_runnable when the audit tool is not installed, without the agent', async () => {
    const p = sandbox(AUDIT, { 'advisories.txt': 'x\n' });
    const { result, states } = await runIn(
      p,
      builtin(p, 'security-advisories', { ...COMMANDS, audit_cmd: 'no-such-audit --json' }),
    );
    expect(states).toEqual(['baseline', 'audit', 'triage', 'not_runnable']);
    expect(result).toMatchObject({ final_state: 'not_runnable', failure: true });
    expect(prompts(p)).toEqual([]);
  });

  it('refuses to start on a failing suite (tests_fail_before), without the agent', async () => {
    const p = sandbox(AUDIT, { broken: '', 'advisories.txt': 'x\n' });
    const { result, states } = await runIn(p, builtin(p, 'security-advisories', COMMANDS));
    expect(states).toEqual(['baseline', 'tests_triage', 'tests_fail_before']);
    expect(result).toMatchObject({ failure: true });
    expect(prompts(p)).toEqual([]);
  });
});
