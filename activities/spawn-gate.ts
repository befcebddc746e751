/**
 * The gate that keeps an action from running until its process group is guarded.
 *
 * An action is spawned as `sh -c GATE ll-loop-action <file> <args…>` with a pipe on fd 3. The gate
 * blocks reading fd 3; the worker opens it only after it has told the watchdog the action's group
 * (group-reaper.ts), and then the gate execs the action in the same process (same pid, same group).
 * If the worker dies before that, the pipe reaches end-of-file and the gate exits without running
 * the action: there is no moment at which an action runs unguarded.
 *
 * Since the process spawned is `sh`, a missing or non-executable program no longer fails the spawn
 * itself; {@link findExecutable} looks it up first, the way `execvp` will.
 *
 * A shell action (`bash …`) skips the `sh`: bash itself waits at the same gate, written in a file
 * it reads at start-up (`BASH_ENV`, sourced by every non-interactive bash before its command), so
 * each quick action costs one program start instead of two ({@link gatedSpawn}).
 */
import { accessSync, constants, existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { pidAlive } from '../host/checkout-claim.js';

/** The gate's shell: POSIX `sh`, present wherever bash is and quicker to start. */
export const GATE_SHELL = '/bin/sh';

/** Exit code of a gate whose worker went away before opening it (the action never ran). */
export const GATE_CLOSED_EXIT = 125;

const GATE_SCRIPT = `read -r _ <&3 || exit ${GATE_CLOSED_EXIT}; exec "$@" 3<&-`;

/** Arguments of {@link GATE_SHELL} that run `file args` once the gate opens. */
export function gateArgs(file: string, args: string[]): string[] {
  return ['-c', GATE_SCRIPT, 'll-loop-action', file, ...args];
}

/** Lets the gated action run: call only once its group is tracked. */
export function openGate(gate: Writable): void {
  // The action may already be gone (killed, or its cwd vanished): nothing to tell it then.
  gate.on('error', () => undefined);
  gate.end('\n');
}

/**
 * Whether `file` would be found and executable by `execvp` with this PATH, run from `cwd`:
 * undefined when it would, else the errno the spawn of the program itself would have failed with.
 */
export function findExecutable(file: string, cwd: string, path: string | undefined): 'ENOENT' | 'EACCES' | undefined {
  const dirs = file.includes('/') ? [''] : (path ?? '/bin:/usr/bin').split(':');
  let denied = false;
  for (const dir of dirs) {
    const candidate = resolve(cwd, dir, file);
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return undefined;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EACCES') denied = true;
    }
  }
  return denied ? 'EACCES' : 'ENOENT';
}

/**
 * The gate as bash's start-up file: the same wait and exit as {@link GATE_SCRIPT}; then fd 3 is
 * closed and BASH_ENV unset (the action and its children see neither), and `$_` is left empty, as
 * `sh`'s `read -r _` left it: the action starts in the state it started in behind the `sh` gate.
 */
const BASH_GATE_SCRIPT = `read -r _ <&3 || exit ${GATE_CLOSED_EXIT}; exec 3<&-; unset BASH_ENV; : ''\n`;

/** This process's gate file (made on first use, in a directory of its own, removed at exit). */
let bashGate: { dir: string; file: string } | undefined | null;

/** A gate directory's name: its process's pid, then mkdtemp's suffix. */
const GATE_DIR_PREFIX = 'll-loop-gate-';
const GATE_DIR = /^ll-loop-gate-(\d+)-[A-Za-z0-9]{6}$/;

/**
 * Remove the gate directories in `dir` left by processes of this user that are gone: a worker or
 * spawner killed (SIGKILL, a crash) never runs its exit handler, and each such death left one
 * directory behind in the temporary directory for good. Another user's, or a live process's, is
 * left alone; so is anything else there.
 */
export function sweepDeadGateDirs(dir: string = tmpdir()): void {
  sweepDeadPidDirs(GATE_DIR, dir);
}

/**
 * Remove the directories in `dir` whose name `pattern` matches, its first group the pid of the
 * process that made them, when that process is gone and they are this user's; returns their names.
 */
export function sweepDeadPidDirs(pattern: RegExp, dir: string = tmpdir()): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const uid = process.getuid?.();
  const removed: string[] = [];
  for (const name of names) {
    const pid = Number(pattern.exec(name)?.[1]);
    if (!pid || pid === process.pid || pidAlive(pid)) continue;
    const path = join(dir, name);
    try {
      if (uid !== undefined && statSync(path).uid !== uid) continue;
      rmSync(path, { recursive: true, force: true });
      removed.push(name);
    } catch {
      // gone already, or not ours to remove
    }
  }
  return removed;
}

/**
 * The gate file's path, rewritten should something have removed it (bash would run the action
 * ungated when the file is gone); undefined when none can be made or its path would be expanded.
 */
function bashGateFile(): string | undefined {
  if (bashGate === null) return undefined;
  try {
    if (bashGate === undefined) {
      sweepDeadGateDirs();
      const dir = mkdtempSync(join(tmpdir(), `${GATE_DIR_PREFIX}${process.pid}-`));
      bashGate = { dir, file: join(dir, 'gate.bash') };
      const made = bashGate.dir;
      process.once('exit', () => rmSync(made, { recursive: true, force: true }));
    }
    // bash expands BASH_ENV (parameters, commands, arithmetic): only a plain path is the file.
    if (!/^[A-Za-z0-9_./-]+$/.test(bashGate.file)) throw new Error('not a plain path');
    if (!existsSync(bashGate.file)) writeFileSync(bashGate.file, BASH_GATE_SCRIPT, { mode: 0o600 });
    return bashGate.file;
  } catch {
    bashGate = null;
    return undefined;
  }
}

/** Names that change whether bash reads BASH_ENV, or what it reads: with any of them, the `sh` gate. */
const BASH_START_UP_NAMES = ['BASH_ENV', 'POSIXLY_CORRECT', 'SHELLOPTS'];

/**
 * What to spawn for `file args` behind the gate, with `env` the action's whole environment: bash
 * directly with the gate as its start-up file when `file` is `bash` and nothing
 * in the environment or the process changes bash's start-up (a BASH_ENV of the user's own, posix
 * mode, set-id), else {@link GATE_SHELL} with {@link gateArgs}.
 */
export function gatedSpawn(
  file: string,
  args: string[],
  env: Record<string, string | undefined>,
): { file: string; args: string[]; env: Record<string, string | undefined> } {
  const plain =
    file === 'bash' &&
    BASH_START_UP_NAMES.every((name) => env[name] === undefined) &&
    process.getuid?.() === process.geteuid?.() &&
    process.getgid?.() === process.getegid?.();
  const gate = plain ? bashGateFile() : undefined;
  if (gate === undefined) return { file: GATE_SHELL, args: gateArgs(file, args), env };
  return { file, args, env: { ...env, BASH_ENV: gate } };
}
