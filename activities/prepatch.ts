/**
 * `prepatch_check:`, the worker's half: a check (a shell action) that exited 0 is run once more
 * in a scratch git worktree of the checkout's commit (the code before the patch) with the test
 * files (activities/test-files.ts) copied in as they are now. The report says whether the
 * checkout had a patch at all and how the check exited there; what that means for the gate is
 * the core's (fsm/prepatch-check.ts). The patch is the checkout's uncommitted changes (run files
 * under `.loops/` aside); ignored files are not in the worktree, so `node_modules`, `.venv` and
 * `venv` are linked into it.
 */
import { CancelledFailure, Context } from '@temporalio/activity';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import type { ActionResult, RunActionInput } from '../fsm/types.js';
import type { PrepatchReport } from '../fsm/check-reports.js';
import { tryGit } from './git.js';
import { guardedFiles } from './test-files.js';

const LINKED = ['node_modules', '.venv', 'venv'];

/** The paths `git status` reports changed or untracked, run files aside. */
function changedPaths(porcelain: string): string[] {
  const fields = porcelain.split('\0');
  const out: string[] = [];
  for (let i = 0; i < fields.length; i += 1) {
    const entry = fields[i]!;
    if (entry.length < 4) continue;
    // A rename or copy is followed by its source path.
    if (entry[0] === 'R' || entry[0] === 'C') i += 1;
    const path = entry.slice(3);
    if (!path.startsWith('.loops/')) out.push(path);
  }
  return out;
}

/** Runs the check before the patch (see the module comment), with `run` in the worktree. */
async function prepatchRun(
  input: RunActionInput,
  run: (input: RunActionInput) => Promise<ActionResult>,
  spentMs: number,
): Promise<PrepatchReport> {
  // Both runs share the activity's time: the state's timeout (and the activity's slack).
  const left = Math.floor(input.timeout_s - spentMs / 1000);
  if (left < 1) return { skipped: "no time left of the state's timeout" };
  const top = await tryGit(['-C', input.cwd, 'rev-parse', '--show-toplevel']);
  if (!top.ok) return { skipped: 'not a git checkout' };
  const head = await tryGit(['-C', input.cwd, 'rev-parse', '--verify', 'HEAD']);
  if (!head.ok) return { skipped: 'the checkout has no commit yet' };
  const root = top.stdout.trim();
  const base = head.stdout.trim();
  const status = await tryGit(['-C', root, 'status', '--porcelain', '-z', '--untracked-files=all']);
  if (!status.ok) return { error: `${status.command}: ${status.why}` };
  if (changedPaths(status.stdout).length === 0) return { applied: false };
  const dir = await mkdtemp(join(tmpdir(), 'll-prepatch-'));
  try {
    const added = await tryGit(['-C', root, 'worktree', 'add', '--detach', '--quiet', dir, base]);
    if (!added.ok) return { error: `${added.command}: ${added.why}` };
    const now = await guardedFiles(root);
    const present = new Set(now);
    for (const path of now) {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await copyFile(join(root, path), join(dir, path));
    }
    for (const path of await guardedFiles(dir)) if (!present.has(path)) await rm(join(dir, path), { force: true });
    for (const name of LINKED)
      if (existsSync(join(root, name)) && !existsSync(join(dir, name)))
        await symlink(join(root, name), join(dir, name));
    const result = await run({ ...input, cwd: join(dir, relative(root, input.cwd)), timeout_s: left });
    if (result.timed_out) return { skipped: `the check timed out before the patch (after ${left} s)` };
    if (result.error !== undefined) return { error: result.error };
    return { applied: true, base: base.slice(0, 12), exit_code: result.exit_code };
  } finally {
    await tryGit(['-C', root, 'worktree', 'remove', '--force', dir]);
    await rm(dir, { recursive: true, force: true });
  }
}

/** True inside an activity whose cancellation was asked for. */
function cancelled(): boolean {
  try {
    return Context.current().cancellationSignal.aborted;
  } catch {
    return false; // not in an activity
  }
}

/** `run` with a passing check run again before the patch when its input asks (RunActionInput.prepatch_check). */
export function prepatchAction(
  run: (input: RunActionInput) => Promise<ActionResult>,
): (input: RunActionInput) => Promise<ActionResult> {
  return async (input) => {
    const result = await run(input);
    if (input.prepatch_check === undefined || input.kind !== 'shell') return result;
    if (result.exit_code !== 0 || result.error !== undefined) return result;
    const { prepatch_check: _policy, tamper_guard: _guard, ...plain } = input;
    try {
      return { ...result, prepatch: await prepatchRun(plain, run, result.duration_ms) };
    } catch (err) {
      // The activity's cancellation ends it, as for any action; anything else is a report.
      if (err instanceof CancelledFailure || cancelled()) throw err;
      return { ...result, prepatch: { error: err instanceof Error ? err.message : String(err) } };
    }
  };
}
