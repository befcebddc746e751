/**
 * The checks `ll-loop create` offers, detected from the project's files: package.json scripts,
 * tsconfig/eslint config, pyproject/setup files, go.mod, Cargo.toml. Only reads files; every
 * check it returns is a shell command that exits 0 when the check passes.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ActionSpec } from './actions.js';
import { idForCommand } from './answers.js';
import { defaultFix, type CheckTopic } from './fixes.js';

export type { CheckTopic };

export interface CheckOption {
  /** The constraint name: the generated states are `check_<id>` and `fix_<id>`. */
  id: string;
  topic: CheckTopic;
  /** As the wizard lists it, e.g. "Type errors". */
  what: string;
  command: string;
  fix: ActionSpec;
  /** Preselected in the wizard, and used by `--yes` when no `--check` is given. */
  preselected: boolean;
}

const WHAT: Record<CheckTopic, string> = {
  types: 'Type errors',
  lint: 'Lint errors',
  tests: 'Test failures',
  vet: 'Vet findings',
  other: 'Check',
};

/** The seed's session preselects type and lint checks and leaves tests unticked. */
const PRESELECTED: ReadonlySet<CheckTopic> = new Set(['types', 'lint', 'vet']);

function option(topic: CheckTopic, command: string, id: string = topic): CheckOption {
  return {
    id,
    topic,
    what: WHAT[topic],
    command,
    fix: defaultFix(topic, command),
    preselected: PRESELECTED.has(topic),
  };
}

function readJson(file: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** `npm run x` / `pnpm run x` / `yarn x`, by the lock file present. */
function scriptRunner(cwd: string): (script: string) => string {
  if (existsSync(join(cwd, 'pnpm-lock.yaml'))) return (s) => (s === 'test' ? 'pnpm test' : `pnpm run ${s}`);
  if (existsSync(join(cwd, 'yarn.lock'))) return (s) => (s === 'test' ? 'yarn test' : `yarn ${s}`);
  return (s) => (s === 'test' ? 'npm test' : `npm run ${s}`);
}

/** npm init's placeholder test script, which always fails. */
const NO_TEST_SPECIFIED = /no test specified/;

function hasEslintConfig(cwd: string, pkg: Record<string, unknown>): boolean {
  if (pkg.eslintConfig !== undefined) return true;
  try {
    return readdirSync(cwd).some((f) =>
      /^(eslint\.config\.(js|mjs|cjs|ts|mts|cts)|\.eslintrc(\.(js|cjs|json|ya?ml))?)$/.test(f),
    );
  } catch {
    return false;
  }
}

function nodeChecks(cwd: string): CheckOption[] {
  const pkgFile = join(cwd, 'package.json');
  const hasTsconfig = existsSync(join(cwd, 'tsconfig.json'));
  if (!existsSync(pkgFile) && !hasTsconfig) return [];
  const pkg = readJson(pkgFile) ?? {};
  const scripts = pkg.scripts && typeof pkg.scripts === 'object' ? (pkg.scripts as Record<string, unknown>) : {};
  const has = (name: string) => typeof scripts[name] === 'string' && (scripts[name] as string).trim() !== '';
  const run = scriptRunner(cwd);
  const out: CheckOption[] = [];
  const typeScript = ['typecheck', 'type-check', 'check-types', 'tsc'].find(has);
  if (typeScript) out.push(option('types', run(typeScript)));
  else if (hasTsconfig) out.push(option('types', 'npx tsc --noEmit'));
  if (has('lint')) out.push(option('lint', run('lint')));
  else if (hasEslintConfig(cwd, pkg)) out.push(option('lint', 'npx eslint .'));
  if (has('test') && !NO_TEST_SPECIFIED.test(scripts.test as string)) out.push(option('tests', run('test')));
  return out;
}

function pythonChecks(cwd: string): CheckOption[] {
  const markers = ['pyproject.toml', 'setup.py', 'setup.cfg', 'requirements.txt'];
  if (!markers.some((m) => existsSync(join(cwd, m)))) return [];
  const src = existsSync(join(cwd, 'src')) ? 'src/' : '.';
  return [option('types', `mypy ${src}`), option('lint', `ruff check ${src}`), option('tests', 'pytest')];
}

function goChecks(cwd: string): CheckOption[] {
  if (!existsSync(join(cwd, 'go.mod'))) return [];
  return [option('vet', 'go vet ./...'), option('tests', 'go test ./...')];
}

function rustChecks(cwd: string): CheckOption[] {
  if (!existsSync(join(cwd, 'Cargo.toml'))) return [];
  return [option('types', 'cargo check'), option('lint', 'cargo clippy -- -D warnings'), option('tests', 'cargo test')];
}

/** What a check command finds, guessed from its words (for its id, label and default fix). */
export function topicOf(command: string): CheckTopic {
  const c = command.toLowerCase();
  // The shell's own `test` (and `[`) checks a condition; it runs no test suite.
  if (/^\s*(test|\[)(\s|$)/.test(c)) return 'other';
  if (/\b(tsc|mypy|pyright|typecheck|type-check|check-types|types)\b/.test(c) || /^cargo check\b/.test(c))
    return 'types';
  if (/\b(lint|eslint|ruff|clippy|flake8|pylint|golangci-lint|biome|stylelint|rubocop)\b/.test(c)) return 'lint';
  if (/\b(test|tests|pytest|jest|vitest|mocha|rspec)\b/.test(c)) return 'tests';
  if (/\bvet\b/.test(c)) return 'vet';
  return 'other';
}

/** A check for a command the user typed (`--check`, or the wizard's "Other…"). */
export function checkFor(command: string, taken: ReadonlySet<string>, fix?: ActionSpec): CheckOption {
  const topic = topicOf(command);
  const id = uniqueId(topic === 'other' ? idForCommand(command) : topic, taken);
  return { id, topic, what: WHAT[topic], command, fix: fix ?? defaultFix(topic, command), preselected: true };
}

/** A name not yet in `taken`: `base`, else `base_2`, `base_3`, … */
function uniqueId(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}_${n}`)) return `${base}_${n}`;
}

/**
 * The project's checks, in the order the wizard lists them (types, lint, tests per ecosystem).
 * Ids are unique (a second ecosystem's `types` becomes `types_2`); the same command is offered once.
 */
export function detectChecks(cwd: string): CheckOption[] {
  const found = [...nodeChecks(cwd), ...pythonChecks(cwd), ...goChecks(cwd), ...rustChecks(cwd)];
  const ids = new Set<string>();
  const commands = new Set<string>();
  const out: CheckOption[] = [];
  for (const check of found) {
    if (commands.has(check.command)) continue;
    commands.add(check.command);
    const id = uniqueId(check.id, ids);
    ids.add(id);
    out.push({ ...check, id });
  }
  // Nothing preselected (e.g. only a test script): preselect everything, so Enter does something.
  if (out.length && !out.some((c) => c.preselected)) return out.map((c) => ({ ...c, preselected: true }));
  return out;
}
