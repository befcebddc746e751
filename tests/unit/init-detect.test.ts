/**
 * `ll-loop init`: the checks found in fixture projects written here, the loops proposed for them
 * (the proposal table), whether each check's program is installed, and the plan's kept files.
 */
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findChecker } from '../../client/init/checker.js';
import { firstWord } from '../../client/init/checks.js';
import { readPyproject } from '../../client/init/detect-python.js';
import { detectProjectChecks, makeTargets } from '../../client/init/detect.js';
import { loopText, planInit } from '../../client/init/plan.js';
import { proposeLoops } from '../../client/init/proposals.js';

function projectWith(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'll-init-detect-'));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  return dir;
}

const pkg = (scripts: Record<string, string>) => JSON.stringify({ name: 'p', scripts });

const PYPROJECT = `
[project]
name = "demo"
dependencies = ["requests>=2"]

[project.optional-dependencies]
dev = [
  "pytest>=8",  # the tests
  "mypy",
]

[tool.ruff]
line-length = 100

[tool.mypy]
strict = true
`;

/** kind, command, source — what the plan lists. */
type Row = [string, string, string];

describe('detectProjectChecks', () => {
  it.each<[string, Record<string, string>, Row[]]>([
    ['nothing recognisable finds nothing', { 'README.md': '# hi\n', 'notes.txt': 'x' }, []],
    [
      'npm scripts test, lint, typecheck and build',
      { 'package.json': pkg({ test: 'vitest run', lint: 'eslint .', typecheck: 'tsc --noEmit', build: 'tsc' }) },
      [
        ['tests', 'npm test', 'package.json scripts.test'],
        ['lint', 'npm run lint', 'package.json scripts.lint'],
        ['types', 'npm run typecheck', 'package.json scripts.typecheck'],
        ['build', 'npm run build', 'package.json scripts.build'],
      ],
    ],
    [
      "npm init's placeholder test script is no check; pnpm's lock file picks pnpm",
      {
        'package.json': pkg({ test: 'echo "Error: no test specified" && exit 1', lint: 'eslint .' }),
        'pnpm-lock.yaml': '',
      },
      [['lint', 'pnpm run lint', 'package.json scripts.lint']],
    ],
    [
      'pyproject.toml with pytest and mypy in the dependencies, ruff and mypy configured',
      { 'pyproject.toml': PYPROJECT },
      [
        ['tests', 'pytest -q', 'pyproject.toml dependencies'],
        ['lint', 'ruff check .', 'pyproject.toml [tool.ruff]'],
        ['types', 'mypy .', 'pyproject.toml [tool.mypy]'],
      ],
    ],
    [
      'setup.cfg sections and pyrightconfig.json; a uv lock file runs them with uv run',
      {
        'setup.cfg': '[metadata]\nname = x\n\n[tool:pytest]\naddopts = -q\n',
        'pyrightconfig.json': '{}',
        'uv.lock': '',
      },
      [
        ['tests', 'uv run pytest -q', 'setup.cfg [tool:pytest]'],
        ['types', 'uv run pyright', 'pyrightconfig.json'],
      ],
    ],
    [
      'Cargo.toml',
      { 'Cargo.toml': '[package]\nname = "demo"\n' },
      [
        ['tests', 'cargo test', 'Cargo.toml'],
        ['lint', 'cargo clippy --all-targets -- -D warnings', 'Cargo.toml'],
        ['types', 'cargo check --all-targets', 'Cargo.toml'],
        ['build', 'cargo build', 'Cargo.toml'],
      ],
    ],
    [
      'go.mod',
      { 'go.mod': 'module example.com/demo\n\ngo 1.22\n' },
      [
        ['tests', 'go test ./...', 'go.mod'],
        ['lint', 'go vet ./...', 'go.mod'],
        ['build', 'go build ./...', 'go.mod'],
      ],
    ],
    [
      'Makefile targets (a variable is no target)',
      {
        Makefile:
          'CC := gcc\n.PHONY: test lint\ntest: build\n\t./run-tests\nlint:\n\tshellcheck *.sh\nbuild:\n\tcc x.c\n',
      },
      [
        ['tests', 'make test', 'Makefile target test'],
        ['lint', 'make lint', 'Makefile target lint'],
        ['build', 'make build', 'Makefile target build'],
      ],
    ],
    [
      '.pre-commit-config.yaml names its hooks',
      {
        '.pre-commit-config.yaml':
          'repos:\n  - repo: https://github.com/psf/black\n    rev: 24.1.0\n    hooks:\n      - id: black\n  - repo: local\n    hooks:\n      - id: shellcheck\n',
      },
      [['lint', 'pre-commit run --all-files', '.pre-commit-config.yaml hooks black, shellcheck']],
    ],
  ])('%s', (_title, files, expected) => {
    const rows = detectProjectChecks(projectWith(files)).map((c): Row => [c.kind, c.command, c.source]);
    expect(rows).toEqual(expected);
  });

  it('a broken package.json or pre-commit file is no check and no crash', () => {
    const dir = projectWith({ 'package.json': '{ "scripts": ', '.pre-commit-config.yaml': 'repos: [' });
    expect(detectProjectChecks(dir)).toEqual([]);
  });

  it('a hook id with a line break or control character is left out of the plan', () => {
    const dir = projectWith({
      '.pre-commit-config.yaml':
        'repos:\n  - repo: local\n    hooks:\n      - id: "x\\nstates: {}"\n      - id: "\\e[31mred"\n      - id: ok\n',
    });
    expect(detectProjectChecks(dir).map((c) => c.source)).toEqual(['.pre-commit-config.yaml hooks ok']);
  });

  it('the program behind an npm script is the checker; ruff has its own fix', () => {
    const checks = detectProjectChecks(
      projectWith({
        'package.json': pkg({ lint: 'cross-env CI=1 eslint .', 'lint:fix': 'eslint . --fix' }),
        'ruff.toml': '',
      }),
    );
    expect(checks.map((c) => [c.command, c.tool, c.fix])).toEqual([
      ['npm run lint', 'eslint', 'npm run lint:fix'],
      ['ruff check .', 'ruff', 'ruff check . --fix'],
    ]);
  });
});

