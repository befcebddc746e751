/**
 * Which files of a checkout are tests or the test runner's configuration, for `tamper_guard:`
 * (activities/tamper-guard.ts), and what of each is compared. Tests: files under a `test`,
 * `tests`, `__tests__`, `spec` or `specs` directory, and files named as tests (`test_*.py`,
 * `*_test.py`, `*.test.ts`, `*.spec.js`, `*_test.go`, `*_spec.rb`, `conftest.py`, …). The
 * configuration: the test section of `pyproject.toml` (`[tool.pytest…]`), `setup.cfg`
 * (`[tool:pytest]`) and `tox.ini` (`[pytest]`), `package.json`'s `scripts.test` and `jest`, and
 * the whole of `pytest.ini`, `jest.config.*`, `vitest.config.*`, `.mocharc.*`, `karma.conf.*`,
 * `playwright.config.*`, `phpunit.xml`, `.rspec`. The files are listed by git (tracked and
 * untracked, not ignored) in a git checkout, else by walking the directory (skipping
 * `node_modules` and dot-directories).
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { listCheckoutFiles, type ListFiles } from './checkout-files.js';

const TEST_DIRS = new Set(['test', 'tests', '__tests__', 'spec', 'specs']);
const TEST_NAMES = [
  /^test_.+\.py$/,
  /^.+_test\.py$/,
  /^conftest\.py$/,
  /^.+\.(test|spec)\.[cm]?[jt]sx?$/,
  /^.+_test\.go$/,
  /^.+_spec\.rb$/,
  /^.+Tests?\.(java|kt|cs)$/,
];
/** Configuration files compared whole. */
const WHOLE_CONFIGS = [
  /^pytest\.ini$/,
  /^(jest|vitest|playwright)\.config\.[cm]?[jt]s(on)?$/,
  /^vitest\.workspace\.[cm]?[jt]s$/,
  /^\.mocharc(\.[a-z]+)?$/,
  /^karma\.conf\.[cm]?[jt]s$/,
  /^phpunit\.xml(\.dist)?$/,
  /^\.rspec$/,
];
/** Configuration files of which only the test runner's section is compared: its header. */
const SECTION_CONFIGS: Record<string, RegExp> = {
  'pyproject.toml': /^\[tool\.pytest[\].]/,
  'setup.cfg': /^\[tool:pytest\]/,
  'tox.ini': /^\[pytest\]/,
};
/** Walking a directory that is not a git checkout stops past this many files. */
const MAX_WALKED = 100_000;

/** True when `path` (relative, `/`-separated) is a test file or the test runner's configuration. */
export function isGuardedFile(path: string): boolean {
  const parts = path.split('/');
  const name = parts[parts.length - 1]!;
  if (parts.slice(0, -1).some((dir) => TEST_DIRS.has(dir))) return true;
  if (name === 'package.json' || name in SECTION_CONFIGS) return true;
  return TEST_NAMES.some((re) => re.test(name)) || WHOLE_CONFIGS.some((re) => re.test(name));
}

/**
 * What of a guarded file is compared: its bytes, or for a shared configuration file only the
 * test runner's part (an edit elsewhere in `pyproject.toml` is no tampering). Undefined: the
 * file has no such part.
 */
function guardedText(path: string, bytes: Buffer): string | undefined {
  const name = posix.basename(path);
  if (name === 'package.json') {
    try {
      const json = JSON.parse(bytes.toString('utf8')) as { scripts?: { test?: unknown }; jest?: unknown };
      const part = { test: json.scripts?.test, jest: json.jest };
      return part.test === undefined && part.jest === undefined ? undefined : JSON.stringify(part);
    } catch {
      return bytes.toString('utf8');
    }
  }
  const header = SECTION_CONFIGS[name];
  if (header === undefined) return undefined;
  const lines = bytes.toString('utf8').split('\n');
  const out: string[] = [];
  let inside = false;
  for (const line of lines) {
    const trimmed = line.trim();
    if (trimmed.startsWith('[')) inside = header.test(trimmed);
    if (inside) out.push(line);
  }
  return out.length ? out.join('\n') : undefined;
}

/** The fingerprint of a guarded file's compared part, or null when it has none (or is gone). */
export function fingerprint(path: string, bytes: Buffer | undefined): string | null {
  if (bytes === undefined) return null;
  const name = posix.basename(path);
  const compared = name === 'package.json' || name in SECTION_CONFIGS ? guardedText(path, bytes) : bytes;
  return compared === undefined ? null : createHash('sha256').update(compared).digest('hex');
}

/**
 * The guarded files under `cwd`, relative and `/`-separated: by git in a checkout (`list`: here,
 * or through the action spawner), else (not a checkout, or no git) by a walk.
 */
export async function guardedFiles(cwd: string, list: ListFiles = listCheckoutFiles): Promise<string[]> {
  const listed = await list(cwd);
  return (listed ?? (await walk(cwd))).filter(isGuardedFile).sort();
}

async function walk(root: string): Promise<string[]> {
  const out: string[] = [];
  const dirs = [''];
  while (dirs.length) {
    const dir = dirs.pop()!;
    for (const entry of await readdir(join(root, dir), { withFileTypes: true })) {
      const path = dir === '' ? entry.name : `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && !entry.name.startsWith('.')) dirs.push(path);
      } else if (entry.isFile()) {
        out.push(path);
        if (out.length > MAX_WALKED)
          throw new Error(`more than ${MAX_WALKED} files under ${root}, which is not a git checkout`);
      }
    }
  }
  return out;
}

/** Files at most this large are read in one synchronous call; larger ones without holding the thread. */
const SYNC_READ_MAX_BYTES = 1024 * 1024;
/** Reading yields to the worker's other work (workflow tasks, heartbeats) after this long. */
const READ_SLICE_MS = 4;

/**
 * Each of `paths` under `cwd` handed to `each` with its bytes, or undefined when it cannot be read
 * (gone, a directory), in order. Small files are read synchronously, in slices of a few ms: an
 * asynchronous read costs four trips through libuv's thread pool (a guarded action's snapshot of
 * eight test files took 6 ms so, 0.8 ms at once), and the snapshot is taken while the action does
 * not run, so nothing changes the files between the reads either way.
 */
export async function readEach(
  cwd: string,
  paths: readonly string[],
  each: (path: string, bytes: Buffer | undefined) => void,
): Promise<void> {
  let slice = performance.now();
  for (const path of paths) {
    const full = join(cwd, path);
    let bytes: Buffer | undefined;
    try {
      bytes = statSync(full).size <= SYNC_READ_MAX_BYTES ? readFileSync(full) : await readFile(full);
    } catch {
      bytes = undefined;
    }
    each(path, bytes);
    if (performance.now() - slice > READ_SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      slice = performance.now();
    }
  }
}
