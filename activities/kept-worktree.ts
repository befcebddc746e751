/**
 * What a `run --worktree` run left in the repository, read after the run ended by the command
 * that started it (on the same machine). At its end the run removes its worktree and branch
 * `ll-loop/<run id>` unless they hold work (git-checkout.ts `finishCheckout`), so the branch still
 * being there means the work was kept: this says where, what it holds, and the git commands that
 * merge or drop it.
 */
import { changesOf } from './git-checkout.js';
import { tryGit, type GitOptions } from './git.js';

export interface KeptWorktree {
  kept: true;
  branch: string;
  /** The worktree's directory; absent when only the branch is left (its directory was deleted). */
  path?: string;
  /** Commits on the branch beyond the commit the run started from. */
  commits: number;
  /** Uncommitted changes in the worktree (paths relative to it; ll-loop's own files left out). */
  uncommitted: string[];
  /** The commands that bring the work into the current branch of the repository, in order. */
  merge: string[];
  /** The commands that delete the worktree and its branch, work and all. */
  drop: string[];
}

/** A path as one word for a POSIX shell. */
function quoted(path: string): string {
  return /^[\w./@%+=:,-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}

/** The directory of the worktree that has `branch` checked out, from `git worktree list --porcelain`. */
function worktreeOf(listing: string, branch: string): string | undefined {
  for (const block of listing.split('\n\n')) {
    const lines = block.split('\n');
    if (!lines.includes(`branch refs/heads/${branch}`)) continue;
    const path = lines.find((line) => line.startsWith('worktree '));
    if (path) return path.slice('worktree '.length);
  }
  return undefined;
}

/**
 * The run's kept worktree, or `{ kept: false }` when the run removed it (or never made one).
 * `repository` is the repository's top directory, `commit` the run's start commit.
 */
export async function keptWorktree(
  o: { repository: string; branch: string; commit: string },
  opts: GitOptions = {},
): Promise<KeptWorktree | { kept: false; branch: string }> {
  const ref = `refs/heads/${o.branch}`;
  const exists = await tryGit(['-C', o.repository, 'show-ref', '--verify', '--quiet', ref], opts);
  if (!exists.ok) return { kept: false, branch: o.branch };
  const listed = await tryGit(['-C', o.repository, 'worktree', 'list', '--porcelain'], opts);
  const path = listed.ok ? worktreeOf(listed.stdout, o.branch) : undefined;
  const ahead = await tryGit(['-C', o.repository, 'rev-list', '--count', `${o.commit}..${ref}`], opts);
  const commits = ahead.ok ? Number(ahead.stdout.trim()) || 0 : 0;
  const uncommitted = path ? (await changesOf(path, opts).catch(() => [])).map((e) => e.path) : [];
  const branch = quoted(o.branch);
  const merge = [
    ...(path && uncommitted.length > 0
      ? [`git -C ${quoted(path)} add -A && git -C ${quoted(path)} commit -m ${quoted(`work of ${o.branch}`)}`]
      : []),
    `git merge ${branch}`,
  ];
  const drop = [...(path ? [`git worktree remove --force ${quoted(path)}`] : []), `git branch -D ${branch}`];
  return { kept: true, branch: o.branch, ...(path ? { path } : {}), commits, uncommitted, merge, drop };
}
