/**
 * ll-loop's runtime directories (loader/runtime-dir.ts) never show in `git status` of the
 * project, with real git, and a user's own `.gitignore` is never replaced.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureRuntimeDir, ensureRuntimeDirOf, isRuntimePath, RuntimeDirError } from '../../loader/runtime-dir.js';
import { CliError, toCliError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { RunFiles } from '../../host/run-files.js';
import { tryClaim } from '../../host/checkout-claim.js';
import { runningLogPath } from '../../activities/run-action.js';
import { noteForeignServer } from '../../temporal/embedded.js';
import { itemWorktreeActivities } from '../../activities/item-worktrees.js';

const tmp = mkdtempSync(join(tmpdir(), 'll-runtime-dir-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const status = (dir: string): string =>
  execFileSync('git', ['-C', dir, 'status', '--porcelain', '--untracked-files=all'], {
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' },
  });

describe('runtime directories', () => {
  it('leave git status clean after ll-loop writes its run files, worker claim, action logs and server note', async () => {
    const dir = join(tmp, 'project');
    mkdirSync(join(dir, '.loops'), { recursive: true });
    execFileSync('git', ['init', '--quiet', dir]);
    writeFileSync(join(dir, '.loops', 'fix.yaml'), 'name: fix\n');
    const files = new RunFiles(dir, 'fix-20260101T000000');
    files.appendEvent({ event: 'loop_start', seq: 1, ts: '2026-01-01T00:00:00Z' } as never);
    files.writeState({ seq: 1 } as never);
    await files.close();
    const log = runningLogPath(dir, 'fix-20260101T000000', '1-check.log');
    mkdirSync(dirname(log), { recursive: true });
    writeFileSync(log, 'output\n');
    expect(tryClaim(dir, { pid: process.pid, build_id: 'b', code_id: 'c', address: 'a' }).claimed).toBe(true);
    noteForeignServer(dir, {}, () => {})({ address: '127.0.0.1:1', home: undefined, assumedUiUrl: 'http://x' });
    ensureRuntimeDir(join(dir, '.loops', '.temporal'));
    writeFileSync(join(dir, '.loops', '.temporal', 'server.log'), 'log\n');
    expect(status(dir).trim().split('\n')).toEqual(['?? .loops/fix.yaml']);
  });

  it('leave git status clean with a fan-out item worktree kept with its work, and `git add .loops` stages none of it', async () => {
    const dir = join(tmp, 'fanout');
    mkdirSync(join(dir, '.loops'), { recursive: true });
    const git = (cwd: string, ...args: string[]) =>
      execFileSync('git', ['-C', cwd, '-c', 'user.email=t@t', '-c', 'user.name=t', ...args], {
        encoding: 'utf8',
        env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' },
      });
    git(tmp, 'init', '--quiet', dir);
    writeFileSync(join(dir, '.loops', 'fix.yaml'), 'name: fix\n');
    git(dir, 'add', '-A');
    git(dir, 'commit', '--quiet', '-m', 'loops');
    const source = await itemWorktreeActivities.itemWorktreeSource({ cwd: dir });
    if ('error' in source) throw new Error(source.error);
    const branch = 'll-loop/fan-1/0';
    const place = await itemWorktreeActivities.prepareItemWorktree({ source, branch, runId: 'fan-1.0' });
    writeFileSync(join(place.dir, 'work.txt'), 'done by the item\n');
    git(place.dir, 'add', 'work.txt');
    git(place.dir, 'commit', '--quiet', '-m', 'item work');
    expect(await itemWorktreeActivities.finishItemWorktree({ source, dir: place.dir, branch })).toMatchObject({
      kept: true,
    });
    expect(status(dir)).toBe('');
    git(dir, 'add', '.loops');
    expect(git(dir, 'diff', '--cached', '--name-only')).toBe('');
  });

  it('keeps a .gitignore that is there already', () => {
    const dir = join(tmp, 'own', '.loops', '.worker');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, '.gitignore'), 'mine\n');
    ensureRuntimeDir(dir);
    expect(readFileSync(join(dir, '.gitignore'), 'utf8')).toBe('mine\n');
  });

  it('names the runtime paths the dirty-repository check skips', () => {
    for (const p of [
      '.loops/.worker/worker.log',
      'sub/.loops/.running/a/1-x.log',
      '.loops/.temporal/x',
      '.loops/.server-note.json',
      '.loops/.worktrees/worktrees/fan-1.0/work.txt',
    ])
      expect(isRuntimePath(p)).toBe(true);
    for (const p of ['.loops/fix.yaml', '.loops/lib/common.yaml', 'x/.worker/a', '.loops/.workers/a'])
      expect(isRuntimePath(p)).toBe(false);
  });
});

describe('a runtime directory ll-loop cannot make', () => {
  it('is a RuntimeDirError naming the path, the cause and the fix, which the CLI reports as exit 1', () => {
    const root = mkdtempSync(join(tmpdir(), 'll-loop-runtime-blocked-'));
    mkdirSync(join(root, '.loops'));
    writeFileSync(join(root, '.loops', '.worker'), 'not a directory');
    const dir = join(root, '.loops', '.worker');
    let thrown: unknown;
    try {
      ensureRuntimeDir(dir);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(RuntimeDirError);
    expect((thrown as Error).message).toBe(
      `cannot create ${dir}, where ll-loop keeps its runtime files (the checkout's worker, runs' events and output): a file is in the way (a directory is needed there)`,
    );
    const cli = toCliError(thrown) as CliError;
    expect(cli).toBeInstanceOf(CliError);
    expect(cli.exitCode).toBe(EXIT.usage);
    expect(cli.fix).toMatch(/^move the file out of the way/);
    // Below it too: an action's log under the blocked directory.
    expect(() => ensureRuntimeDirOf(join(dir, 'x', 'out.log'))).toThrow(RuntimeDirError);
  });
});
