/**
 * `ll-loop show`: snapshots of the three outputs (text, Mermaid, JSON) for a simple fix loop, a
 * 15-state loop with cycles, route tables, a sub-loop, a dynamic target and failure terminals,
 * and a catalog-style loop with parameters; the main-path ordering of the graph; Mermaid
 * escaping; and the command's behaviour on bad input. Loops are written to temporary `.loops/`
 * directories and loaded through the real pipeline (loader/load.ts), as the CLI does.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { showCommand, type ShowFormat } from '../../client/commands/show.js';
import { validateLoop } from '../../client/commands/validate-report.js';
import { LoadError } from '../../loader/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { loadLoop } from '../../loader/load.js';
import { runCliInProcess } from '../support/cli.js';
import { checkMermaid } from '../support/mermaid-check.js';

const FIX_LOOP = `
name: fix-tests
description: Run the tests; let the agent fix them until they pass.
max_iterations: 10
initial: test
states:
  test:
    action: npm test
    on_yes: done
    on_no: fix
  fix:
    action: /ll:fix the failing tests
    next: test
  done:
    terminal: true
`;

const CHILD_LOOP = `
name: child-check
description: Checks that a path exists.
parameters:
  path: { type: path, required: true, description: Where to look }
initial: check
states:
  check:
    action: "test -e \${context.path}"
    on_yes: ok
    on_no: bad
  ok: { terminal: true }
  bad: { terminal: true, failure: true }
`;

/** 15 states: cycles, a route table with `_`/`_error`, a sub-loop, `$current`, a `\${…}` target, failure ends. */
const RELEASE_LOOP = `
name: release
description: Build, test, review and ship a release; retries flaky steps and escalates when stuck.
max_iterations: 30
timeout: 3600
parameters:
  version: { type: string, required: true, description: Version to release }
  channel: { type: enum, values: [stable, beta], default: beta }
initial: prepare
states:
  prepare:
    action: git fetch --tags
    next: lint
    on_error: infra_down
  lint:
    action: npm run lint
    on_yes: build
    on_no: autofix
    on_error: infra_down
  autofix:
    action: npm run lint -- --fix
    next: lint
  build:
    action: npm run build
    retry: { attempts: 3 }
    on_success: test
    on_failure: fix_build
  fix_build:
    action: /ll:fix build errors
    next: build
  test:
    action: npm test -- --reporter=json
    evaluate: { type: output_json, path: .numFailedTests, operator: eq, target: 0 }
    route:
      yes: check_artifacts
      no: triage
      _error: infra_down
  triage:
    action: "Classify the test failures: flaky, real or infra. Answer with one word."
    action_type: prompt
    evaluate: { type: llm_structured }
    capture: next_state
    route:
      flaky: $current
      real: fix_tests
      infra: infra_down
      _: escalate
  fix_tests:
    action: /ll:fix the failing tests
    next: test
  check_artifacts:
    loop: child-check
    with: { path: dist }
    on_yes: review
    on_no: build
    on_error: escalate
  review:
    action: "Review the diff for release \${context.version}"
    action_type: prompt
    on_yes: publish
    on_no: fix_tests
    on_partial: "\${captured.next_state.output}"
  publish:
    action: "npm publish --tag \${context.channel}"
    on_yes: announce
    on_no: escalate
  announce:
    action: "echo released \${context.version}"
    next: done
  done: { terminal: true }
  escalate: { terminal: true, failure: true, action: echo needs a human }
  infra_down: { terminal: true, failure: true }
`;

