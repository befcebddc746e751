/**
 * The built-in catalog as a user meets it, through the command table the CLI dispatches to:
 * every shipped loop validates from an empty directory and follows the catalog's conventions;
 * `list --builtin`, `list`, and `install` (refusals, --force, --as, unknown names); a project loop
 * shadows the built-in of the same name; the files ship with the package. Running each built-in
 * on Temporal is in tests/integration/catalog.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { BUILTIN_LOOPS_DIR, builtinLoopNames } from '../../loader/catalog.js';
import { EXIT } from '../../errors/exit-codes.js';
import { loadLoop } from '../../loader/load.js';
import { error, formatDiagnostic, refusalOf } from '../../fsm/diagnostics.js';
import { PACKAGE_ROOT } from '../../host/paths.js';
import { runCliInProcess } from '../support/cli.js';

const EXPECTED = [
  'bisect-regression',
  'build',
  'check-matrix',
  'code-run-gate',
  'complexity-ratchet',
  'coverage-up',
  'dead-code',
  'dependency-upgrades',
  'docs-sync',
  'fan-out-files',
  'file-task',
  'fix-bug',
  'fix-lint',
  'fix-types',
  'flaky-tests',
  'format',
  'general-task',
  'incremental-refactor',
  'migrate-usage',
  'perf-guard',
  'reduce-errors',
  'review-and-fix',
  'security-advisories',
  'stricter-types',
  'test-until-pass',
];

/** States whose command is the loop's tool itself (git bisect, around test_cmd), not a parameter. */
const FIXED_COMMANDS: Record<string, string[]> = { 'bisect-regression': ['bisect'] };

const emptyProject = () => mkdtempSync(join(tmpdir(), 'll-loop-catalog-'));

interface RawLoop {
  name: string;
  max_iterations?: number;
  parameters?: Record<string, { type: string; default?: unknown; required?: boolean; description?: string }>;
  states: Record<
    string,
    { terminal?: boolean; failure?: boolean; action_type?: string; on_error?: string; action?: string }
  >;
}

