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
 */
import { accessSync, constants, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Writable } from 'node:stream';

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
