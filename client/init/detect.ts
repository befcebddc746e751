/**
 * The checks a project already has, for `ll-loop init`: package.json scripts, Python tool
 * configuration (detect-python.ts), Cargo.toml, go.mod, Makefile targets, pre-commit hooks. Pure
 * detection: it only reads files in the project root, runs nothing and asks no network.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { firstWord, readText, type CheckKind, type DetectedCheck } from './checks.js';
import { pythonChecks } from './detect-python.js';

/** npm init's placeholder test script, which always fails. */
const NO_TEST_SPECIFIED = /no test specified/;

/** `npm test` / `npm run x`, or pnpm's or yarn's, by the lock file present. */
function scriptRunner(cwd: string): (script: string) => string {
  const pm = existsSync(join(cwd, 'pnpm-lock.yaml')) ? 'pnpm' : existsSync(join(cwd, 'yarn.lock')) ? 'yarn' : 'npm';
  return (s) => (s === 'test' ? `${pm} test` : pm === 'yarn' ? `yarn ${s}` : `${pm} run ${s}`);
}

/** The script names each kind is found under, in order of preference. */
const SCRIPT_NAMES: Array<[CheckKind, string[]]> = [
  ['tests', ['test']],
  ['lint', ['lint']],
  ['types', ['typecheck', 'type-check', 'check-types', 'types', 'tsc']],
  ['build', ['build']],
];

function nodeChecks(cwd: string): DetectedCheck[] {
  const text = readText(cwd, 'package.json');
  if (text === undefined) return [];
  let pkg: unknown;
  try {
    pkg = JSON.parse(text);
  } catch {
    return [];
  }
  const raw = (pkg as { scripts?: unknown } | null)?.scripts;
  if (!raw || typeof raw !== 'object') return [];
  const scripts = raw as Record<string, unknown>;
  const body = (name: string) => {
    const v = scripts[name];
    return typeof v === 'string' && v.trim() !== '' ? v : undefined;
  };
  const run = scriptRunner(cwd);
  const out: DetectedCheck[] = [];
  for (const [kind, names] of SCRIPT_NAMES) {
    const name = names.find((n) => body(n) !== undefined);
    const script = name === undefined ? undefined : body(name);
    if (name === undefined || script === undefined) continue;
    if (kind === 'tests' && NO_TEST_SPECIFIED.test(script)) continue;
    const fixName = kind === 'lint' ? ['lint:fix', 'lint-fix', 'fix'].find((n) => body(n) !== undefined) : undefined;
    out.push({
      kind,
      command: run(name),
      ...(fixName === undefined ? {} : { fix: run(fixName) }),
      tool: firstWord(script),
      source: `package.json scripts.${name}`,
      ecosystem: 'node',
    });
  }
  return out;
}

function rustChecks(cwd: string): DetectedCheck[] {
  if (!existsSync(join(cwd, 'Cargo.toml'))) return [];
  const check = (kind: CheckKind, command: string, fix?: string): DetectedCheck => ({
    kind,
    command,
    ...(fix === undefined ? {} : { fix }),
    tool: 'cargo',
    source: 'Cargo.toml',
    ecosystem: 'rust',
  });
  return [
    check('tests', 'cargo test'),
    check('lint', 'cargo clippy --all-targets -- -D warnings', 'cargo clippy --fix --allow-dirty --allow-staged'),
    check('types', 'cargo check --all-targets'),
    check('build', 'cargo build'),
  ];
}

function goChecks(cwd: string): DetectedCheck[] {
  if (!existsSync(join(cwd, 'go.mod'))) return [];
  const check = (kind: CheckKind, command: string): DetectedCheck => ({
    kind,
    command,
    tool: 'go',
    source: 'go.mod',
    ecosystem: 'go',
  });
  return [check('tests', 'go test ./...'), check('lint', 'go vet ./...'), check('build', 'go build ./...')];
}

/** The Makefile targets each kind is found under, in order of preference. */
const MAKE_TARGETS: Array<[CheckKind, string[]]> = [
  ['tests', ['test', 'tests', 'check']],
  ['lint', ['lint']],
  ['types', ['typecheck', 'type-check', 'types', 'mypy']],
  ['build', ['build']],
];

/** The targets a Makefile defines (`name:` at the start of a line, not `name :=`). */
export function makeTargets(text: string): Set<string> {
  const targets = new Set<string>();
  for (const line of text.split('\n')) {
    const m = /^([A-Za-z0-9_.\- ]+?)\s*::?(?!=)/.exec(line);
    if (m?.[1]) for (const t of m[1].split(/\s+/)) if (t && !t.startsWith('.')) targets.add(t);
  }
  return targets;
}

function makeChecks(cwd: string): DetectedCheck[] {
  const file = ['GNUmakefile', 'Makefile', 'makefile'].find((f) => existsSync(join(cwd, f)));
  const text = file === undefined ? undefined : readText(cwd, file);
  if (file === undefined || text === undefined) return [];
  const targets = makeTargets(text);
  const out: DetectedCheck[] = [];
  for (const [kind, names] of MAKE_TARGETS) {
    const target = names.find((n) => targets.has(n));
    if (target !== undefined)
      out.push({
        kind,
        command: `make ${target}`,
        tool: 'make',
        source: `${file} target ${target}`,
        ecosystem: 'make',
      });
  }
  return out;
}

/** The hook ids of a .pre-commit-config.yaml (`repos[].hooks[].id`); [] when it lists none. */
function preCommitHooks(text: string): string[] {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch {
    return [];
  }
  const repos = (doc as { repos?: unknown } | null)?.repos;
  if (!Array.isArray(repos)) return [];
  return repos.flatMap((repo: unknown) => {
    const hooks = (repo as { hooks?: unknown } | null)?.hooks;
    return Array.isArray(hooks)
      ? hooks.flatMap((h: unknown) => {
          const id = (h as { id?: unknown } | null)?.id;
          // A hook id is shown in the plan and in the written file's comment: one line, no control characters.
          return typeof id === 'string' && /^[^\x00-\x1f\x7f]+$/.test(id) ? [id] : [];
        })
      : [];
  });
}

function preCommitChecks(cwd: string): DetectedCheck[] {
  const text = readText(cwd, '.pre-commit-config.yaml');
  if (text === undefined) return [];
  const hooks = preCommitHooks(text);
  if (hooks.length === 0) return [];
  return [
    {
      kind: 'lint',
      command: 'pre-commit run --all-files',
      tool: 'pre-commit',
      source: `.pre-commit-config.yaml hooks ${hooks.join(', ')}`,
      ecosystem: 'pre-commit',
    },
  ];
}

/**
 * The project's checks, by ecosystem (node, python, rust, go, make, pre-commit) and within one
 * by kind (tests, lint, types, build); the same command is listed once.
 */
export function detectProjectChecks(cwd: string): DetectedCheck[] {
  const found = [
    ...nodeChecks(cwd),
    ...pythonChecks(cwd),
    ...rustChecks(cwd),
    ...goChecks(cwd),
    ...makeChecks(cwd),
    ...preCommitChecks(cwd),
  ];
  const seen = new Set<string>();
  return found.filter((c) => !seen.has(c.command) && seen.add(c.command));
}
