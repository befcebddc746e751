/**
 * The static checks, `npm run lint` and `npm run typecheck` (and both at once, for `npm test`):
 *
 * - typecheck: the project (tsconfig.json), the `ll-loop ui` page (ui/page/tsconfig.json) and the
 *   sandboxed code without Node's types (tsconfig.core.json), by TypeScript 7's native compiler;
 * - lint: oxlint's type-aware rule (no floating promises, .oxlintrc.json), ESLint's determinism
 *   boundary and layer tables (eslint.config.js, on the syntax alone), Prettier's check, and the
 *   dead-code check (knip, knip.jsonc: unused files, exports, types and dependencies) and the
 *   import-cycle check (madge: no two source files import each other, directly or round a circle).
 *
 * Why oxlint for the type-aware rule: ESLint's type-aware rules need TypeScript's JavaScript API,
 * which TypeScript 7 does not have, so they ran on TypeScript 5 programs of the project: 54 s of
 * CPU, two thirds of the checks. oxlint hands type-aware rules to tsgolint, typescript-eslint's
 * rules ported onto TypeScript 7's compiler: the same rule in ~7 s (docs/decisions.md, "Code
 * and checks"). The compilers run single-threaded or on few threads and the
 * processes side by side: `npm test` runs the checks at the lowest priority beside the tests.
 *
 * Usage: node tools/static-checks.mjs [--lint] [--typecheck] [--low-priority]   (neither: both)
 * `--low-priority`: this process and the tools it starts run at the lowest CPU priority (nice 19),
 * set before any of them starts (they inherit it); how `npm test` runs them beside the tests.
 * Output: each check's findings, as tsc, oxlint, ESLint, Prettier and knip print them; exit 1 if any failed.
 */
import { execFileSync, spawn } from 'node:child_process';
import { setPriority } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = new Set(process.argv.slice(2));
if (args.has('--low-priority')) {
  try {
    setPriority(19);
  } catch {
    // a platform that refuses: the checks run at normal priority, only slower for the tests
  }
}
const all = !args.has('--lint') && !args.has('--typecheck');
const wantLint = all || args.has('--lint');
const wantTypecheck = all || args.has('--typecheck');

const PRETTIER_CACHE = join(root, 'node_modules', '.cache', 'prettier-check.json');
const TTY = String(process.stdout.isTTY === true);

/**
 * `node <script> <args…>` in the repository: resolve with its output (prefixed with `what` when it
 * failed) and whether it exited 0. `fix` is said should it not start.
 */
function check(what, script, scriptArgs, fix = 'run "npm install"') {
  // Colour only for a terminal, as tsc's `--pretty` (the tools see a pipe, and some colour it anyway).
  const env = process.stdout.isTTY ? process.env : { ...process.env, NO_COLOR: '1' };
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script, ...scriptArgs], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    tools.add(child);
    child.on('close', () => tools.delete(child));
    const chunks = [];
    child.stdout.on('data', (d) => chunks.push(d));
    child.stderr.on('data', (d) => chunks.push(d));
    child.on('error', (err) =>
      resolve({ ok: false, text: `${what}: could not start ${script}: ${err.message}\nfix: ${fix}\n` }),
    );
    child.on('close', (code) => {
      const out = Buffer.concat(chunks).toString();
      resolve({ ok: code === 0, text: code === 0 ? out : `${what}:\n${out}` });
    });
  });
}

/** The tools running now. */
const tools = new Set();

/**
 * Every process under this one (the tools and what their Node wrappers start: the native tsc,
 * tsgolint), from `ps`: they share this process's group with `npm test` and vitest, so the group
 * cannot be signalled alone.
 */
function descendants() {
  let table;
  try {
    table = execFileSync('ps', ['-A', '-o', 'pid=,ppid='], { encoding: 'utf8' });
  } catch {
    return [...tools].map((c) => c.pid).filter((pid) => pid !== undefined);
  }
  const children = new Map();
  for (const line of table.split('\n')) {
    const [pid, ppid] = line.trim().split(/\s+/).map(Number);
    if (!pid || !ppid) continue;
    if (!children.has(ppid)) children.set(ppid, []);
    children.get(ppid).push(pid);
  }
  const found = [];
  const queue = [process.pid];
  while (queue.length) for (const pid of children.get(queue.shift()) ?? []) (found.push(pid), queue.push(pid));
  return found;
}