/** Shaped like a built-in catalog loop: parameters with defaults, a decision state, `_` routes. */
const CATALOG_LOOP = `
name: until-green
description: Run the tests; while they fail, have the coding agent fix the code (up to max_fixes attempts).
category: testing
max_iterations: 20
parameters:
  test_cmd: { type: string, default: npm test, description: Command that runs the tests. }
  max_fixes: { type: integer, default: 5, description: Fix attempts before giving up. }
initial: test
states:
  test:
    action: "\${context.test_cmd}"
    timeout: 1800
    route:
      yes: done
      _: budget
  budget:
    evaluate:
      type: output_numeric
      source: "\${state.iteration}"
      operator: le
      target: "\${context.max_fixes}"
    on_yes: fix
    on_no: gave_up
  fix:
    action_type: prompt
    action: |
      The test command \`\${context.test_cmd}\` fails (attempt \${state.iteration} of \${context.max_fixes}).
      Fix the code so that it passes.
    next: test
    on_error: agent_failed
  done:
    terminal: true
  gave_up:
    action: "echo 'the tests still fail after \${context.max_fixes} attempts'"
    terminal: true
    failure: true
  agent_failed:
    terminal: true
    failure: true
`;

/** A project directory with these loops in `.loops/`. */
function project(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'll-show-'));
  mkdirSync(join(dir, '.loops'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, '.loops', `${name}.yaml`), text);
  return dir;
}

const ALL = { 'fix-tests': FIX_LOOP, 'child-check': CHILD_LOOP, release: RELEASE_LOOP, 'until-green': CATALOG_LOOP };

interface Output {
  code: number;
  out: string;
  err: string;
}

function show(
  cwd: string,
  target: string,
  format: ShowFormat,
  extra: { colour?: boolean; width?: number; context?: string[] } = {},
): Output {
  let out = '';
  let err = '';
  const code = showCommand({
    cwd,
    target,
    format,
    context: extra.context ?? [],
    colour: extra.colour ?? false,
    width: extra.width ?? 80,
    out: (t) => void (out += t),
    err: (t) => void (err += t),
  });
  return { code, out, err };
}

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/;

describe('ll-loop show: snapshots', () => {
  const cwd = project(ALL);

  for (const name of ['fix-tests', 'release', 'until-green']) {
    it(`${name}: text`, () => {
      const result = show(cwd, name, 'text');
      expect(result.code).toBe(EXIT.ok);
      // release's review state routes yes/no/partial but not the LLM's "blocked", and its triage
      // state routes words the default schema's judge never answers: validate's warnings.
      if (name === 'release') {
        const warnings = result.err.split('\n').filter((line) => line.includes(': warning: '));
        expect(warnings.map((line) => line.replace(/^\S+release\.yaml:\d+:\d+: warning: /, ''))).toEqual([
          ...['flaky', 'real', 'infra'].map(
            (word) =>
              `state "triage": route: ${word} is a verdict that no run gives: its evaluator (llm_structured) answers only "error", "yes", "no", "blocked", "partial", "success", "failure"`,
          ),
          'state "review": its evaluator (llm_structured, the default here) can answer "blocked", which no route handles: the run would end with "no valid transition"',
        ]);
        expect(result.err).toMatch(/fix: add on_blocked: <state>/);
      } else expect(result.err).toBe('');
      expect(result.out).not.toMatch(ANSI);
      expect(result.out).toMatchSnapshot();
    });

    it(`${name}: mermaid`, () => {
      const result = show(cwd, name, 'mermaid');
      expect(result.code).toBe(EXIT.ok);
      expect(checkMermaid(result.out)).toEqual([]);
      expect(result.out).toMatchSnapshot();
    });

    it(`${name}: json is the resolved definition`, () => {
      const result = show(cwd, name, 'json');
      expect(result.code).toBe(EXIT.ok);
      expect(JSON.parse(result.out)).toEqual(JSON.parse(JSON.stringify(loadLoop(name, cwd).definition)));
      expect(result.out).toMatchSnapshot();
    });
  }
});

