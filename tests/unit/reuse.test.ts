/**
 * Reuse through the real loader (loader/load.ts `loadLoopFile`) on files in a temporary project:
 * `from:` chains, cycles, missing and broken parents, `import:` libraries, inline `fragments:`,
 * unknown fragments, and where each problem is reported (file, line).
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { formatDiagnostic, type Diagnostic } from '../../fsm/diagnostics.js';
import { validateLoop } from '../../fsm/definition/validate.js';
import { loadLoopFile } from '../../loader/load.js';
import { expandReuse } from '../../loader/reuse.js';

/** A project directory holding `files` (path relative to the project → YAML text). */
function projectWith(files: Record<string, string>): string {
  const cwd = mkdtempSync(join(tmpdir(), 'll-loop-reuse-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(cwd, path)), { recursive: true });
    writeFileSync(join(cwd, path), text);
  }
  return cwd;
}

function load(cwd: string, path: string) {
  return loadLoopFile(join(cwd, path), {}, cwd);
}

function loaded(cwd: string, path: string) {
  const result = load(cwd, path);
  if (!result.definition) throw new Error(result.diagnostics.map(formatDiagnostic).join('\n'));
  return result.definition;
}

/** expandReuse on a file, as the loader calls it: its warnings, and `locate` on its own. */
function expanded(cwd: string, path: string) {
  const file = join(cwd, path);
  return expandReuse(parseYaml(readFileSync(file, 'utf8')) as Record<string, unknown>, file, cwd);
}

function onlyError(diagnostics: Diagnostic[]): Diagnostic {
  const errors = diagnostics.filter((d) => d.severity === 'error');
  expect(errors, diagnostics.map(formatDiagnostic).join('\n')).toHaveLength(1);
  return errors[0]!;
}

// Seed 001's example, as written there (with a real state for `generate_variants`).
const APO_BASE = `name: apo-base
category: apo
max_iterations: 20
timeout: 3600
on_handoff: spawn
context:
  prompt_file: system.md
states:
  done:
    terminal: true
`;
const APO_BEAM = `name: apo-beam
description: beam search over prompt variants
from: lib/apo-base
initial: generate_variants
context:
  beam_width: 4
  target_score: 90
states:
  generate_variants:
    action: "echo \${context.beam_width} \${context.prompt_file}"
    next: done
`;

const LOOP_TAIL = `
  fix: { action: "echo fix", next: check }
  done: { terminal: true }
`;

describe('from: inheritance', () => {
  it('merges seed 001 apo-base into apo-beam: parent scalars and the done state, child context added', () => {
    const cwd = projectWith({ '.loops/lib/apo-base.yaml': APO_BASE, '.loops/apo-beam.yaml': APO_BEAM });
    const def = loaded(cwd, '.loops/apo-beam.yaml');
    expect(def).toMatchObject({
      name: 'apo-beam',
      category: 'apo',
      max_iterations: 20,
      timeout: 3600,
      on_handoff: 'spawn',
      initial: 'generate_variants',
      context: { prompt_file: 'system.md', beam_width: 4, target_score: 90 },
    });
    expect(Object.keys(def.states)).toEqual(['done', 'generate_variants']);
    expect(def.states.done?.terminal).toBe(true);
    expect(Object.hasOwn(def, 'from')).toBe(false);
  });

  it('follows a three-level chain resolved relative to each file, then .loops/<name>', () => {
    const cwd = projectWith({
      '.loops/root.yaml': `name: root\ndescription: r\nmax_iterations: 7\nlabels: [a, b]\ncontext: { level: root, keep: 1 }\ninitial: check\nstates:\n  check: { action: "true", on_yes: done, on_no: fix }${LOOP_TAIL}`,
      'variants/lib/middle.yaml': `from: root\nlabels: [m]\ncontext: { level: middle }\nstates:\n  check: { timeout: 30 }\n`,
      'variants/leaf.yaml': `name: leaf\nfrom: lib/middle.yaml\ncontext: { level: leaf }\nstates:\n  check: { on_no: done }\n`,
    });
    const def = loaded(cwd, 'variants/leaf.yaml');
    expect(def.name).toBe('leaf');
    expect(def.max_iterations).toBe(7);
    expect(def.labels).toEqual(['m']);
    expect(def.context).toEqual({ level: 'leaf', keep: 1 });
    expect(def.states.check).toMatchObject({ action: 'true', timeout: 30, on_yes: 'done', on_no: 'done' });
  });

  it('inherits from a built-in loop by name', () => {
    const cwd = projectWith({
      'mine.yaml':
        'name: my-tests\nfrom: test-until-pass\ncontext: { note: x }\nparameters:\n  max_fixes: { default: 2 }\n',
    });
    const def = loaded(cwd, 'mine.yaml');
    expect(def.name).toBe('my-tests');
    expect(def.initial).toBe('test');
    expect(def.context.max_fixes).toBe(2);
    expect(def.parameters?.max_fixes).toMatchObject({ type: 'integer', default: 2 });
  });

  it("warns when the child has no name and takes the parent's", () => {
    const cwd = projectWith({
      'base.yaml': APO_BASE.replace('states:', 'initial: done\ndescription: d\nstates:'),
      'child.yaml': 'from: base\n',
    });
    expect(loaded(cwd, 'child.yaml').name).toBe('apo-base');
    // A warning of the loaded file itself carries no file: the loader places it.
    expect(expanded(cwd, 'child.yaml').diagnostics).toEqual([
      expect.objectContaining({
        severity: 'warning',
        path: ['from'],
        message: expect.stringMatching(/name: "apo-base" is inherited from base.yaml/),
        fix: 'add name: to this file',
      }),
    ]);
  });

  it.each<[string, Record<string, string>, string, RegExp]>([
    [
      'a → ./a.yaml → a (the same file by another path)',
      { '.loops/a.yaml': 'name: a\nfrom: b\n', '.loops/b.yaml': 'from: ./a.yaml\n' },
      '.loops/a.yaml',
      /inheritance cycle: \.loops\/a\.yaml → \.loops\/b\.yaml → \.loops\/a\.yaml/,
    ],
    [
      'a → b → a',
      { '.loops/a.yaml': 'name: a\nfrom: b\n', '.loops/b.yaml': 'from: a\n' },
      '.loops/a.yaml',
      /inheritance cycle: \.loops\/a\.yaml → \.loops\/b\.yaml → \.loops\/a\.yaml/,
    ],
    [
      'a → b → c → b (a cycle below the loaded file)',
      { 'a.yaml': 'name: a\nfrom: b\n', 'b.yaml': 'from: c.yaml\n', 'c.yaml': 'from: ./b\n' },
      'a.yaml',
      /inheritance cycle: a\.yaml → b\.yaml → c\.yaml → b\.yaml/,
    ],
  ])('a cycle is an error naming the chain: %s', (_label, files, entry, message) => {
    const cwd = projectWith(files);
    const d = onlyError(load(cwd, entry).diagnostics);
    expect(d.message).toMatch(message);
    expect(d.fix).toMatch(/remove from:/);
    expect(d.path).toEqual(['from']);
  });

  it('a project loop named like a built-in can build on it with from: <its own name>', () => {
    const cwd = projectWith({
      '.loops/test-until-pass.yaml':
        'from: test-until-pass\ncontext: { team: core }\nparameters:\n  test_cmd: { default: "make test" }\n',
    });
    const def = loaded(cwd, '.loops/test-until-pass.yaml');
    expect(def.context).toMatchObject({ team: 'core', test_cmd: 'make test' });
    expect(def.states.fix?.action_type).toBe('prompt');
  });

  it('a file naming itself in from: is not its own parent', () => {
    const cwd = projectWith({ '.loops/a.yaml': 'name: a\nfrom: a\n' });
    const d = onlyError(load(cwd, '.loops/a.yaml').diagnostics);
    expect(d.message).toMatch(/parent loop "a" not found; looked in .*a file is never its own parent/);
  });

  it('a missing parent names the chain, suggests a close name and lists the known loops', () => {
    const cwd = projectWith({
      '.loops/check-all.yaml': APO_BASE,
      '.loops/middle.yaml': 'from: chek-all\n',
      'child.yaml': 'name: child\nfrom: .loops/middle\n',
    });
    const d = onlyError(load(cwd, 'child.yaml').diagnostics);
    expect(d.message).toMatch(/parent loop "chek-all" not found \(did you mean "check-all"\?\)/);
    expect(d.message).toContain('inheritance chain: child.yaml → .loops/middle.yaml → chek-all');
    expect(d.message).toMatch(/known loops: \.loops\/: check-all; built-in: .*test-until-pass/);
    expect(d).toMatchObject({ file: join(cwd, '.loops/middle.yaml'), line: 1, path: ['from'] });
  });

  it.each<[string, string, RegExp]>([
    ['a number', 'from: 3\n', /from: must name a parent loop file, but it is a number/],
    ['a list', 'from: [a, b]\n', /but it is a list/],
    ['an empty string', 'from: ""\n', /but it is an empty string/],
  ])('from: that is %s is an error', (_label, text, message) => {
    const cwd = projectWith({ 'child.yaml': `name: c\n${text}` });
    const d = onlyError(load(cwd, 'child.yaml').diagnostics);
    expect(d.message).toMatch(message);
    expect(d).toMatchObject({ file: join(cwd, 'child.yaml'), line: 2 });
  });

  it('invalid YAML in a parent points at the parent file and line', () => {
    const cwd = projectWith({
      'lib/base.yaml': 'name: base\ncontext:\n  a: 1\n  a: 2\n',
      'child.yaml': 'name: c\nfrom: lib/base\n',
    });
    const d = onlyError(load(cwd, 'child.yaml').diagnostics);
    expect(d).toMatchObject({ file: join(cwd, 'lib/base.yaml'), line: 4 });
    expect(d.message).toMatch(/invalid YAML: .*(unique|duplicate)/i);
    expect(d.message).toContain('parent of child.yaml through from:');
  });

  it('a parent that is not a mapping is an error in the parent file', () => {
    const cwd = projectWith({ 'base.yaml': '- a\n- b\n', 'child.yaml': 'name: c\nfrom: base\n' });
    const d = onlyError(load(cwd, 'child.yaml').diagnostics);
    expect(d).toMatchObject({ file: join(cwd, 'base.yaml') });
    expect(d.message).toMatch(/a parent loop must be a mapping of loop fields, but this file is a list/);
  });

  it("a problem validation finds in a parent's field is reported in the parent's file, with the near field", () => {
    const cwd = projectWith({
      'base.yaml': `name: base\ndescription: d\ninitial: check\nparameters:\n  target:\n    type: string\n    defualt: src\nstates:\n  check: { action: "true", on_yes: done, on_no: fix }${LOOP_TAIL}`,
      'child.yaml': 'name: c\nfrom: base\n',
    });
    const d = onlyError(load(cwd, 'child.yaml').diagnostics);
    expect(d).toMatchObject({ file: join(cwd, 'base.yaml'), line: 7 });
    expect(d.message).toBe('unknown field "defualt" (did you mean "default"?)');
    expect(d.fix).toBe('rename it "default"');
  });

  it("a child's context: value of the wrong type for its parent's parameter is the child's error, at its line", () => {
    const cwd = projectWith({
      'base.yaml': `name: base\ndescription: d\ninitial: check\nparameters:\n  tries:\n    type: integer\n    default: 3\nstates:\n  check: { action: "echo \${context.tries}", on_yes: done, on_no: fix }${LOOP_TAIL}`,
      'child.yaml': 'name: c\nfrom: base\ncontext:\n  tries: abc\n',
    });
    const d = onlyError(load(cwd, 'child.yaml').diagnostics);
    expect(d).toMatchObject({ file: join(cwd, 'child.yaml'), line: 4 });
    expect(d.message).toBe('parameter "tries" of loop "c": expected an integer, got "abc"');
    expect(d.fix).toBe('make context.tries an integer');
  });

  it('a parameter the child declares that its parent lacks and nothing reads is a warning naming the near one', () => {
    const base = `name: base\ndescription: d\ninitial: check\nparameters:\n  test_cmd:\n    type: command\n    default: npm test\nstates:\n  check: { action: "\${context.test_cmd}", on_yes: done, on_no: fix }${LOOP_TAIL}`;
    const cwd = projectWith({
      'base.yaml': base,
      'typo.yaml': 'name: c\nfrom: base\nparameters:\n  test_cmnd:\n    type: command\n    default: pytest -q\n',
      'used.yaml':
        'name: u\nfrom: base\nparameters:\n  extra:\n    type: string\n    default: x\nstates:\n  fix: { action: "echo \${context.extra}", next: check }\n',
    });
    const typo = load(cwd, 'typo.yaml');
    expect(typo.definition?.context).toMatchObject({ test_cmd: 'npm test' });
    const warned = typo.diagnostics.filter((d) => d.severity === 'warning');
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatchObject({ file: join(cwd, 'typo.yaml'), line: 4 });
    expect(warned[0]!.message).toBe(
      'parameter "test_cmnd" is not one that base (from:) declares, and nothing reads it (did you mean "test_cmd"?): the run would not use its value',
    );
    // A parameter of the child's own that its states read is no problem.
    expect(load(cwd, 'used.yaml').diagnostics).toEqual([]);
  });

  it('a parameter written without its type is a missing field, not a list of allowed values', () => {
    const cwd = projectWith({
      'p.yaml': `name: p\ndescription: d\ninitial: check\nparameters:\n  target:\n    default: src\nstates:\n  check: { action: "true", on_yes: done, on_no: fix }${LOOP_TAIL}`,
    });
    const d = onlyError(load(cwd, 'p.yaml').diagnostics);
    expect(d.message).toBe('missing required field "type"');
    expect(d.fix).toBe('add type: to parameters.target');
  });

  it('validation of the merged loop still runs: a child that removes the initial state is refused', () => {
    const cwd = projectWith({
      'base.yaml': `name: base\ndescription: d\ninitial: check\nstates:\n  check: { action: "true", on_yes: done, on_no: fix }${LOOP_TAIL}`,
      'child.yaml': 'name: c\nfrom: base\nstates:\n  check: null\n',
    });
    expect(
      load(cwd, 'child.yaml')
        .diagnostics.filter((d) => d.severity === 'error')
        .map((d) => d.message)
        .join('\n'),
    ).toMatch(/initial state "check"/);
  });
});

const LIB = `fragments:
  shell_check:
    description: a shell check judged by its exit code
    action: "check \${context.target}"
    evaluate: { type: exit_code }
    on_yes: done
    on_no: fix
    timeout: 60
  notify:
    action: "echo notify"
    next: done
`;

describe('import:, fragments: and fragment:', () => {
  it('expands an imported fragment under the state keys; the definition keeps no reuse key', () => {
    const cwd = projectWith({
      '.loops/lib/checks.yaml': LIB,
      '.loops/mine.yaml': `name: mine\ndescription: d\nimport: [lib/checks.yaml]\ncontext: { target: src }\ninitial: check\nstates:\n  check:\n    fragment: shell_check\n    timeout: 5\n${LOOP_TAIL}`,
    });
    const def = loaded(cwd, '.loops/mine.yaml');
    expect(def.states.check).toMatchObject({
      action: 'check ${context.target}',
      evaluate: { type: 'exit_code' },
      on_yes: 'done',
      on_no: 'fix',
      timeout: 5,
    });
    expect(def.states.check?.description).toBeUndefined();
    expect(JSON.stringify(def)).not.toMatch(/"(fragment|fragments|import|from)"/);
  });

  it('an inline fragment wins over an imported one of the same name', () => {
    const cwd = projectWith({
      'lib.yaml': LIB,
      'mine.yaml': `name: mine\ndescription: d\nimport: [lib]\nfragments:\n  shell_check: { action: "inline", next: done }\ninitial: check\nstates:\n  check: { fragment: shell_check }\n  done: { terminal: true }\n`,
    });
    expect(loaded(cwd, 'mine.yaml').states.check).toMatchObject({ action: 'inline', next: 'done' });
  });

  it("a parent's imports resolve relative to the parent; the child can redefine its fragments", () => {
    const cwd = projectWith({
      'shared/lib/checks.yaml': LIB,
      'shared/base.yaml': `name: base\ndescription: d\nimport: [lib/checks]\ncontext: { target: src }\ninitial: check\nstates:\n  check: { fragment: shell_check }\n  report: { fragment: notify }${LOOP_TAIL}`,
      'child.yaml': `name: child\nfrom: shared/base\nfragments:\n  notify: { action: "echo child", next: done }\n`,
    });
    const def = loaded(cwd, 'child.yaml');
    expect(def.states.check).toMatchObject({ action: 'check ${context.target}', on_no: 'fix' });
    expect(def.states.report).toMatchObject({ action: 'echo child', next: 'done' });
  });

  it('two libraries of one import: list defining the same fragment is an error, unless the file defines it inline', () => {
    const other = 'fragments:\n  notify: { action: "echo other", next: done }\n';
    const body = `initial: report\nstates:\n  report: { fragment: notify }\n  done: { terminal: true }\n`;
    const cwd = projectWith({
      'a.yaml': LIB,
      'b.yaml': other,
      'clash.yaml': `name: x\ndescription: d\nimport: [a, b]\n${body}`,
      'chosen.yaml': `name: x\ndescription: d\nimport: [a, b]\nfragments:\n  notify: { action: "echo mine", next: done }\n${body}`,
    });
    const d = onlyError(load(cwd, 'clash.yaml').diagnostics);
    expect(d.message).toBe('fragment "notify" is defined in both a.yaml and b.yaml');
    expect(d).toMatchObject({ path: ['import', 1], file: join(cwd, 'clash.yaml'), line: 3 });
    expect(loaded(cwd, 'chosen.yaml').states.report?.action).toBe('echo mine');
  });

  it('the same library imported twice (or by parent and child) is no clash', () => {
    const cwd = projectWith({
      'lib.yaml': LIB,
      'base.yaml': `name: base\ndescription: d\nimport: [lib, ./lib.yaml]\ncontext: { target: src }\ninitial: check\nstates:\n  check: { fragment: shell_check }${LOOP_TAIL}`,
      'child.yaml': 'name: child\nfrom: base\nimport: [lib.yaml]\n',
    });
    expect(loaded(cwd, 'child.yaml').states.check?.action).toBe('check ${context.target}');
  });

  it('an unknown fragment names the state, lists the known fragments with a suggestion, and points at its line', () => {
    const cwd = projectWith({
      'lib.yaml': LIB,
      'mine.yaml': `name: mine\ndescription: d\nimport: [lib]\nfragments:\n  local_one: { next: done }\ninitial: check\nstates:\n  check:\n    action: x\n    fragment: shell_chek\n  done: { terminal: true }\n`,
    });
    const d = onlyError(load(cwd, 'mine.yaml').diagnostics);
    expect(d).toMatchObject({
      state: 'check',
      path: ['states', 'check', 'fragment'],
      file: join(cwd, 'mine.yaml'),
      line: 10,
    });
    expect(d.message).toBe(
      'fragment "shell_chek" is not defined (did you mean "shell_check"?); known fragments: local_one, notify, shell_check',
    );
    expect(formatDiagnostic(d)).toMatch(/mine\.yaml:10:5: error: state "check": fragment "shell_chek"/);
  });

  it('an unknown fragment in a parent is reported in the parent file', () => {
    const cwd = projectWith({
      'base.yaml': `name: base\ndescription: d\ninitial: check\nstates:\n  check:\n    fragment: nothing\n    next: done\n  done: { terminal: true }\n`,
      'child.yaml': 'name: c\nfrom: base\n',
    });
    const d = onlyError(load(cwd, 'child.yaml').diagnostics);
    expect(d).toMatchObject({ file: join(cwd, 'base.yaml'), line: 6, state: 'check' });
    expect(d.message).toMatch(/fragment "nothing" is not defined; no fragments are defined/);
  });

  it.each<[string, Record<string, string>, string, { file: string; line?: number; message: RegExp }]>([
    [
      'a missing library',
      {},
      'import: [lib/nope.yaml]',
      { file: 'mine.yaml', line: 3, message: /fragment library "lib\/nope.yaml" not found; looked in/ },
    ],
    [
      'import: that is not a list',
      {},
      'import: lib.yaml',
      { file: 'mine.yaml', line: 3, message: /import: must be a list of fragment library files/ },
    ],
    [
      'a library without fragments:',
      { 'lib.yaml': 'name: not-a-library\n' },
      'import: [lib]',
      { file: 'lib.yaml', message: /this fragment library has no fragments/ },
    ],
    [
      'a library that is a list',
      { 'lib.yaml': '- a\n' },
      'import: [lib]',
      { file: 'lib.yaml', message: /a fragment library must be a mapping with fragments:, but this file is a list/ },
    ],
    [
      'a library with invalid YAML',
      { 'lib.yaml': 'fragments:\n  a: [\n' },
      'import: [lib]',
      { file: 'lib.yaml', message: /invalid YAML.*\(imported by mine.yaml\)/ },
    ],
    [
      'a library fragment that uses a fragment',
      { 'lib.yaml': 'fragments:\n  a: { next: done }\n  b:\n    fragment: a\n' },
      'import: [lib]',
      { file: 'lib.yaml', line: 4, message: /fragments cannot be nested/ },
    ],
    [
      'an inline fragment that is not a mapping',
      {},
      'fragments:\n  a: 3',
      { file: 'mine.yaml', line: 4, message: /fragment "a" must be a mapping of state fields/ },
    ],
  ])('%s is an error in the file at fault', (_label, files, reuse, expected) => {
    const cwd = projectWith({
      ...files,
      'mine.yaml': `name: mine\ndescription: d\n${reuse}\ninitial: done\nstates:\n  done: { terminal: true }\n`,
    });
    const d = onlyError(load(cwd, 'mine.yaml').diagnostics);
    expect(d.file).toBe(join(cwd, expected.file));
    if (expected.line !== undefined) expect(d.line).toBe(expected.line);
    expect(d.message).toMatch(expected.message);
  });

  it('from: and import: in a library are not followed, with a warning in the library', () => {
    const cwd = projectWith({
      'lib.yaml': `from: x\n${LIB}`,
      'mine.yaml': 'name: mine\ndescription: d\nimport: [lib]\ninitial: done\nstates:\n  done: { terminal: true }\n',
    });
    expect(loaded(cwd, 'mine.yaml').states.done).toBeDefined();
    expect(expanded(cwd, 'mine.yaml').diagnostics).toEqual([
      expect.objectContaining({
        severity: 'warning',
        file: join(cwd, 'lib.yaml'),
        line: 1,
        message: expect.stringMatching(/from: in a fragment library is not followed/),
      }),
    ]);
  });
});

describe('built-in fragment libraries (loops/lib/)', () => {
  it("seed 001's harbor_scorer example imports lib/benchmark.yaml from the catalog as written", () => {
    const cwd = projectWith({
      '.loops/score.yaml': `name: score\ndescription: d\ncontext: { tasks_dir: tasks }\nimport:\n  - lib/benchmark.yaml\ninitial: score\nstates:\n  score:\n    fragment: run_benchmark\n    action: "my-scorer \${context.tasks_dir}"\n    on_yes: pass\n    on_no: fail\n  pass: { terminal: true }\n  fail: { terminal: true, failure: true }\n`,
    });
    expect(loaded(cwd, '.loops/score.yaml').states.score).toMatchObject({
      action: 'my-scorer ${context.tasks_dir}',
      action_type: 'shell',
      evaluate: { type: 'harbor_scorer' },
    });
  });

  it('lib/common.yaml fragments compose into valid states; a state refines the evaluator', () => {
    const cwd = projectWith({
      '.loops/gates.yaml': `name: gates\ndescription: d\nimport: [lib/common]\ninitial: lint\nstates:
  lint: { fragment: shell_exit, action: "npm run lint", on_yes: count, on_no: done }
  count: { fragment: numeric_gate, action: "echo 3", evaluate: { operator: le, target: 5 }, on_yes: ask, on_no: done }
  ask: { fragment: llm_gate, action: "Is the change small?", on_yes: done, on_no: done }
  done: { terminal: true }\n`,
    });
    const def = loaded(cwd, '.loops/gates.yaml');
    expect(def.states.lint?.evaluate).toEqual({ type: 'exit_code' });
    expect(def.states.count?.evaluate).toMatchObject({ type: 'output_numeric', operator: 'le', target: 5 });
    expect(def.states.ask).toMatchObject({ action_type: 'prompt', evaluate: { type: 'llm_structured' } });
  });

  it('a project library of the same path wins over the built-in one', () => {
    const cwd = projectWith({
      '.loops/lib/common.yaml': 'fragments:\n  shell_exit: { action: "echo mine", next: done }\n',
      '.loops/mine.yaml':
        'name: mine\ndescription: d\nimport: [lib/common.yaml]\ninitial: a\nstates:\n  a: { fragment: shell_exit }\n  done: { terminal: true }\n',
    });
    expect(loaded(cwd, '.loops/mine.yaml').states.a).toMatchObject({ action: 'echo mine', next: 'done' });
  });
});

describe('locating problems found after composition', () => {
  /** expandReuse, then validation of the composed document, each problem located as the loader does. */
  function composedProblems(cwd: string, path: string): Diagnostic[] {
    const { raw, locate } = expanded(cwd, path);
    expect(raw && locate).toBeTruthy();
    return validateLoop(raw)
      .diagnostics.filter((d) => d.severity === 'error')
      .map((d) => locate!(d));
  }

  it('a bad key supplied by an imported fragment is placed at its line in the library', () => {
    const cwd = projectWith({
      'lib.yaml': 'fragments:\n  f:\n    action: x\n    evaluat: { type: exit_code }\n',
      'mine.yaml':
        'name: m\ndescription: d\nimport: [lib]\ninitial: s\nstates:\n  s: { fragment: f, next: done }\n  done: { terminal: true }\n',
    });
    const [d, ...rest] = composedProblems(cwd, 'mine.yaml');
    expect(rest).toEqual([]);
    expect(d).toMatchObject({ file: join(cwd, 'lib.yaml'), line: 4, state: 's', path: ['states', 's', 'evaluat'] });
  });

  it('a bad key supplied by an inline fragment of the loaded file is placed at its line in fragments:', () => {
    const cwd = projectWith({
      'mine.yaml':
        'name: m\ndescription: d\nfragments:\n  f:\n    action: x\n    on_yes: [done]\ninitial: s\nstates:\n  s: { fragment: f, on_no: done }\n  done: { terminal: true }\n',
    });
    const problems = composedProblems(cwd, 'mine.yaml');
    expect(problems).toEqual([
      expect.objectContaining({ file: join(cwd, 'mine.yaml'), line: 6, state: 's', path: ['states', 's', 'on_yes'] }),
    ]);
  });

  it('a bad key inherited from a parent is placed in the parent; one written in the child stays in the child', () => {
    const cwd = projectWith({
      'base.yaml':
        'name: b\ndescription: d\ninitial: s\nstates:\n  s:\n    action: x\n    next: nowhere\n  done: { terminal: true }\n',
      'child.yaml': 'name: c\nfrom: base\nstates:\n  done: { terminal: true, colour: red }\n',
    });
    const problems = composedProblems(cwd, 'child.yaml');
    // The schema stops at the unknown key (written in the child): no file, so the loader places it.
    expect(problems).toEqual([expect.objectContaining({ path: ['states', 'done', 'colour'] })]);
    expect(problems[0]!.file).toBeUndefined();
    writeFileSync(join(cwd, 'child.yaml'), 'name: c\nfrom: base\n');
    const [d] = composedProblems(cwd, 'child.yaml');
    expect(d).toMatchObject({ file: join(cwd, 'base.yaml'), line: 7, state: 's' });
  });
});
