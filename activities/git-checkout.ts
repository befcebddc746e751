/**
 * Portable checkouts (`run --checkout git`, `--worktree`): the run works on a commit of the
 * user's repository in a directory of its own, prepared by the worker that takes it, so the user's
 * working tree is never touched.
 *
 * - {@link portableSource}: what the run gets — the repository to clone from and the commit;
 *   refused while the working tree differs from that commit (the run would not see the changes).
 * - {@link prepareCheckout}: the run's directory, a worktree of the repository or a clone, on the
 *   run's own branch. Idempotent: an activity may be retried after any step.
 * - {@link finishCheckout}: removes the directory and branch unless they hold work (commits
 *   beyond the start commit, or uncommitted changes), which is kept for the user.
 *
 * Untracked files in a `.loops/` directory never count as changes: they are ll-loop's own run
 * files (`.loops/.running/`, `.worker/`) and loop files, which travel in the run's input. Nor do
 * ll-loop's runtime files when tracked (loader/runtime-dir.ts `isRuntimePath`).
 */
import { existsSync, mkdirSync, readdirSync, realpathSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { isRuntimePath } from '../loader/runtime-dir.js';
import { CLONE_TIMEOUT_MS, git, GIT_ERROR_KIND, GitCheckoutError, tryGit, type GitOptions } from './git.js';

/** Where a portable run comes from. */
export interface PortableSource {
  /** The `origin` remote's URL (clone mode), else the repository's absolute path. */
  repository: string;
  /** The full hash of HEAD. */
  commit: string;
  /** The checkout root relative to the repository's top (`''` at the top): the run's cwd inside its checkout. */
  path: string;
}

/** A change `git status --porcelain` reports: its two status letters and path (relative to the top). */
export interface StatusEntry {
  xy: string;
  path: string;
}

/** `git status --porcelain=v1 -z` of `dir`: tracked changes and untracked files (ignored ones left out). */
async function statusOf(dir: string, opts: GitOptions): Promise<StatusEntry[]> {
  // Untrimmed: an entry's first status letter may be a space.
  const r = await tryGit(['-C', dir, 'status', '--porcelain=v1', '-z', '--untracked-files=all'], opts);
  if (!r.ok)
    throw new GitCheckoutError(
      GIT_ERROR_KIND.gitFailed,
      `${r.command} failed: ${r.why}`,
      dir,
      'run git status there to see why',
    );
  const fields = r.stdout.split('\0');
  const entries: StatusEntry[] = [];
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i]!;
    if (field.length < 4) continue;
    const xy = field.slice(0, 2);
    entries.push({ xy, path: field.slice(3) });
    // A rename or copy is followed by its source path.
    if (/[RC]/.test(xy)) i++;
  }
  return entries;
}

/**
 * Files that never make a tree dirty: untracked files in a `.loops/` directory (loop files travel
 * in the run's input), and ll-loop's runtime files whatever their state — a user may have
 * committed `.loops/.worker/worker.log` before it was ignored, and it changes on every run.
 */