describe('the built-in loops', () => {
  it('are the generic loops of the catalog', () => {
    expect(builtinLoopNames()).toEqual(EXPECTED);
  });

  it.each(EXPECTED)(
    '%s validates from an empty directory, without warnings, through ll-loop validate',
    async (name) => {
      const cwd = emptyProject();
      const r = await runCliInProcess(['validate', name], { cwd: cwd });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(EXIT.ok);
      expect(r.stdout).toContain(join(BUILTIN_LOOPS_DIR, `${name}.yaml`));
      expect(r.stdout).not.toMatch(/warning/);
    },
  );

  it.each(EXPECTED)(
    '%s follows the catalog conventions (parameters, limits, failure terminals, agent errors)',
    (name) => {
      const raw = parse(readFileSync(join(BUILTIN_LOOPS_DIR, `${name}.yaml`), 'utf8'), { version: '1.2' }) as RawLoop;
      expect(raw.name).toBe(name);
      // An explicit cap, not the default 50: each loop's own budget is documented against it.
      expect(raw.max_iterations).toBeGreaterThan(0);
      expect(raw.max_iterations).toBeLessThan(50);
      const parameters = Object.entries(raw.parameters ?? {});
      expect(parameters.length).toBeGreaterThan(0);
      for (const [, spec] of parameters) {
        expect(spec.description, `${name}: every parameter says what it is`).toBeTruthy();
        // Runnable as is: every parameter has a default, so `ll-loop run <name>` needs no --context.
        expect(spec.default, `${name}: every parameter has a default`).toBeDefined();
      }
      const terminals = Object.values(raw.states).filter((s) => s.terminal);
      expect(terminals.some((s) => s.failure === true)).toBe(true);
      expect(terminals.some((s) => s.failure !== true)).toBe(true);
      for (const [stateName, state] of Object.entries(raw.states)) {
        if (state.action_type === 'prompt')
          expect(state.on_error, `${name}.${stateName}: a failing agent ends in a failure terminal`).toBeDefined();
      }
      // The loop is generic: every command it runs comes from a parameter, except the states of
      // FIXED_COMMANDS, which run a fixed tool around parameters.
      const commands = Object.entries(raw.states).filter(
        ([stateName, s]) =>
          s.action !== undefined &&
          s.action_type !== 'prompt' &&
          !s.terminal &&
          !FIXED_COMMANDS[name]?.includes(stateName),
      );
      for (const [, state] of commands) expect(state.action).toMatch(/^\$\{context\.[a-z_]+\}$/);
    },
  );

  it.each(EXPECTED)('%s has a row in docs/catalog.md naming each parameter with its default', (name) => {
    const doc = readFileSync(join(PACKAGE_ROOT, 'docs', 'catalog.md'), 'utf8');
    const row = doc.split('\n').find((line) => line.startsWith(`| \`${name}\` |`));
    expect(row, `docs/catalog.md has no table row for ${name}`).toBeDefined();
    const raw = parse(readFileSync(join(BUILTIN_LOOPS_DIR, `${name}.yaml`), 'utf8'), { version: '1.2' }) as RawLoop;
    for (const [param, spec] of Object.entries(raw.parameters ?? {})) {
      expect(row).toContain(`\`${param}\``);
      // Short defaults are quoted verbatim; long shell defaults are summarised.
      const text = String(spec.default);
      if (text.length <= 40) expect(row).toContain(`(\`${text}\`)`);
    }
  });

  it('binds --context values to the declared parameter types, and rejects a value of the wrong type', () => {
    const cwd = emptyProject();
    const ok = loadLoop('reduce-errors', cwd, { context: { target: '3' }, requireParameters: true });
    expect(ok.definition?.context.target).toBe(3);
    expect(ok.definition?.context.count_cmd).toContain('tsc');
    const bad = loadLoop('test-until-pass', cwd, { context: { max_fixes: 'many' }, requireParameters: true });
    expect(bad.definition).toBeUndefined();
    const problem = bad.diagnostics.find((d) => d.severity === 'error');
    expect(problem?.message).toBe('parameter "max_fixes" of loop "test-until-pass": expected an integer, got "many"');
    // The command line's value is at fault, not the file: no file or line, and the refusal says so.
    expect(problem).toMatchObject({ given: 'context', fix: 'pass --context max_fixes=3' });
    expect(problem?.file).toBeUndefined();
    expect(formatDiagnostic(problem!)).toMatch(/^--context: error: parameter "max_fixes"/);
    expect(refusalOf(bad.file, bad.diagnostics)).toBe(
      `the --context values are not valid for ${join(BUILTIN_LOOPS_DIR, 'test-until-pass.yaml')}`,
    );
    // A file that is itself invalid is still the file's fault.
    expect(refusalOf('x.yaml', [error(['initial'], 'missing'), problem!])).toBe('x.yaml is not a valid loop');
  });

  it('ship with the package (npm pack lists loops/*.yaml and the fragment libraries in loops/lib/, and no code cache of this machine)', () => {
    // A file of the CLI's code cache as it writes them beside its bundle (bin/code-cache.js): made
    // by this machine's V8 for this machine, it has no place in a package.
    const cacheDir = join(PACKAGE_ROOT, 'dist', 'cli', 'code-cache');
    mkdirSync(cacheDir, { recursive: true });
    const cached = join(cacheDir, `npm-pack-probe-${process.pid}.bin`);
    writeFileSync(cached, 'not code');
    const r = (() => {
      try {
        return spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
          cwd: PACKAGE_ROOT,
          encoding: 'utf8',
          timeout: 60_000,
        });
      } finally {
        rmSync(cached, { force: true });
      }
    })();
    expect(r.status).toBe(0);
    const files = (JSON.parse(r.stdout) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map((f) => f.path);
    expect(files).toContain('dist/cli/whole.cjs');
    expect(files.filter((f) => f.startsWith('dist/cli/code-cache/'))).toEqual([]);
    const shipped = readdirSync(BUILTIN_LOOPS_DIR, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => relative(PACKAGE_ROOT, join(e.parentPath, e.name)));
    expect(shipped).toContain('loops/lib/common.yaml');
    expect(files.filter((f) => f.startsWith('loops/')).sort()).toEqual(shipped.sort());
  });
});

