/**
 * Running git for portable checkouts (git-checkout.ts): argument arrays (never a shell string),
 * a timeout on every call, no prompt ever (a worker has no terminal: a remote that wants a
 * password fails at once), C locale, no optional locks (a status of the user's repository must
 * not take its index lock). Failures are typed: {@link GitCheckoutError} says what, where and the fix.
 */
import { execa } from 'execa';
import { GIT_ENV } from './git-env.js';

/** Local operations (status, rev-parse, worktree add) take far less; a hung one must not hold an activity. */
const GIT_TIMEOUT_MS = 60_000;
/** A clone may copy a large repository over the network. */
export const CLONE_TIMEOUT_MS = 15 * 60_000;

export const GIT_ERROR_KIND = {
  /** git is not installed (or not where we were told). */
  noGit: 'no-git',
  /** The checkout is not inside a git repository. */
  notRepository: 'not-a-repository',
  /** The repository has no commit yet. */
  noCommit: 'no-commit',
  /** Uncommitted changes the run would not see. */
  dirty: 'dirty',
  /** The commit is not on the remote the workers clone from. */
  unpushed: 'unpushed',
  /** The run's directory exists but is not the checkout it should be. */
  occupied: 'occupied',
  /** A name that cannot be a branch or a directory. */
  badName: 'bad-name',
  /** A git command failed or timed out. */
  gitFailed: 'git-failed',
} as const;

export type GitErrorKind = (typeof GIT_ERROR_KIND)[keyof typeof GIT_ERROR_KIND];

/** A portable checkout cannot be made or judged; `where` is the directory concerned, `fix` what to do. */
export class GitCheckoutError extends Error {
  override readonly name = 'GitCheckoutError';
  constructor(
    readonly kind: GitErrorKind,
    message: string,
    readonly where: string,
    readonly fix: string,
  ) {
    super(message);
  }
}

export interface GitOptions {
  /** The git program (default `git` on PATH). */
  git?: string;
  timeoutMs?: number;
}

export interface GitResult {
  ok: boolean;
  stdout: string;
  stderr: string;
  exitCode: number | undefined;
  /** The command as text, for messages. */
  command: string;
  /** One line: git's last stderr line, or the timeout. */
  why: string;
}

/** `git args…`; a failure is a result, except git missing, which is a {@link GitCheckoutError}. */
export async function tryGit(args: readonly string[], opts: GitOptions = {}): Promise<GitResult> {
  const git = opts.git ?? 'git';
  const timeoutMs = opts.timeoutMs ?? GIT_TIMEOUT_MS;
  const command = `git ${args.join(' ')}`;
  const r = await execa(git, [...args], {
    reject: false,
    timeout: timeoutMs,
    env: GIT_ENV,
    stdin: 'ignore',
    stripFinalNewline: false,
  });
  if (r.code === 'ENOENT') {
    throw new GitCheckoutError(
      GIT_ERROR_KIND.noGit,
      `git is not installed (cannot run ${git})`,
      git,
      'install git (https://git-scm.com) on this machine, or run without --checkout git / --worktree',
    );
  }
  const stdout = String(r.stdout);
  const stderr = String(r.stderr);
  const why = r.timedOut
    ? `timed out after ${Math.round(timeoutMs / 1000)} s`
    : stderr.trim().split('\n').pop()?.trim() || `exit code ${r.exitCode ?? '?'}`;
  return { ok: !r.failed, stdout, stderr, exitCode: r.exitCode, command, why };
}

/** `git args…`, its stdout trimmed; a failure is a {@link GitCheckoutError} of kind git-failed about `where`. */
export async function git(args: readonly string[], where: string, opts: GitOptions = {}): Promise<string> {
  const r = await tryGit(args, opts);
  if (!r.ok)
    throw new GitCheckoutError(
      GIT_ERROR_KIND.gitFailed,
      `${r.command} failed: ${r.why}`,
      where,
      'run the command by hand in that directory to see why; the activity retries it',
    );
  return r.stdout.trim();
}
