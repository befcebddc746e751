/**
 * `ll-loop review`'s rules (fsm/tools/review/): for each rule a loop written here where it fires, naming
 * the state and giving a fix, and the same loop fixed, where it does not. Every built-in loop is
 * reviewed with no error finding.
 */
import { describe, expect, it } from 'vitest';
import { builtinLoopFile, builtinLoopNames } from '../../loader/catalog.js';
import { loadLoopFile } from '../../loader/load.js';
import { REVIEW_RULES, reviewLoop } from '../../fsm/tools/review/rules.js';
import { defFromYaml } from './helpers.js';

const OPTS = { hostClis: ['claude'] };

interface Case {
  rule: string;
  /** The loop where the rule fires on `state`. */
  bad: string;
  state: string;
  /** The same loop, fixed: the rule does not fire. */
  good: string;
}

const HEAD = 'name: t\ndescription: a test loop\n';

const CASES: Case[] = [
  {
    rule: 'generator-evaluator-back-route',
    state: 'evaluate',
    bad: `${HEAD}initial: generate
states:
  generate: { action: "make page", next: evaluate, on_error: failed }
  evaluate: { action: "npx playwright test", on_yes: done, on_no: generate, on_error: generate }
  done: { terminal: true }
  failed: { terminal: true, failure: true }
`,
    good: `${HEAD}initial: generate
states:
  generate: { action: "make page", next: evaluate, on_error: failed }
  evaluate: { action: "npx playwright test", on_yes: done, on_no: score, on_error: score }
  score:
    evaluate: { type: output_numeric, source: "\${state.iteration}", operator: le, target: 3 }
    on_yes: generate
    on_no: failed
  done: { terminal: true }
  failed: { terminal: true, failure: true }
`,
  },
  {
    rule: 'unbounded-cycle',
    state: 'poll',
    bad: `${HEAD}initial: start
states:
  start: { action: "true", on_yes: poll, on_no: done }
  poll: { action: "curl -fs localhost", on_yes: wait, on_no: wait }
  wait: { action: "sleep 1", next: poll }
  done: { terminal: true }
`,
    good: `${HEAD}initial: start
states:
  start: { action: "true", on_yes: poll, on_no: done }
  poll: { action: "curl -fs localhost", on_yes: done, on_no: wait }
  wait: { action: "sleep 1", next: poll }
  done: { terminal: true }
`,
  },
  {
    rule: 'unreachable-state',
    state: 'escalate',
    bad: `${HEAD}initial: check
states:
  check: { action: "make test", on_yes: done, on_no: done, on_blocked: escalate }
  escalate: { action: "echo help", terminal: true, failure: true }
  done: { terminal: true }
`,
    good: `${HEAD}initial: check
states:
  check: { action: "make test", on_yes: done, on_no: escalate }
  escalate: { action: "echo help", terminal: true, failure: true }
  done: { terminal: true }
`,
  },
  {
    rule: 'agent-without-tamper-guard',
    state: 'fix',
    bad: `${HEAD}initial: fix
states:
  fix: { action: "claude -p 'fix the tests'", on_yes: done, on_no: done }
  done: { terminal: true }
`,
    good: `${HEAD}initial: fix
states:
  fix: { action: "claude -p 'fix the tests'", tamper_guard: revert, on_yes: done, on_no: done }
  done: { terminal: true }
`,
  },
  {
    rule: 'action-without-on-error',
    state: 'fix',
    bad: `${HEAD}tamper_guard: revert
initial: fix
states:
  fix: { action: "Fix the failing test", action_type: prompt, next: done }
  done: { terminal: true }
`,
    good: `${HEAD}tamper_guard: revert
initial: fix
states:
  fix: { action: "Fix the failing test", action_type: prompt, next: done, on_error: failed }
  done: { terminal: true }
  failed: { terminal: true, failure: true }
`,
  },
  {
    rule: 'unused-capture',
    state: 'measure',
    bad: `${HEAD}initial: measure
states:
  measure: { action: "wc -l < log", capture: lines, on_yes: done, on_no: done }
  done: { terminal: true }
`,
    good: `${HEAD}initial: measure
states:
  measure: { action: "wc -l < log", capture: lines, on_yes: report, on_no: done }
  report: { action: "echo \${captured.lines.output}", next: done }
  done: { terminal: true }
`,
  },
  {
    rule: 'max-iterations-below-budget',
    state: 'budget',
    bad: `${HEAD}max_iterations: 5
parameters:
  max_fixes: { type: integer, default: 5 }
initial: test
states:
  test: { action: "make test", on_yes: done, on_no: budget }
  budget:
    evaluate: { type: output_numeric, source: "\${state.iteration}", operator: le, target: "\${context.max_fixes}" }
    on_yes: fix
    on_no: gave_up
  fix: { action: "make fix", next: test }
  done: { terminal: true }
  gave_up: { terminal: true, failure: true }
`,
    good: `${HEAD}max_iterations: 6
parameters:
  max_fixes: { type: integer, default: 5 }
initial: test
states:
  test: { action: "make test", on_yes: done, on_no: budget }
  budget:
    evaluate: { type: output_numeric, source: "\${state.iteration}", operator: le, target: "\${context.max_fixes}" }
    on_yes: fix
    on_no: gave_up
  fix: { action: "make fix", next: test }
  done: { terminal: true }
  gave_up: { terminal: true, failure: true }
`,
  },
];