const isRunnerFile = (e: StatusEntry): boolean =>
  (e.xy === '??' && /(^|\/)\.loops\//.test(e.path)) || isRuntimePath(e.path);

/** The changes that count (see the module comment). */
export async function changesOf(dir: string, opts: GitOptions): Promise<StatusEntry[]> {
  return (await statusOf(dir, opts)).filter((e) => !isRunnerFile(e));
}

function listPaths(entries: StatusEntry[], max = 5): string {
  const shown = entries.slice(0, max).map((e) => `${e.xy === '??' ? 'untracked ' : ''}${e.path}`);
  return `${shown.join(', ')}${entries.length > max ? ` and ${entries.length - max} more` : ''}`;
}

/**
 * What a portable run of the checkout at `root` gets. `worktree`: the repository is always the
 * local path (a worktree is added to it). Otherwise `origin`'s URL when there is one — and the
 * commit must then be on a branch of origin the workers can fetch (checked against the
 * remote-tracking refs, offline) — else the local path (workers on this machine clone from it).
 */
export async function portableSource(
  root: string,
  opts: GitOptions & { worktree?: boolean } = {},
): Promise<PortableSource> {
  const abs = resolve(root);
  const top = await tryGit(['-C', abs, 'rev-parse', '--show-toplevel'], opts);
  if (!top.ok) {
    throw new GitCheckoutError(
      GIT_ERROR_KIND.notRepository,
      `${abs} is not in a git repository (${top.why})`,
      abs,
      'run git init and commit there, or run the loop in place (without --checkout git / --worktree)',
    );
  }
  const repository = top.stdout.trim();
  const head = await tryGit(['-C', repository, 'rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], opts);
  if (!head.ok)
    throw new GitCheckoutError(
      GIT_ERROR_KIND.noCommit,
      `the repository ${repository} has no commit yet`,
      repository,
      'commit your work first (git add -A && git commit), then start the run again',
    );
  const commit = head.stdout.trim();
  const changes = await changesOf(repository, opts);
  if (changes.length) {
    throw new GitCheckoutError(
      GIT_ERROR_KIND.dirty,
      `${repository} has uncommitted changes a portable run would not see (it works on commit ${commit.slice(0, 12)}): ${listPaths(changes)}`,
      repository,
      'commit them (git add -A && git commit) or stash them (git stash -u), then start the run again; or run in place without --checkout git / --worktree',
    );
  }
  const path = relative(realpathSync(repository), realpathSync(abs)).split(sep).join('/');
  if (opts.worktree) return { repository, commit, path };
  const origin = await tryGit(['-C', repository, 'remote', 'get-url', 'origin'], opts);
  if (!origin.ok) return { repository, commit, path };
  const pushed = await git(
    ['-C', repository, 'branch', '--remotes', '--contains', commit, '--list', 'origin/*'],
    repository,
    opts,
  );
  if (pushed === '') {
    throw new GitCheckoutError(
      GIT_ERROR_KIND.unpushed,
      `commit ${commit.slice(0, 12)} is on no branch of origin (${origin.stdout.trim()}), which the run's workers clone from`,
      repository,
      'push it (git push), or fetch if it is pushed already (git fetch origin); or use --worktree on this machine',
    );
  }
  return { repository: origin.stdout.trim(), commit, path };
}

export interface PrepareCheckoutOptions extends GitOptions {
  repository: string;
  commit: string;
  /** The run's branch, `ll-loop/<run id>`. */
  branch: string;
  /** A worktree of `repository` (a local path) rather than a clone. */
  worktree: boolean;
  /** The worker's data directory: `worktrees/<runId>` or `checkouts/<runId>` go under it. */
  baseDir: string;
  runId: string;
}

/** The directory a run's checkout lives in (run ids are workflow ids: one path segment, made safe). */
export function checkoutDir(baseDir: string, runId: string, worktree: boolean): string {
  const segment = runId.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^\.+/, '_');
  if (!segment)
    throw new GitCheckoutError(
      GIT_ERROR_KIND.badName,
      `run id ${JSON.stringify(runId)} cannot name a directory`,
      baseDir,
      'give the run a name of letters, digits, dots, dashes or underscores',
    );
  return join(resolve(baseDir), worktree ? 'worktrees' : 'checkouts', segment);
}

async function checkBranchName(branch: string, opts: GitOptions): Promise<void> {
  const r = await tryGit(['check-ref-format', '--branch', branch], opts);
  if (!r.ok)
    throw new GitCheckoutError(
      GIT_ERROR_KIND.badName,
      `${JSON.stringify(branch)} is not a valid branch name`,
      branch,
      'name the branch ll-loop/<run id> with a run id git accepts',
    );
}

/** Whether `dir` is the top of a git work tree whose HEAD is `branch`. */
async function isCheckoutOn(
  dir: string,
  branch: string,
  opts: GitOptions,
): Promise<{ top: boolean; onBranch: boolean }> {
  const top = await tryGit(['-C', dir, 'rev-parse', '--show-toplevel'], opts);
  if (!top.ok || resolve(top.stdout.trim()) !== realpathSync(dir)) return { top: false, onBranch: false };
  const head = await tryGit(['-C', dir, 'symbolic-ref', '--quiet', '--short', 'HEAD'], opts);
  return { top: true, onBranch: head.ok && head.stdout.trim() === branch };
}

const isEmptyDir = (dir: string): boolean => readdirSync(dir).length === 0;

function occupied(dir: string, what: string): GitCheckoutError {
  return new GitCheckoutError(
    GIT_ERROR_KIND.occupied,
    `${dir} exists but ${what}`,
    dir,
    `remove it (rm -rf '${dir}') if nothing in it is needed, then retry the run`,
  );
}

/** The git directory shared by all worktrees of the repository at `dir`, resolved. */
async function commonDir(dir: string, opts: GitOptions): Promise<string> {
  return realpathSync(resolve(dir, await git(['-C', dir, 'rev-parse', '--git-common-dir'], dir, opts)));
}

/**
 * The run's checkout, ready on `branch`; returns its directory.
 *
 * - worktree: `git worktree add -b <branch> <baseDir>/worktrees/<runId> <commit>`; an existing
 *   worktree of the same repository on that branch is reused, and an existing branch (a retry
 *   after the directory was lost) is checked out as it is, keeping its commits.
 * - clone: `git clone --no-checkout` into `checkouts/.partial/`, the commit checked out on a new
 *   `branch`, then renamed into place, so `<baseDir>/checkouts/<runId>` exists only complete; an
 *   existing one on that branch is reused.
 */
export async function prepareCheckout(o: PrepareCheckoutOptions): Promise<string> {
  const opts: GitOptions = o.git ? { git: o.git } : {};
  await checkBranchName(o.branch, opts);
  const dir = checkoutDir(o.baseDir, o.runId, o.worktree);
  mkdirSync(dirname(dir), { recursive: true });
  return o.worktree ? prepareWorktree(o, dir, opts) : prepareClone(o, dir, opts);
}

async function prepareWorktree(o: PrepareCheckoutOptions, dir: string, opts: GitOptions): Promise<string> {
  if (!isAbsolute(o.repository) || !existsSync(o.repository)) {
    throw new GitCheckoutError(
      GIT_ERROR_KIND.notRepository,
      `a worktree needs the repository on this machine; ${o.repository} is not a local path`,
      o.repository,
      'use --checkout git (a clone) for runs whose repository is remote',
    );
  }
  if (existsSync(dir)) {
    const state = await isCheckoutOn(dir, o.branch, opts);
    if (state.onBranch && (await commonDir(dir, opts)) === (await commonDir(o.repository, opts))) return dir;
    if (state.top || !isEmptyDir(dir)) throw occupied(dir, `is not a worktree of ${o.repository} on ${o.branch}`);
    rmSync(dir, { recursive: true, force: true });
  }
  // A worktree whose directory was deleted stays registered and blocks `worktree add` of its path
  // (git lists real paths). Pruning also forgets other missing, unlocked worktrees, as git gc would.
  const listed = await git(['-C', o.repository, 'worktree', 'list', '--porcelain'], o.repository, opts);
  const real = join(realpathSync(dirname(dir)), basename(dir));
  if (listed.split('\n').some((line) => line === `worktree ${real}`))
    await git(['-C', o.repository, 'worktree', 'prune'], o.repository, opts);
  const branchExists = (
    await tryGit(['-C', o.repository, 'show-ref', '--verify', '--quiet', `refs/heads/${o.branch}`], opts)
  ).ok;
  const add = branchExists ? ['worktree', 'add', dir, o.branch] : ['worktree', 'add', '-b', o.branch, dir, o.commit];
  await git(['-C', o.repository, ...add], o.repository, opts);
  return dir;
}

async function prepareClone(o: PrepareCheckoutOptions, dir: string, opts: GitOptions): Promise<string> {
  if (existsSync(dir)) {
    const state = await isCheckoutOn(dir, o.branch, opts);
    if (state.onBranch) return dir;
    if (state.top || !isEmptyDir(dir)) throw occupied(dir, `is not a clone on ${o.branch}`);
    rmSync(dir, { recursive: true, force: true });
  }
  // Clones in progress live in `checkouts/.partial/<runId>.<pid>` (no run id starts with a dot);
  // leftovers of this run's attempts that died before the rename hold nothing of value.
  const partials = join(dirname(dir), '.partial');
  mkdirSync(partials, { recursive: true });
  const mine = new RegExp(`^${basename(dir).replace(/[.]/g, '\\.')}\\.\\d+$`);
  for (const name of readdirSync(partials))
    if (mine.test(name)) rmSync(join(partials, name), { recursive: true, force: true });
  const partial = join(partials, `${basename(dir)}.${process.pid}`);
  await git(['clone', '--no-checkout', '--quiet', '--', o.repository, partial], o.repository, {
    ...opts,
    timeoutMs: CLONE_TIMEOUT_MS,
  });
  // A commit on no branch of the source (a detached HEAD) is not cloned; ask for it by name.
  if (!(await tryGit(['-C', partial, 'cat-file', '-e', `${o.commit}^{commit}`], opts)).ok) {
    await git(['-C', partial, 'fetch', '--quiet', 'origin', o.commit], o.repository, {
      ...opts,
      timeoutMs: CLONE_TIMEOUT_MS,
    });
  }
  await git(['-C', partial, 'checkout', '--quiet', '-b', o.branch, o.commit], partial, opts);
  renameSync(partial, dir);
  return dir;
}

export interface FinishCheckoutOptions extends GitOptions {
  dir: string;
  repository: string;
  branch: string;
  /** The commit the run started from: commits beyond it are the run's work. */
  commit: string;
  worktree: boolean;
}

export type FinishOutcome = { kept: true; why: string } | { kept: false };

/**
 * Remove the run's checkout unless it holds work: commits on `branch` beyond `commit`, or
 * uncommitted changes (untracked files in `.loops/` excepted). Kept: the directory and branch stay
 * for the user and `why` says what is there. Idempotent: a second call finds nothing to remove.
 */
export async function finishCheckout(o: FinishCheckoutOptions): Promise<FinishOutcome> {
  const opts: GitOptions = o.git ? { git: o.git } : {};
  const present = existsSync(o.dir);
  if (present) {
    // Whatever the run made of its directory (another branch checked out, .git gone) is its work, not ours to delete.
    const state = await isCheckoutOn(o.dir, o.branch, opts);
    if (!state.onBranch) return { kept: true, why: `${o.dir} is not on ${o.branch} any more; left as it is` };
    const changes = await changesOf(o.dir, opts);
    if (changes.length) return { kept: true, why: `uncommitted changes in ${o.dir}: ${listPaths(changes)}` };
  }
  // Where the branch lives: the repository for a worktree, the clone itself otherwise.
  const branchHome = o.worktree ? o.repository : o.dir;
  const ahead = present || o.worktree ? await commitsBeyond(branchHome, o.branch, o.commit, opts) : 0;
  if (ahead > 0)
    return {
      kept: true,
      why: `${ahead} commit${ahead === 1 ? '' : 's'} on ${o.branch} beyond ${o.commit.slice(0, 12)}${present ? ` in ${o.dir}` : ''}`,
    };
  if (o.worktree) {
    if (present) await git(['-C', o.repository, 'worktree', 'remove', '--force', o.dir], o.repository, opts);
    else await git(['-C', o.repository, 'worktree', 'prune'], o.repository, opts);
    const deleted = await tryGit(['-C', o.repository, 'branch', '-D', o.branch], opts);
    if (!deleted.ok && !/not found/.test(deleted.why))
      throw new GitCheckoutError(
        GIT_ERROR_KIND.gitFailed,
        `${deleted.command} failed: ${deleted.why}`,
        o.repository,
        'delete the branch by hand (git branch -D)',
      );
  } else if (present) {
    rmSync(o.dir, { recursive: true, force: true });
  }
  return { kept: false };
}

/** How many commits `branch` has that `commit` has not; 0 when the branch does not exist. */
async function commitsBeyond(repo: string, branch: string, commit: string, opts: GitOptions): Promise<number> {
  const exists = (await tryGit(['-C', repo, 'show-ref', '--verify', '--quiet', `refs/heads/${branch}`], opts)).ok;
  if (!exists) return 0;
  return Number(await git(['-C', repo, 'rev-list', '--count', `${commit}..refs/heads/${branch}`], repo, opts));
}
