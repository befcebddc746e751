/**
 * `ll-loop create` without a terminal: the answers as flags, end to end into `.loops/`, and the
 * usage errors that name the missing or wrong flag.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCommand, createSpec, type CreateOptions } from '../../client/commands/create.js';
import { completePreset } from '../../client/create/complete.js';
import { parseInterval, presetFromFlags, type CreateFlags } from '../../client/create/preset.js';
import { InvalidLoopError, LoopExistsError } from '../../client/create/save.js';
import { UsageError } from '../../errors/errors.js';
import { loadLoopFile } from '../../loader/load.js';

function dir(files: Record<string, string> = {}): string {
  const cwd = mkdtempSync(join(tmpdir(), 'll-create-flags-'));
  for (const [f, text] of Object.entries(files)) {
    mkdirSync(join(cwd, f, '..'), { recursive: true });
    writeFileSync(join(cwd, f), text);
  }
  return cwd;
}

function flags(partial: Partial<CreateFlags>): CreateFlags {
  return { check: [], fix: [], step: [], ...partial };
}

async function create(
  cwd: string,
  partial: Partial<CreateFlags>,
  extra: Partial<CreateOptions> = {},
): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await createCommand({
    cwd,
    flags: flags(partial),
    yes: false,
    force: false,
    dryRun: false,
    interactive: false,
    out: (t) => void (out += t),
    err: (t) => void (err += t),
    ...extra,
  });
  return { code, out, err };
}

/** The seed 001 session's answers (type errors + lint, 10 attempts), with this project's commands. */
const SEED_ANSWERS = { kind: 'fix', check: ['npx tsc --noEmit', 'npm run lint'], maxAttempts: '10' };

const SEED_YAML = `name: fix-types-and-lint
description: Run \`npx tsc --noEmit\` and \`npm run lint\`; fix what fails until all pass.
initial: check_types
max_iterations: 10
states:
  check_types:
    action: npx tsc --noEmit
    on_success: check_lint
    on_failure: fix_types
  fix_types:
    action: Run \`npx tsc --noEmit\` and fix the type errors it reports. Change only what is needed.
    action_type: prompt
    next: check_types
  check_lint:
    action: npm run lint
    on_success: all_valid
    on_failure: fix_lint
  fix_lint:
    action: Run \`npm run lint\` and fix the lint errors it reports. Change only what is needed.
    action_type: prompt
    next: check_lint
  all_valid:
    terminal: true
`;

