/**
 * Where `run`'s flags send a run (`--pool`, `--checkout`, `--worktree`, `--task-queue`), checked
 * without loading what placing it needs (where-to-run.ts): `run` reads them before its start.
 */
import { UsageError } from '../../errors/errors.js';

export type RunPlace =
  | { kind: 'checkout' }
  | { kind: 'queue'; queue: string }
  | { kind: 'pinned'; pool: string }
  | { kind: 'portable'; pool: string }
  | { kind: 'worktree' };

/** Pool names become task queue names: keep them plain. */
export function checkPoolName(pool: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(pool)) {
    throw new UsageError(`invalid pool name "${pool}"`, 'use letters, digits, ".", "_" and "-" (e.g. --pool ci)');
  }
  return pool;
}

/** The place `--pool`, `--checkout`, `--worktree` and `--task-queue` ask for. */
export function runPlaceOf(flags: {
  pool?: string;
  checkout?: string;
  worktree?: boolean;
  taskQueue?: string;
}): RunPlace {
  const { pool, checkout, worktree, taskQueue } = flags;
  if (checkout !== undefined && checkout !== 'git')
    throw new UsageError(
      `--checkout ${checkout} is not a checkout mode`,
      'use --checkout git (the pool worker prepares a clone of the repository)',
    );
  if (taskQueue !== undefined && (pool !== undefined || worktree))
    throw new UsageError(
      '--task-queue cannot be combined with --pool or --worktree',
      'use --pool NAME for pools of ll-loop worker --pool NAME',
    );
  if (worktree && pool !== undefined)
    throw new UsageError(
      '--worktree runs on this machine; --pool sends a run to a pool',
      'for a pool run in its own checkout use --pool NAME --checkout git',
    );
  if (checkout !== undefined && pool === undefined)
    throw new UsageError('--checkout git needs --pool NAME', 'on this machine use --worktree');
  if (taskQueue !== undefined) return { kind: 'queue', queue: taskQueue };
  if (worktree) return { kind: 'worktree' };
  if (pool !== undefined)
    return checkout ? { kind: 'portable', pool: checkPoolName(pool) } : { kind: 'pinned', pool: checkPoolName(pool) };
  return { kind: 'checkout' };
}