describe('review rules', () => {
  it('has a case for every rule', () => {
    expect(CASES.map((c) => c.rule).sort()).toEqual(REVIEW_RULES.map((r) => r.id).sort());
  });

  it.each(CASES)('$rule fires on "$state" with a fix, and not once fixed', ({ rule, bad, good, state }) => {
    const severity = REVIEW_RULES.find((r) => r.id === rule)!.severity;
    const found = reviewLoop(defFromYaml(bad), OPTS).filter((f) => f.rule === rule);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ rule, severity, state });
    expect(found[0]!.message.length).toBeGreaterThan(20);
    expect(found[0]!.fix.length).toBeGreaterThan(10);
    expect(reviewLoop(defFromYaml(good), OPTS).filter((f) => f.rule === rule)).toEqual([]);
  });

  it('the back-route and a cycle with no way out are errors; the rest warnings', () => {
    const errors = REVIEW_RULES.filter((r) => r.severity === 'error').map((r) => r.id);
    expect(errors.sort()).toEqual(['generator-evaluator-back-route', 'unbounded-cycle']);
  });

  it('a test-then-fix loop whose failure goes straight to the fixer is the back-route', () => {
    const found = reviewLoop(
      defFromYaml(`${HEAD}initial: test
states:
  test: { action: "npm test", route: { yes: done, _: fix } }
  fix: { action: "Fix it", action_type: prompt, tamper_guard: revert, next: test, on_error: done }
  done: { terminal: true }
`),
      OPTS,
    );
    expect(found.map((f) => [f.rule, f.state])).toEqual([['generator-evaluator-back-route', 'test']]);
    expect(found[0]!.message).toContain('route._');
  });

  it('a shell action running the host CLI by path, or LL_HOST_CLI, is an agent state', () => {
    const text = (action: string) => `${HEAD}initial: a
states:
  a: { action: "${action}", on_yes: done, on_no: done }
  done: { terminal: true }
`;
    const guard = (action: string, hostClis: string[]) =>
      reviewLoop(defFromYaml(text(action)), { hostClis }).filter((f) => f.rule === 'agent-without-tamper-guard');
    expect(guard('cd src && /usr/local/bin/claude -p go', ['claude'])).toHaveLength(1);
    expect(guard('codex exec go', ['claude', 'codex'])).toHaveLength(1);
    expect(guard('echo claude-notes', ['claude'])).toHaveLength(0);
  });
});

describe('the built-in loops', () => {
  it.each(builtinLoopNames())('%s has no error finding', (name) => {
    const loaded = loadLoopFile(builtinLoopFile(name)!, {}, process.cwd());
    expect(loaded.definition, JSON.stringify(loaded.diagnostics)).toBeDefined();
    const errors = reviewLoop(loaded.definition!, OPTS).filter((f) => f.severity === 'error');
    expect(errors).toEqual([]);
  });
});