describe('the flags path, end to end', () => {
  it('writes .loops/fix-types-and-lint.yaml for the seed answers; it loads as ll-loop validate loads it', async () => {
    const cwd = dir();
    const r = await create(cwd, SEED_ANSWERS);
    expect(r.code).toBe(0);
    expect(r.out).toContain('✓ Wrote .loops/fix-types-and-lint.yaml (5 states)');
    const file = join(cwd, '.loops', 'fix-types-and-lint.yaml');
    expect(readFileSync(file, 'utf8')).toBe(SEED_YAML);
    const loaded = loadLoopFile(file, {}, cwd);
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.definition).toMatchObject({ name: 'fix-types-and-lint', initial: 'check_types', max_iterations: 10 });
    expect(readdirSync(join(cwd, '.loops'))).toEqual(['fix-types-and-lint.yaml']);
  });

  it('--fix pairs with --check by position; "shell:" makes a command, others are prompts', async () => {
    const cwd = dir();
    await create(cwd, {
      kind: 'fix',
      check: ['npm run lint', 'npm test'],
      fix: ['shell: npm run lint -- --fix'],
      name: 'mine',
    });
    const def = loadLoopFile(join(cwd, '.loops', 'mine.yaml'), {}, cwd).definition!;
    expect(def.states.fix_tests).toMatchObject({
      action: expect.stringContaining('Run `npm test`'),
      action_type: 'prompt',
    });
    expect(def.states.fix_lint).toMatchObject({ action: 'npm run lint -- --fix', next: 'check_lint' });
    expect(def.states.fix_lint!.action_type).toBeUndefined();
  });

  it('--validate validates the written file by name', async () => {
    const cwd = dir();
    const r = await create(cwd, SEED_ANSWERS, { next: 'validate' });
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/✓ .*fix-types-and-lint\.yaml is valid \(5 states\)/);
  });

  it('--dry-run prints the YAML and writes nothing', async () => {
    const cwd = dir();
    const r = await create(cwd, SEED_ANSWERS, { dryRun: true });
    expect(r.out).toBe(SEED_YAML);
    expect(existsSync(join(cwd, '.loops'))).toBe(false);
  });

  it('the default name skips names already taken in .loops/', async () => {
    const cwd = dir({ '.loops/fix-types-and-lint.yaml': 'name: other\n' });
    const r = await create(cwd, SEED_ANSWERS);
    expect(r.out).toContain('.loops/fix-types-and-lint-2.yaml');
    expect(readFileSync(join(cwd, '.loops', 'fix-types-and-lint.yaml'), 'utf8')).toBe('name: other\n');
  });

  it('refuses to replace an existing loop without --force, and replaces it with --force', async () => {
    const cwd = dir({ '.loops/keep.yaml': 'name: keep\n' });
    await expect(create(cwd, { ...SEED_ANSWERS, name: 'keep' })).rejects.toThrow(LoopExistsError);
    await expect(create(cwd, { ...SEED_ANSWERS, name: 'keep' })).rejects.toThrow(
      /keep\.yaml already exists.*nothing was written/,
    );
    expect(readFileSync(join(cwd, '.loops', 'keep.yaml'), 'utf8')).toBe('name: keep\n');
    await create(cwd, { ...SEED_ANSWERS, name: 'keep' }, { force: true });
    expect(readFileSync(join(cwd, '.loops', 'keep.yaml'), 'utf8')).toBe(
      SEED_YAML.replace('fix-types-and-lint', 'keep'),
    );
  });

  it('an existing .yml of that name counts too; --force replaces it with the .yaml', async () => {
    const cwd = dir({ '.loops/keep.yml': 'name: keep\n' });
    await expect(create(cwd, { ...SEED_ANSWERS, name: 'keep' })).rejects.toThrow(/keep\.yml already exists/);
    await create(cwd, { ...SEED_ANSWERS, name: 'keep' }, { force: true });
    expect(readdirSync(join(cwd, '.loops'))).toEqual(['keep.yaml']);
  });

  it('never writes a loop that does not validate (a shell ${VAR} is an interpolation error)', async () => {
    const cwd = dir();
    const attempt = create(cwd, { kind: 'fix', check: ['test -n "${HOME}"'], name: 'bad' });
    await expect(attempt).rejects.toThrow(InvalidLoopError);
    await expect(create(cwd, { kind: 'fix', check: ['test -n "${HOME}"'], name: 'bad' })).rejects.toThrow(
      /\.loops\/bad\.yaml.*HOME/s,
    );
    expect(existsSync(join(cwd, '.loops', 'bad.yaml'))).toBe(false);
    expect(readdirSync(join(cwd, '.loops'))).toEqual([]);
  });

  it('--yes takes the wizard defaults: the detected, preselected checks (seed session on a Python project)', async () => {
    const cwd = dir({ 'pyproject.toml': '[project]\n', 'src/app/__init__.py': '' });
    const r = await create(cwd, {}, { yes: true });
    expect(r.out).toContain('.loops/fix-types-and-lint.yaml');
    const def = loadLoopFile(join(cwd, '.loops', 'fix-types-and-lint.yaml'), {}, cwd).definition!;
    expect(def.states.check_types!.action).toBe('mypy src/');
    expect(def.states.check_lint!.action).toBe('ruff check src/');
    expect(def.states.check_tests).toBeUndefined();
  });
});

describe('missing answers name the flags', () => {
  const usage =
    (cwd: string, partial: Partial<CreateFlags>, yes = false) =>
    () =>
      completePreset(presetFromFlags(flags(partial)), cwd, yes);

  it.each<[string, Partial<CreateFlags>, RegExp]>([
    ['no --kind', {}, /needs --kind \(fix, constraints, metric, sequence or each\)/],
    ['fix without --check', { kind: 'fix' }, /--kind fix needs --check/],
    ['constraints without --check', { kind: 'constraints' }, /--kind constraints needs --check/],
    ['metric without --measure or --target', { kind: 'metric' }, /needs --measure .* and --target/],
    ['sequence without --until', { kind: 'sequence', step: ['make'] }, /needs --until/],
    ['sequence without --step', { kind: 'sequence', until: 'make' }, /needs --step/],
  ])('%s', (_what, partial, message) => {
    const run = usage(dir(), partial);
    expect(run).toThrow(UsageError);
    expect(run).toThrow(message);
  });

  it('the fix shows an example for the kind', () => {
    try {
      usage(dir(), { kind: 'metric' })();
      expect.unreachable();
    } catch (err) {
      expect((err as UsageError).fix).toContain('--measure');
    }
  });

  it('--yes with nothing detected still needs --check', () => {
    expect(usage(dir(), {}, true)).toThrow(/--check \(none detected in this project\)/);
  });

  it('--yes minimizing defaults --target to 0; maximizing needs it', () => {
    expect(usage(dir(), { kind: 'metric', measure: 'x' }, true)()).toMatchObject({ target: 0, direction: 'minimize' });
    expect(usage(dir(), { kind: 'metric', measure: 'x', toward: 'max' }, true)).toThrow(/--target/);
  });
});