describe('small readers', () => {
  it('firstWord skips assignments and wrappers', () => {
    expect(firstWord('CI=1 npx --no -- tsc --noEmit')).toBe('tsc');
    expect(firstWord('uv run pytest -q')).toBe('pytest');
    expect(firstWord('vitest run')).toBe('vitest');
  });

  it('makeTargets reads rules, not assignments', () => {
    expect([...makeTargets('A ?= 1\nB := 2\nall test: deps\ncheck::\n\techo\n')]).toEqual(['all', 'test', 'check']);
  });

  it('readPyproject reads poetry dependency tables and mypy files', () => {
    const facts = readPyproject(
      '[tool.poetry.group.dev.dependencies]\npytest = "^8"\nPyright = "*"\n[tool.mypy]\nfiles = ["src"]\n',
    );
    expect([...facts.dependencies].sort()).toEqual(['pyright', 'pytest']);
    expect(facts.mypyFiles).toBe(true);
  });
});

describe('proposeLoops (the proposal table)', () => {
  it('tests, types, lint and build get their built-ins with the commands as parameters', () => {
    const checks = detectProjectChecks(
      projectWith({ 'package.json': pkg({ test: 'vitest run', lint: 'eslint .', typecheck: 'tsc', build: 'tsc' }) }),
    );
    const { loops, unmatched } = proposeLoops(checks);
    expect(loops.map((l) => [l.name, l.from, l.parameters])).toEqual([
      ['test-until-pass', 'test-until-pass', { test_cmd: 'npm test' }],
      ['fix-lint', 'fix-lint', { lint_cmd: 'npm run lint', fix_cmd: 'true' }],
      ['fix-types', 'fix-types', { type_cmd: 'npm run typecheck' }],
      ['build', 'build', { build_cmd: 'npm run build' }],
    ]);
    expect(unmatched).toEqual([]);
  });

  it('a second check of a kind is named by its program, or its ecosystem when that is no plain word', () => {
    const checks = detectProjectChecks(
      projectWith({
        'package.json': pkg({ test: './run-tests.sh' }),
        'pyproject.toml': '[tool.mypy]\n[tool.pyright]\n[tool.pytest]\n',
      }),
    );
    expect(proposeLoops(checks).loops.map((l) => l.name)).toEqual([
      'test-until-pass',
      'test-until-pass-pytest',
      'fix-types',
      'fix-types-pyright',
    ]);
    const scriptFirst = proposeLoops([...checks.slice(1), checks[0]!]).loops.map((l) => l.name);
    expect(scriptFirst).toContain('test-until-pass-node');
  });

  it('a Makefile test beside an npm test is test-until-pass-make', () => {
    const checks = detectProjectChecks(
      projectWith({ 'package.json': pkg({ test: 'jest' }), Makefile: 'test:\n\tjest\ncheck:\n\ttrue\n' }),
    );
    expect(proposeLoops(checks).loops.map((l) => [l.name, l.parameters])).toEqual([
      ['test-until-pass', { test_cmd: 'npm test' }],
      ['test-until-pass-make', { test_cmd: 'make test' }],
    ]);
  });

  it('a rule whose built-in is missing proposes nothing', () => {
    const checks = detectProjectChecks(projectWith({ 'go.mod': 'module m\n' }));
    const rules = [{ kind: 'tests' as const, builtin: 'no-such-loop', parameters: () => ({}) }];
    const { loops, unmatched } = proposeLoops(checks, rules);
    expect(loops).toEqual([]);
    expect(unmatched).toHaveLength(3);
  });

  it('the written loop says from: the built-in and sets its parameters', () => {
    const [loop] = proposeLoops(detectProjectChecks(projectWith({ 'pyproject.toml': '[tool.ruff]\n' }))).loops;
    expect(loop).toBeDefined();
    expect(loopText(loop!)).toContain(
      'name: fix-lint\nfrom: fix-lint\nparameters:\n  lint_cmd:\n    default: ruff check .\n  fix_cmd:\n    default: ruff check . --fix\n',
    );
  });
});