describe('ll-loop show: text output', () => {
  const cwd = project(ALL);

  it('keeps the header and every diagram line within the width for a 15-state loop', () => {
    for (const width of [60, 80, 120]) {
      const { out } = show(cwd, 'release', 'text', { width });
      const diagram = out.slice(0, out.indexOf('\nStates\n'));
      const tooWide = diagram.split('\n').filter((line) => [...line].length > width);
      expect(tooWide, `width ${width}`).toEqual([]);
    }
  });

  it('puts an arrow on its own line when a long target would pass the width', () => {
    const far = 'wait_for_the_deployment_to_become_healthy';
    const dir = project({
      long: `name: long\ninitial: deploy\nstates:\n  deploy:\n    action: ./deploy\n    on_yes: ${far}\n    on_no: rollback_the_deployment_and_notify_the_team_now\n  ${far}:\n    action: ./health\n    on_yes: done\n    on_no: ${far}\n  rollback_the_deployment_and_notify_the_team_now: { terminal: true, failure: true }\n  done: { terminal: true }\n`,
    });
    const { out } = show(dir, 'long', 'text', { width: 60 });
    const diagram = out.slice(0, out.indexOf('\nStates\n')).split('\n');
    expect(diagram.filter((line) => [...line].length > 60)).toEqual([]);
    const at = diagram.indexOf('  │    no');
    expect(diagram[at + 1]).toBe('  │      ──▶ rollback_the_deployment_and_notify_the_team_now');
    // A name is never cut: the self-loop reads "itself".
    expect(diagram).toContain('  │    no ──▶ itself ↺');
  });

  it('says so when no path reaches a successful end', () => {
    const dir = project({
      watch:
        'name: watch\ndescription: Poll until something breaks.\ninitial: poll\nstates:\n  poll: { action: ./check, on_yes: wait, on_no: alert }\n  wait: { action: sleep 60, next: poll }\n  alert: { terminal: true, failure: true }\n',
    });
    const { out } = show(dir, 'watch', 'text', { width: 60 });
    expect(out.slice(out.indexOf('Diagram'), out.indexOf('\nStates\n'))).toMatchInlineSnapshot(`
      "Diagram
        ▶ start  ○ state  ◉ end  ✗ failure end  ↺ loops back

        ▶ poll
        │    yes ──▶ wait
        │ no
        ▼
        ✗ alert  (terminal, failure)
        (no path from the start reaches an end that is not a
        failure: the run ends in failure or at max_iterations)

        ○ wait
             next ──▶ poll ↺
      "
    `);
  });

  it('colours only when asked (the CLI asks only on a TTY without NO_COLOR)', () => {
    expect(show(cwd, 'release', 'text', { colour: true }).out).toMatch(ANSI);
    expect(show(cwd, 'release', 'text', { colour: false }).out).not.toMatch(ANSI);
  });

  it('lists required parameters as --context in the run commands', () => {
    const { out } = show(cwd, 'release', 'text');
    expect(out).toContain('ll-loop run release --context version=…  ');
    expect(out).toContain('ll-loop run release --context version=… --dry-run');
    expect(show(cwd, 'fix-tests', 'text').out).toMatch(/ll-loop run fix-tests +# run it\n/);
  });

  it('uses the loop’s own commands: list instead of the generated one', () => {
    const dir = project({
      mine: `${FIX_LOOP.replace('name: fix-tests', 'name: mine')}commands:\n  - cmd: ll-loop run mine --max-iterations 3\n    comment: a short try\n  - cmd: make ci\n`,
    });
    const { out } = show(dir, 'mine', 'text');
    const section = out.slice(out.indexOf('How to run'));
    expect(section).toBe('How to run\n  ll-loop run mine --max-iterations 3  # a short try\n  make ci\n');
  });

  it('quotes a path with spaces in the commands, and shows the file relative to the project', () => {
    const dir = project({});
    mkdirSync(join(dir, 'my loops'));
    writeFileSync(join(dir, 'my loops', 'a.yaml'), FIX_LOOP);
    const { code, out } = show(dir, 'my loops/a.yaml', 'text');
    expect(code).toBe(EXIT.ok);
    expect(out).toContain('  file: my loops/a.yaml\n');
    expect(out).toContain("ll-loop validate 'my loops/a.yaml'");
  });

  it('binds --context values into the resolved definition', () => {
    const { out } = show(cwd, 'release', 'json', { context: ['version=1.2.3', 'channel=stable'] });
    expect(JSON.parse(out).context).toMatchObject({ version: '1.2.3', channel: 'stable' });
    expect(show(cwd, 'release', 'text', { context: ['version=1.2.3'] }).out).toMatch(/version +string +"1\.2\.3"/);
  });

  it('prints control characters in names and actions as spaces', () => {
    const dir = project({
      odd: 'name: odd\ninitial: a\nstates:\n  a:\n    action: "printf \'\\u001b[31mred\'"\n    on_yes: "b\\u001bc"\n    on_no: "b\\u001bc"\n  "b\\u001bc": { terminal: true }\n',
    });
    const { code, out } = show(dir, 'odd', 'text');
    expect(code).toBe(EXIT.ok);
    expect(out).not.toContain('\u001b');
    expect(out).toContain('b c');
  });
});

describe('ll-loop show: bad input', () => {
  it('an invalid loop gives the diagnostics of validate and exit 1', () => {
    const cwd = project({ broken: FIX_LOOP.replace('on_no: fix', 'on_no: fixx') });
    const shown = show(cwd, 'broken', 'text');
    let validated = '';
    expect(validateLoop({ cwd, target: 'broken', json: false, out: () => {}, err: (t) => void (validated += t) })).toBe(
      EXIT.usage,
    );
    expect(shown.code).toBe(EXIT.usage);
    expect(shown.out).toBe('');
    const diagnostics = (text: string) => text.split('\n').filter((l) => !l.startsWith('✗'));
    expect(diagnostics(shown.err)).toEqual(diagnostics(validated));
    expect(shown.err).toContain('fixx');
    expect(shown.err).toContain('nothing to show');
  });

  it('--json on an invalid loop prints the validate report on stdout', () => {
    const cwd = project({ broken: FIX_LOOP.replace('initial: test', 'initial: tset') });
    const result = show(cwd, 'broken', 'json');
    expect(result.code).toBe(EXIT.usage);
    const report = JSON.parse(result.out);
    expect(report.valid).toBe(false);
    expect(report.diagnostics[0].message).toContain('tset');
  });

  it('an unknown loop is a usage error that lists the known ones', async () => {
    const cwd = project({ 'fix-tests': FIX_LOOP });
    expect(() => show(cwd, 'fix-test', 'text')).toThrow(LoadError);
    expect(() => show(cwd, 'fix-test', 'text')).toThrow(
      /no loop named "fix-test" \(did you mean "fix-tests"\?\).*fix-tests/,
    );
    const r = await runCliInProcess(['show', 'fix-test'], { cwd });
    expect(r.code).toBe(EXIT.usage);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /^error: no loop named "fix-test" \(did you mean "fix-tests"\?\).*fix-tests.*\nfix: create \.loops\/fix-test\.yaml/,
    );
  });

  it('checks --format and its agreement with --json', async () => {
    const cwd = project({ 'fix-tests': FIX_LOOP });
    await expect(runCliInProcess(['show', 'fix-tests', '--format', 'mermaid'], { cwd })).resolves.toMatchObject({
      code: EXIT.ok,
      stdout: expect.stringMatching(/^stateDiagram-v2\n/),
    });
    await expect(runCliInProcess(['show', 'fix-tests', '--json'], { cwd })).resolves.toMatchObject({
      code: EXIT.ok,
      stdout: expect.stringMatching(/^\{\n {2}"name": "fix-tests"/),
    });
    await expect(runCliInProcess(['show', 'fix-tests', '--format', 'json'], { cwd })).resolves.toMatchObject({
      code: EXIT.ok,
    });
    const usage = (pattern: RegExp) => ({ code: EXIT.usage, stderr: expect.stringMatching(pattern) });
    await expect(runCliInProcess(['show', 'fix-tests', '--format', 'mermid'], { cwd })).resolves.toMatchObject(
      usage(/--format "mermid" is not a format \(did you mean "mermaid"\?\)/),
    );
    await expect(
      runCliInProcess(['show', 'fix-tests', '--json', '--format', 'mermaid'], { cwd }),
    ).resolves.toMatchObject(usage(/--json and --format mermaid/));
    await expect(runCliInProcess(['show'], { cwd })).resolves.toMatchObject(usage(/show needs a loop name or path/));
    await expect(runCliInProcess(['show', 'fix-tests', 'extra'], { cwd })).resolves.toMatchObject(
      usage(/unexpected arguments: extra/),
    );
  });
});
