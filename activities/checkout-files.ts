/**
 * The files of a git checkout as `tamper_guard:` lists them (activities/test-files.ts): tracked
 * and untracked, not ignored, one `git ls-files` with Node's own `execFile`. No package: the
 * action spawner (activities/spawner-main.ts) runs this too, so that the fork of `git` is its
 * small process's, not the worker's (a fork costs in proportion to the forking process's memory:
 * a listing took 66–114 ms from a 130–220 MB process on a 2-core machine at load 11, 20 ms through
 * the spawner).
 */
import { execFile } from 'node:child_process';
import { GIT_ENV } from './git-env.js';

/** A local listing takes far less; a hung one must not hold the action. */
const LIST_TIMEOUT_MS = 60_000;
/** A listing of a very large checkout (a million paths of 100 bytes) still fits. */
const LIST_MAX_BYTES = 128 * 1024 * 1024;

/**
 * The checkout's files under `cwd`, relative and `/`-separated; undefined when git cannot list
 * them (not a git checkout, git missing or failing): the caller walks the directory instead.
 */
export function listCheckoutFiles(cwd: string): Promise<string[] | undefined> {
  return new Promise((resolve) => {
    execFile(
      'git',
      ['-C', cwd, 'ls-files', '-z', '--cached', '--others', '--exclude-standard'],
      {
        env: { ...process.env, ...GIT_ENV },
        timeout: LIST_TIMEOUT_MS,
        maxBuffer: LIST_MAX_BYTES,
        encoding: 'utf8',
      },
      (err, stdout) => resolve(err ? undefined : stdout.split('\0').filter((p) => p !== '')),
    );
  });
}

/** How a caller lists a checkout's files: {@link listCheckoutFiles} here, or in the action spawner. */
export type ListFiles = (cwd: string) => Promise<string[] | undefined>;