describe('checker and plan', () => {
  it('finds a program in node_modules/.bin or the venv, and says how to install one that is missing', () => {
    const dir = projectWith({ 'node_modules/.bin/eslint': '#!/bin/sh\n', '.venv/bin/pytest': '#!/bin/sh\n' });
    chmodSync(join(dir, 'node_modules/.bin/eslint'), 0o755);
    chmodSync(join(dir, '.venv/bin/pytest'), 0o755);
    const env = { PATH: '/nonexistent' };
    expect(findChecker('eslint', dir, env)).toEqual({ found: true, tool: 'eslint', where: 'node_modules/.bin' });
    expect(findChecker('pytest', dir, env)).toEqual({ found: true, tool: 'pytest', where: '.venv/bin' });
    expect(findChecker('mypy', dir, env)).toEqual({
      found: false,
      tool: 'mypy',
      fix: "pip install mypy in the project's venv",
    });
  });

  it('a loop file already in .loops/ is planned as kept', () => {
    const dir = projectWith({ 'go.mod': 'module m\n', '.loops/test-until-pass.yaml': 'name: mine\n' });
    const plan = planInit(dir, { PATH: '/nonexistent' });
    expect(plan.loops.map((l) => [l.file, l.status, l.checker.found])).toEqual([
      ['.loops/test-until-pass.yaml', 'kept', false],
      ['.loops/fix-lint.yaml', 'new', false],
      ['.loops/build.yaml', 'new', false],
    ]);
    expect(plan.agent).toMatchObject({ found: false, tool: 'claude' });
  });

  it('the agent: the default names LL_HOST_CLI; one set that is not found is named with its fix', () => {
    const dir = projectWith({ 'go.mod': 'module m\n', 'bin/agent': '#!/bin/sh\n' });
    expect(planInit(dir, { PATH: '/nonexistent' }).agent).toMatchObject({
      found: false,
      tool: 'claude',
      fix: 'install Claude Code (the default agent) or set LL_HOST_CLI to your coding agent',
    });
    expect(planInit(dir, { PATH: '/nonexistent', LL_HOST_CLI: 'myagent' }).agent).toMatchObject({
      found: false,
      tool: 'myagent',
      fix: 'LL_HOST_CLI is "myagent", which is not on PATH: install it, or set LL_HOST_CLI to the agent\'s path or a command on PATH',
    });
    // bin/agent exists but is not executable
    expect(planInit(dir, { PATH: '/nonexistent', LL_HOST_CLI: './bin/agent' }).agent).toMatchObject({
      found: false,
      fix: expect.stringMatching(/^LL_HOST_CLI is "\.\/bin\/agent", which is not an executable file: /),
    });
    chmodSync(join(dir, 'bin/agent'), 0o755);
    expect(planInit(dir, { PATH: '/nonexistent', LL_HOST_CLI: './bin/agent' }).agent).toMatchObject({ found: true });
  });
});