describe('ll-loop list', () => {
  it('--builtin lists each built-in with its description and parameters (--json and table)', async () => {
    const cwd = emptyProject();
    const json = await runCliInProcess(['list', '--builtin', '--json'], { cwd: cwd });
    expect(json.code).toBe(EXIT.ok);
    const listed = JSON.parse(json.stdout) as Array<{
      name: string;
      valid: boolean;
      description: string;
      parameters: Record<string, unknown>;
      shadowed: boolean;
    }>;
    expect(listed.map((l) => l.name)).toEqual(EXPECTED);
    for (const l of listed) {
      expect(l).toMatchObject({ valid: true, shadowed: false });
      expect(l.description.length).toBeGreaterThan(20);
    }
    expect(Object.keys(listed.find((l) => l.name === 'test-until-pass')!.parameters)).toEqual([
      'test_cmd',
      'max_fixes',
    ]);
    const text = await runCliInProcess(['list', '--builtin'], { cwd: cwd });
    expect(text.stdout).toMatch(/^NAME\s+CATEGORY\s+SHADOWED BY\s+DESCRIPTION/);
    expect(text.stdout).toMatch(/test-until-pass\s+testing\s+-\s+Run the tests; while they fail/);
    expect(text.stdout).toContain('ll-loop install <name>');
    const filtered = await runCliInProcess(['list', '--builtin', '--category', 'testing', '--json'], { cwd: cwd });
    expect((JSON.parse(filtered.stdout) as Array<{ name: string }>).map((l) => l.name)).toEqual([
      'code-run-gate',
      'coverage-up',
      'fix-bug',
      'flaky-tests',
      'test-until-pass',
    ]);
  });

  it('without --builtin shows the project loops and names the built-ins', async () => {
    const cwd = emptyProject();
    const r = await runCliInProcess(['list'], { cwd: cwd });
    expect(r.stdout).toContain(`no loops in ${join(cwd, '.loops')}`);
    expect(r.stdout).toContain(`built-in: ${EXPECTED.join(', ')} (ll-loop list --builtin)`);
    // --json keeps listing only .loops/: scripts reading it see the project's own loops.
    expect(JSON.parse((await runCliInProcess(['list', '--json'], { cwd: cwd })).stdout)).toEqual([]);
  });

  it('refuses --builtin with --running', async () => {
    const r = await runCliInProcess(['list', '--builtin', '--running'], { cwd: emptyProject() });
    expect(r.code).toBe(EXIT.usage);
    expect(r.stderr).toContain('--running and --builtin cannot be combined');
  });
});

