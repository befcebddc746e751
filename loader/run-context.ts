/**
 * Context values little-loops gives every run it starts, for the loops that read them:
 * - `run_dir`: a directory of the run's own (`.loops/runs/<loop>-<time>-<4 hex>`), made before the
 *   run starts, for the files a loop keeps between states (its catalog writes plan.md, dod.md,
 *   checkpoints there);
 * - `input_hash`: the first 12 hex digits of the SHA-256 of the run's `input`, which loops use to
 *   tell a checkpoint of another task from their own.
 * Each is set only when the loop reads it (`${context.run_dir}`, `${context.input_hash}`) and the
 * context has no such key (a `--context` value or the loop's own `context:` entry wins, even
 * empty, as in little-loops). So a loop that reads neither starts exactly as before.
 * For a run about to start only (`run`): validation and schedules do not set them.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

const reads = (raw: Record<string, unknown>, key: string): boolean =>
  new RegExp(`\\$\\{\\s*context\\.${key}(?![A-Za-z0-9_-])`).test(JSON.stringify(raw));

/** `20261202T052238`: the UTC time of `now`, to the second. */
function stamp(now: Date): string {
  return now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, '');
}

/** Adds `run_dir` / `input_hash` to `raw.context` where the loop reads them and has none (in place). */
export function addRunContext(raw: Record<string, unknown>, cwd: string, now: Date = new Date()): void {
  const context = raw.context && typeof raw.context === 'object' ? { ...(raw.context as Record<string, unknown>) } : {};
  let changed = false;
  if (reads(raw, 'run_dir') && !Object.hasOwn(context, 'run_dir')) {
    const name = typeof raw.name === 'string' && /^[A-Za-z0-9_.-]+$/.test(raw.name) ? raw.name : 'loop';
    const dir = join(cwd, '.loops', 'runs', `${name}-${stamp(now)}-${randomBytes(2).toString('hex')}`);
    mkdirSync(dir, { recursive: true });
    context.run_dir = dir;
    changed = true;
  }
  if (reads(raw, 'input_hash') && !Object.hasOwn(context, 'input_hash') && typeof context.input === 'string') {
    context.input_hash = createHash('sha256').update(context.input).digest('hex').slice(0, 12);
    changed = true;
  }
  if (changed) raw.context = context;
}