// A signal to this process ends the tools too: none is left to run on alone.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    for (const pid of descendants()) {
      try {
        process.kill(pid, signal);
      } catch {
        // gone already
      }
    }
    process.exit(130);
  });
}

/** Print a check's output as it ends (the checks run at once; each one's output stays whole). */
async function report(result) {
  const r = await result;
  if (r.text) process.stdout.write(r.text);
  return r.ok;
}

/** The configurations the type check covers. */
const TYPECHECKED = ['tsconfig.json', join('ui', 'page', 'tsconfig.json'), 'tsconfig.core.json'];

/** `tsc --noEmit -p <config>` by TypeScript 7 for every configuration, one after another. */
async function typecheckAll() {
  const tsc = join(root, 'node_modules', 'typescript-native', 'bin', 'tsc');
  let ok = true;
  for (const config of TYPECHECKED) {
    const r = check(`tsc -p ${config}`, tsc, ['--noEmit', '--singleThreaded', '--pretty', TTY, '-p', config]);
    ok = (await report(r)) && ok;
  }
  return ok;
}

/**
 * oxlint with its type-aware rules (.oxlintrc.json): tsgolint builds a TypeScript 7 program for
 * each tsconfig.json a file belongs to, and an inferred one for the JavaScript tooling. Quiet
 * when clean. Two threads: the machine's cores are shared with the tests.
 */
function oxlint() {
  const bin = join(root, 'node_modules', 'oxlint', 'bin', 'oxlint');
  return check('oxlint --type-aware', bin, ['--type-aware', '--threads', '2', '--quiet', '--format', 'stylish']);
}

/**
 * ESLint (eslint.config.js) over the repository, in a process of its own like the others: in this
 * one it would hold the event loop for its whole run while the other checks' pipes filled up.
 */
function eslint() {
  const bin = join(root, 'node_modules', 'eslint', 'bin', 'eslint.js');
  return check('eslint', bin, ['--format', 'stylish', '.']);
}

/**
 * Prettier's check, remembering the files it found formatted (by content, in node_modules/.cache):
 * formatting ~700 files is ~30 s of CPU, and between two runs few of them change.
 */
function prettierCheck() {
  const bin = join(root, 'node_modules', 'prettier', 'bin', 'prettier.cjs');
  const cache = ['--cache', '--cache-strategy', 'content', '--cache-location', PRETTIER_CACHE];
  return check('prettier --check', bin, ['--check', ...cache, '--log-level', 'warn', '.']);
}

/**
 * knip (knip.jsonc): files nothing loads, exports and exported types nothing imports, and
 * dependencies nothing uses. ~3 s of CPU; with its cache of each file's imports and exports
 * (node_modules/.cache/knip, by file), ~0.8 s when few files changed.
 */
function knip() {
  const bin = join(root, 'node_modules', 'knip', 'bin', 'knip.js');
  return check('knip (dead code)', bin, ['--no-progress', '--cache']);
}

/** The package's sources, the tools and the bench: every folder whose files import one another. */
const CYCLE_CHECKED = [
  'fsm',
  'workflows',
  'loader',
  'host',
  'errors',
  'temporal',
  'activities',
  'worker',
  'reporters',
  'runs',
  'client',
  join('ui', 'server'),
  join('ui', 'page'),
  'bin',
  'tools',
  'bench',
];

/**
 * madge: no two files import each other, directly or round a circle, resolved as TypeScript
 * resolves them (tsconfig.json), dynamic `import()` and type-only imports included (a cycle of
 * types still ties two files into one concept). ~8 s of CPU.
 */
function cycles() {
  const bin = join(root, 'node_modules', 'madge', 'bin', 'cli.js');
  const flags = [
    '--circular',
    '--no-spinner',
    '--no-color',
    '--extensions',
    'ts,js,mjs',
    '--ts-config',
    'tsconfig.json',
  ];
  return check('madge --circular (import cycles)', bin, [...flags, ...CYCLE_CHECKED]);
}

const checks = [];
if (wantTypecheck) checks.push(typecheckAll());
if (wantLint) {
  checks.push(report(oxlint()));
  checks.push(report(eslint()));
  checks.push(report(prettierCheck()));
  checks.push(report(knip()));
  checks.push(report(cycles()));
}
const results = await Promise.all(checks);
process.exitCode = results.every(Boolean) ? 0 : 1;