describe('ll-loop install', () => {
  it('copies the built-in into .loops/, says how to run it, and the copy is the same loop', async () => {
    const cwd = emptyProject();
    const r = await runCliInProcess(['install', 'fix-lint'], { cwd: cwd });
    expect(r.code).toBe(EXIT.ok);
    expect(r.stdout).toContain('wrote .loops/fix-lint.yaml (the built-in fix-lint)');
    expect(r.stdout).toContain('run it:   ll-loop run fix-lint   (set a parameter: --context lint_cmd=VALUE)');
    expect(r.stdout).toMatch(/max_fixes\s+default 3\s+Agent fix attempts/);
    const copy = readFileSync(join(cwd, '.loops', 'fix-lint.yaml'), 'utf8');
    expect(copy).toBe(
      `# Installed from the built-in loop fix-lint by ll-loop install; edit it freely.\n${readFileSync(join(BUILTIN_LOOPS_DIR, 'fix-lint.yaml'), 'utf8')}`,
    );
    const project = loadLoop('fix-lint', cwd);
    expect(project.file).toBe(join(cwd, '.loops', 'fix-lint.yaml'));
    expect(project.definition).toEqual(loadLoop(join(BUILTIN_LOOPS_DIR, 'fix-lint.yaml'), cwd).definition);
  });

  it('refuses to overwrite an existing file without --force, and overwrites it with --force', async () => {
    const cwd = emptyProject();
    await runCliInProcess(['install', 'test-until-pass'], { cwd: cwd });
    const file = join(cwd, '.loops', 'test-until-pass.yaml');
    writeFileSync(file, 'my edits');
    const refused = await runCliInProcess(['install', 'test-until-pass'], { cwd: cwd });
    expect(refused.code).toBe(EXIT.usage);
    expect(refused.stderr).toContain('error: .loops/test-until-pass.yaml already exists');
    expect(refused.stderr).toContain('fix: pass --force to overwrite it');
    expect(readFileSync(file, 'utf8')).toBe('my edits');
    const forced = await runCliInProcess(['install', 'test-until-pass', '--force'], { cwd: cwd });
    expect(forced.code).toBe(EXIT.ok);
    expect(forced.stdout).toContain('overwrote .loops/test-until-pass.yaml');
    expect(loadLoop('test-until-pass', cwd).definition?.name).toBe('test-until-pass');
  });

  it('counts a .yml copy as existing too', async () => {
    const cwd = emptyProject();
    mkdirSync(join(cwd, '.loops'));
    writeFileSync(join(cwd, '.loops', 'fix-types.yml'), 'name: mine');
    const refused = await runCliInProcess(['install', 'fix-types'], { cwd: cwd });
    expect(refused.stderr).toContain('.loops/fix-types.yml already exists');
  });

  it('says it cannot write when .loops is not a directory', async () => {
    const cwd = emptyProject();
    writeFileSync(join(cwd, '.loops'), 'not a directory');
    const r = await runCliInProcess(['install', 'fix-lint'], { cwd: cwd });
    expect(r.code).toBe(EXIT.usage);
    expect(r.stderr).toContain('error: cannot write .loops/fix-lint.yaml: ');
    expect(r.stderr).toContain('fix: check that .loops/ is a writable directory');
  });

  it('names the built-ins, with a did-you-mean, for an unknown name', async () => {
    const r = await runCliInProcess(['install', 'fix-lnt'], { cwd: emptyProject() });
    expect(r.code).toBe(EXIT.usage);
    expect(r.stderr).toContain(
      `error: no built-in loop named "fix-lnt" (did you mean "fix-lint"?); built-in loops: ${EXPECTED.join(', ')}`,
    );
    expect(r.stderr).toContain('fix: ll-loop list --builtin');
    const none = await runCliInProcess(['install'], { cwd: emptyProject() });
    expect(none.stderr).toContain('install needs the name of a built-in loop');
  });

  it('--as installs under another name, renaming the copy; a bad name is refused', async () => {
    const cwd = emptyProject();
    const r = await runCliInProcess(['install', 'reduce-errors', '--as', 'lint-down', '--json'], { cwd: cwd });
    expect(JSON.parse(r.stdout)).toMatchObject({
      builtin: 'reduce-errors',
      name: 'lint-down',
      file: join(cwd, '.loops', 'lint-down.yaml'),
      overwritten: false,
    });
    const loaded = loadLoop('lint-down', cwd);
    expect(loaded.definition?.name).toBe('lint-down');
    expect(loaded.definition?.states).toEqual(loadLoop('reduce-errors', cwd).definition?.states);
    const bad = await runCliInProcess(['install', 'reduce-errors', '--as', '../escape'], { cwd: cwd });
    expect(bad.stderr).toContain('--as "../escape" is not a loop name');
  });
});

describe('shadowing', () => {
  it('a project loop of the same name runs instead of the built-in, and list --builtin says so', async () => {
    const cwd = emptyProject();
    await runCliInProcess(['install', 'coverage-up'], { cwd: cwd });
    const file = join(cwd, '.loops', 'coverage-up.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^description: .*$/m, 'description: our own coverage loop'));
    expect(loadLoop('coverage-up', cwd).definition?.description).toBe('our own coverage loop');
    const listed = JSON.parse((await runCliInProcess(['list', '--builtin', '--json'], { cwd: cwd })).stdout) as Array<{
      name: string;
      shadowed: boolean;
      project_file?: string;
    }>;
    expect(listed.find((l) => l.name === 'coverage-up')).toMatchObject({ shadowed: true, project_file: file });
    expect(listed.filter((l) => l.shadowed).map((l) => l.name)).toEqual(['coverage-up']);
    const text = await runCliInProcess(['list', '--builtin'], { cwd: cwd });
    expect(text.stdout).toMatch(/coverage-up\s+testing\s+\.loops\/coverage-up\.yaml/);
    expect(text.stdout).toContain('a shadowed built-in does not run by its name');
  });
});