describe('--kind names', () => {
  it.each<[string, string]>([
    ['fix', 'fix'],
    ['Fix until clean', 'fix'],
    ['fix-until-clean', 'fix'],
    ['maintain', 'constraints'],
    ['invariants', 'constraints'],
    ['convergence', 'metric'],
    ['METRIC', 'metric'],
    ['imperative', 'sequence'],
  ])('--kind %s is %s', (given, kind) => {
    expect(presetFromFlags(flags({ kind: given })).kind).toBe(kind);
  });
});

describe('wrong flags', () => {
  it.each<[string, Partial<CreateFlags>, RegExp]>([
    ['an unknown kind', { kind: 'loop' }, /--kind must be one of fix, constraints, metric, sequence, each, got "loop"/],
    [
      '--measure with --kind fix',
      { kind: 'fix', measure: 'x' },
      /--measure does not apply to --kind fix \(it is for --kind metric\)/,
    ],
    ['--step with --kind fix', { kind: 'fix', step: ['x'] }, /--step does not apply/],
    ['--interval with --kind fix', { kind: 'fix', interval: '5m' }, /--interval does not apply to --kind fix/],
    ['--check with --kind metric', { kind: 'metric', check: ['x'] }, /--check does not apply/],
    ['more --fix than --check', { kind: 'fix', check: ['a'], fix: ['b', 'c'] }, /2 --fix for 1 --check/],
    ['two --fix for a metric', { kind: 'metric', fix: ['a', 'b'] }, /takes one --fix/],
    ['--max-attempts 0', { maxAttempts: '0' }, /--max-attempts must be a whole number of 1 or more, got "0"/],
    ['--max-attempts 2.5', { maxAttempts: '2.5' }, /--max-attempts must be a whole number/],
    ['--toward sideways', { toward: 'sideways' }, /--toward must be min or max/],
    ['--target abc', { target: 'abc' }, /--target must be a number, got "abc"/],
    ['--tolerance -1', { tolerance: '-1' }, /--tolerance must be 0 or more/],
    ['--interval soon', { interval: 'soon' }, /--interval must be a duration/],
    ['--name with a slash', { name: 'a/b' }, /--name: "a\/b" is not a usable loop name/],
    [
      '--fix "shell:" with no command',
      { kind: 'fix', check: ['a'], fix: ['shell:  '] },
      /--fix needs a command after "shell:"/,
    ],
    ['an empty --check', { kind: 'fix', check: [' '] }, /--check needs a command/],
  ])('%s', (_what, partial, message) => {
    expect(() => presetFromFlags(flags(partial))).toThrow(UsageError);
    expect(() => presetFromFlags(flags(partial))).toThrow(message);
  });

  it.each([
    ['60', 60],
    ['90s', 90],
    ['5m', 300],
    ['1h', 3600],
    ['0', 0],
  ])('--interval %s is %i seconds', (text, seconds) => {
    expect(parseInterval(text)).toBe(seconds);
  });
});

describe('the command line', () => {
  const ctx = (cwd: string, values: Record<string, unknown>, positionals: string[] = []) => ({
    cwd,
    positionals,
    values: values as never,
    out: () => {},
    err: () => {},
    terminal: {},
  });

  it('--validate with --run, and --dry-run with either, are usage errors', () => {
    expect(() => createSpec.run(ctx(dir(), { validate: true, run: true }))).toThrow(
      /--validate and --run cannot be used together/,
    );
    expect(() => createSpec.run(ctx(dir(), { 'dry-run': true, run: true }))).toThrow(/--dry-run writes nothing/);
  });

  it('a positional is the name; two different names are an error', async () => {
    const cwd = dir();
    await createSpec.run(ctx(cwd, { yes: true, kind: 'fix', check: ['make check'] }, ['gate']));
    expect(existsSync(join(cwd, '.loops', 'gate.yaml'))).toBe(true);
    expect(() => createSpec.run(ctx(cwd, { yes: true, name: 'a' }, ['b']))).toThrow(/two names given/);
  });
});
