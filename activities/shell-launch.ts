/**
 * How a rendered shell action reaches bash without hitting the kernel's argv/environment limits
 * (one string at most 128 KiB, all of them together about 2 MB: `spawn E2BIG`).
 *
 * - Values (`LL_V*` data, `LL_E*` env references) up to {@link INLINE_VALUE_BYTES} each, while
 *   they total at most {@link INLINE_TOTAL_BYTES}, travel in the environment as before (exported:
 *   the action's child processes see them too).
 * - Larger ones are written to files readable only by the worker's user (0600, in a 0700 temp
 *   directory) and read by a one-line prelude, `IFS= read -r -d '' LL_V1 < file`, which keeps
 *   every byte (no splitting, no backslash handling, newlines included) except NUL, which bash
 *   variables cannot hold (captured values never contain NUL: output-buffer.ts removes it). Such
 *   a value is a shell variable of the action's bash, NOT exported: it would not fit in the
 *   environment of its children either.
 * - A script (prelude included) above {@link INLINE_SCRIPT_BYTES} is written to such a file too and
 *   sourced (`. file`): bash reads a sourced file whole before running it.
 * - The files are removed by `cleanup()` once the action ended. A process killed before that
 *   (SIGKILL, a crash) cannot remove them: each directory is named after the pid of the process
 *   that made it (`ll-loop-action-<pid>-XXXXXX`), and {@link sweepDeadActionDirs} removes those of
 *   processes that are gone, as a worker starts and with its sweeps of run environments
 *   (worker/run-env-sweep.ts). Bash reads the files as it starts, so one older than a day left by
 *   an earlier release (`ll-loop-action-XXXXXX`, no pid) serves nothing and is removed too.
 */
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sweepDeadPidDirs } from './spawn-gate.js';

/** Larger values go through a file. */
export const INLINE_VALUE_BYTES = 32 * 1024;
/** Once the values in the environment would exceed this, the rest go through files. */
const INLINE_TOTAL_BYTES = 256 * 1024;
/** A larger script is sourced from a file rather than passed as `bash -c` argument. */
export const INLINE_SCRIPT_BYTES = 64 * 1024;

/** An action's directory: the pid of the process that made it, then mkdtemp's suffix. */
const ACTION_DIR_PREFIX = 'll-loop-action-';
const ACTION_DIR = /^ll-loop-action-(\d+)-[A-Za-z0-9]{6}$/;
/** A directory of an earlier release, which named none after its process. */
const LEGACY_ACTION_DIR = /^ll-loop-action-[A-Za-z0-9]{6}$/;
/** A legacy directory older than this serves no action any more (its bash read it as it started). */
const LEGACY_AGE_MS = 24 * 3600_000;

/**
 * Remove the directories of large values in `dir` (default: the temporary directory) whose
 * process is gone, and legacy ones older than a day; only this user's. Returns their names.
 */
export function sweepDeadActionDirs(dir: string = tmpdir(), now: number = Date.now()): string[] {
  const removed = sweepDeadPidDirs(ACTION_DIR, dir);
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => LEGACY_ACTION_DIR.test(n));
  } catch {
    return removed;
  }
  const uid = process.getuid?.();
  for (const name of names) {
    const path = join(dir, name);
    try {
      const stat = statSync(path);
      if ((uid !== undefined && stat.uid !== uid) || now - stat.mtimeMs < LEGACY_AGE_MS) continue;
      rmSync(path, { recursive: true, force: true });
      removed.push(name);
    } catch {
      // gone already, or not ours to remove
    }
  }
  return removed;
}

/** How to start bash for one action. */
export interface ShellLaunch {
  /** Arguments of `bash`. */
  args: string[];
  /** Values that travel in the environment (added to the action's environment). */
  env: Record<string, string>;
  /** Removes the files made for this action (idempotent, never throws). */
  cleanup: () => void;
}

/** A word bash reads back as exactly `s` (single-quoted). */
function shellQuote(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

/**
 * Plans the start of `script` with `values` (name → value, names being `LL_V*`/`LL_E*`), writing
 * the files it needs. `dir` is where temp directories go (default: the OS temp dir).
 */
export function prepareShell(script: string, values: Record<string, string>, dir: string = tmpdir()): ShellLaunch {
  let tmp: string | undefined;
  const files = (): string => (tmp ??= mkdtempSync(join(dir, `${ACTION_DIR_PREFIX}${process.pid}-`)));
  const cleanup = (): void => {
    if (tmp !== undefined) rmSync(tmp, { recursive: true, force: true });
  };
  try {
    const env: Record<string, string> = {};
    const prelude: string[] = [];
    let total = 0;
    let n = 0;
    for (const [name, value] of Object.entries(values)) {
      const size = Buffer.byteLength(name) + Buffer.byteLength(value) + 2;
      if (size <= INLINE_VALUE_BYTES && total + size <= INLINE_TOTAL_BYTES) {
        env[name] = value;
        total += size;
        continue;
      }
      const path = join(files(), `v${(n += 1)}`);
      writeFileSync(path, value, { mode: 0o600 });
      // `read` fails at end of file without a NUL delimiter, having set the variable: hence `|| :`.
      prelude.push(`IFS= read -r -d '' ${name} < ${shellQuote(path)} || :;`);
    }
    const text = prelude.length === 0 ? script : `${prelude.join(' ')}\n${script}`;
    if (Buffer.byteLength(text) <= INLINE_SCRIPT_BYTES) return { args: ['-c', text], env, cleanup };
    const path = join(files(), 'script.sh');
    writeFileSync(path, text, { mode: 0o600 });
    return { args: ['-c', `. ${shellQuote(path)}`], env, cleanup };
  } catch (e) {
    cleanup();
    throw e;
  }
}
