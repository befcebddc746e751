/**
 * ll-loop's own runtime directories inside a project (`.loops/.running/`, `.loops/.worker/`,
 * `.loops/.temporal/`, and `.loops/.worktrees/` where a fan-out's `isolation: worktree` items
 * work, kept there with their branches when they hold work): each holds a `.gitignore` of `*`, written by ll-loop, so neither the
 * directory nor the `.gitignore` itself shows in `git status` and a user needs no setup. The
 * user's own `.gitignore` files are never touched.
 *
 * {@link isRuntimePath} names the same paths for the dirty-repository check, which must skip them
 * even when a user committed them before ignoring them.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** The directories under `.loops/` that hold only ll-loop's runtime files. */
const RUNTIME_DIRS = ['.running', '.worker', '.temporal', '.worktrees'] as const;

const IGNORE_ALL = '# written by ll-loop: everything here is its runtime state, never to commit\n*\n';

/**
 * A runtime directory ll-loop cannot make: a file in its place, a read-only `.loops/`, a full
 * disk. Its message names the path and the cause, its fix what to do (the CLI: exit 1, errors.ts).
 */
export class RuntimeDirError extends Error {
  override readonly name = 'RuntimeDirError';
  constructor(
    readonly path: string,
    message: string,
    readonly fix: string,
  ) {
    super(message);
  }
}

function makeDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const cause =
      code === 'EEXIST' || code === 'ENOTDIR'
        ? 'a file is in the way (a directory is needed there)'
        : code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
          ? 'the directory above it is not writable'
          : code === 'ENOSPC' || code === 'EDQUOT'
            ? 'the disk is full'
            : (err as Error).message;
    throw new RuntimeDirError(
      dir,
      `cannot create ${dir}, where ll-loop keeps its runtime files (the checkout's worker, runs' events and output): ${cause}`,
      code === 'EEXIST' || code === 'ENOTDIR'
        ? `move the file out of the way (a runtime path under .loops/ is ll-loop's own), then run the command again`
        : code === 'ENOSPC' || code === 'EDQUOT'
          ? 'free some space, then run the command again'
          : `make ${dirname(dir)} writable for this user, then run the command again`,
    );
  }
}

/**
 * Create `dir` (and its parents) if missing, and its `.gitignore` of `*` if it has none. Only for
 * directories that hold nothing but ll-loop's runtime files. Never throws for the `.gitignore`:
 * a directory that cannot hold one still works.
 */
export function ensureRuntimeDir(dir: string): void {
  makeDir(dir);
  try {
    writeFileSync(join(dir, '.gitignore'), IGNORE_ALL, { flag: 'wx' });
  } catch {
    // There already (ours or the user's, kept either way), or not writable: nothing to do.
  }
}

/**
 * Make the runtime directory that will hold `file` (the nearest `.loops/<runtime dir>` above it)
 * ignored, and every directory up to `file`'s own. For writers that only know the file's path
 * (an action's log). A path under no runtime directory gets its directories made, nothing else.
 */
export function ensureRuntimeDirOf(file: string): void {
  for (let dir = dirname(file); dirname(dir) !== dir; dir = dirname(dir)) {
    if ((RUNTIME_DIRS as readonly string[]).includes(basename(dir)) && basename(dirname(dir)) === '.loops') {
      ensureRuntimeDir(dir);
      break;
    }
  }
  makeDir(dirname(file));
}

/**
 * Whether a repository-relative path (`/`-separated) is one of ll-loop's runtime files: under a
 * runtime directory of some `.loops/`, or the server note `.loops/.server-note.json` that older
 * releases wrote.
 */
export function isRuntimePath(path: string): boolean {
  return (
    /(^|\/)\.loops\/(\.running|\.worker|\.temporal|\.worktrees)(\/|$)/.test(path) ||
    /(^|\/)\.loops\/\.server-note\.json$/.test(path)
  );
}
