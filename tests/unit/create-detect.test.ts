/** `ll-loop create`: the checks offered for a project, and the names derived from commands. */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { idForCommand, nameProblem } from '../../client/create/answers.js';
import { checkFor, detectChecks, topicOf } from '../../client/create/detect.js';

function projectWith(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'll-create-detect-'));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  return dir;
}

const pkg = (scripts: Record<string, string>, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ name: 'p', scripts, ...extra });

/** id, command, preselected — what the wizard lists. */
function listed(files: Record<string, string>): Array<[string, string, boolean]> {
  return detectChecks(projectWith(files)).map((c) => [c.id, c.command, c.preselected]);
}

describe('detectChecks', () => {
  it.each<[string, Record<string, string>, Array<[string, string, boolean]>]>([
    ['an empty directory offers nothing', {}, []],
    [
      'package.json scripts (typecheck, lint, test); tests are offered unticked',
      {
        'package.json': pkg({ typecheck: 'tsc --noEmit', lint: 'eslint .', test: 'vitest run' }),
        'tsconfig.json': '{}',
      },
      [
        ['types', 'npm run typecheck', true],
        ['lint', 'npm run lint', true],
        ['tests', 'npm test', false],
      ],
    ],
    [
      'tsconfig without a typecheck script → npx tsc --noEmit; eslint config without a lint script → npx eslint .',
      { 'package.json': pkg({ build: 'tsc' }), 'tsconfig.json': '{}', 'eslint.config.js': 'export default []' },
      [
        ['types', 'npx tsc --noEmit', true],
        ['lint', 'npx eslint .', true],
      ],
    ],
    [
      'an .eslintrc.json counts as eslint config',
      { 'package.json': pkg({}), '.eslintrc.json': '{}' },
      [['lint', 'npx eslint .', true]],
    ],
    [
      'eslintConfig in package.json counts too',
      { 'package.json': pkg({}, { eslintConfig: {} }) },
      [['lint', 'npx eslint .', true]],
    ],
    [
      "npm init's placeholder test script is not a test suite",
      { 'package.json': pkg({ test: 'echo "Error: no test specified" && exit 1' }) },
      [],
    ],
    [
      'only a test script: it is preselected (Enter must pick something)',
      { 'package.json': pkg({ test: 'jest' }) },
      [['tests', 'npm test', true]],
    ],
    [
      'pnpm lock → pnpm run',
      { 'package.json': pkg({ lint: 'eslint .', test: 'jest' }), 'pnpm-lock.yaml': '' },
      [
        ['lint', 'pnpm run lint', true],
        ['tests', 'pnpm test', false],
      ],
    ],
    [
      'yarn lock → yarn',
      { 'package.json': pkg({ 'type-check': 'tsc' }), 'yarn.lock': '' },
      [['types', 'yarn type-check', true]],
    ],
    [
      'a broken package.json still lets tsconfig through',
      { 'package.json': '{ not json', 'tsconfig.json': '{}' },
      [['types', 'npx tsc --noEmit', true]],
    ],
    [
      'pyproject with src/ → the seed session: mypy src/, ruff check src/, pytest',
      { 'pyproject.toml': '[project]\nname = "p"\n', 'src/p/__init__.py': '' },
      [
        ['types', 'mypy src/', true],
        ['lint', 'ruff check src/', true],
        ['tests', 'pytest', false],
      ],
    ],
    [
      'requirements.txt without src/ checks the whole tree',
      { 'requirements.txt': 'requests\n' },
      [
        ['types', 'mypy .', true],
        ['lint', 'ruff check .', true],
        ['tests', 'pytest', false],
      ],
    ],
    [
      'go.mod → go vet, go test',
      { 'go.mod': 'module x\n' },
      [
        ['vet', 'go vet ./...', true],
        ['tests', 'go test ./...', false],
      ],
    ],
    [
      'Cargo.toml → cargo check, clippy, test',
      { 'Cargo.toml': '[package]\n' },
      [
        ['types', 'cargo check', true],
        ['lint', 'cargo clippy -- -D warnings', true],
        ['tests', 'cargo test', false],
      ],
    ],
    [
      'two ecosystems: ids stay unique (types_2, lint_2, tests_2)',
      { 'package.json': pkg({ lint: 'eslint .', test: 'jest' }), 'tsconfig.json': '{}', 'pyproject.toml': '' },
      [
        ['types', 'npx tsc --noEmit', true],
        ['lint', 'npm run lint', true],
        ['tests', 'npm test', false],
        ['types_2', 'mypy .', true],
        ['lint_2', 'ruff check .', true],
        ['tests_2', 'pytest', false],
      ],
    ],
  ])('%s', (_what, files, expected) => {
    expect(listed(files)).toEqual(expected);
  });

  it('default fixes are prompts that name the failing command', () => {
    const [types] = detectChecks(projectWith({ 'tsconfig.json': '{}' }));
    expect(types!.fix).toEqual({
      kind: 'prompt',
      text: 'Run `npx tsc --noEmit` and fix the type errors it reports. Change only what is needed.',
    });
  });
});

describe('commands typed by the user', () => {
  it.each([
    ['npx tsc --noEmit', 'types'],
    ['mypy src/', 'types'],
    ['cargo check', 'types'],
    ['npm run lint', 'lint'],
    ['ruff check .', 'lint'],
    ['npm test', 'tests'],
    ['go test ./...', 'tests'],
    ['go vet ./...', 'vet'],
    ['make check', 'other'],
    ['./scripts/verify.sh', 'other'],
    // The shell's test command checks a condition, not a test suite.
    ['test -f ok.txt', 'other'],
    ['[ -d dist ]', 'other'],
  ])('%s is about %s', (command, topic) => {
    expect(topicOf(command)).toBe(topic);
  });

  it.each([
    ['make check', 'check'],
    ['npx knip', 'knip'],
    ['python -m pip check', 'pip'],
    ['./scripts/verify.sh', 'check'],
    ['bash ./ci/check-format.sh', 'bash'],
    ['test -f ok.txt', 'ok_txt'],
    ['[ -d dist ]', 'dist'],
  ])('an "other" check %s gets the id %s', (command, id) => {
    expect(idForCommand(command)).toBe(id);
  });

  it('a typed check takes the next free id and a default fix unless one is given', () => {
    const taken = new Set(['types']);
    expect(checkFor('mypy .', taken)).toMatchObject({ id: 'types_2', topic: 'types', fix: { kind: 'prompt' } });
    expect(checkFor('make check', taken, { kind: 'shell', text: 'make fix' })).toMatchObject({
      id: 'check',
      fix: { kind: 'shell', text: 'make fix' },
    });
  });
});

describe('loop names', () => {
  it.each([
    ['fix-types-and-lint', undefined],
    ['v2.loop_a', undefined],
    ['', 'the name is empty'],
    ['-x', 'is not a usable loop name'],
    ['a/b', 'is not a usable loop name'],
    ['has space', 'is not a usable loop name'],
    ['loop.yaml', 'ends in a YAML extension'],
    ['x'.repeat(81), 'longer than 80 characters'],
  ])('%j', (name, problem) => {
    if (problem === undefined) expect(nameProblem(name)).toBeUndefined();
    else expect(nameProblem(name)).toContain(problem);
  });
});
