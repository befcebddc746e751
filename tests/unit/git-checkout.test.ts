/**
 * Portable checkouts (activities/git-checkout.ts) with real git in temporary directories, offline:
 * the source of a run (and the dirty-tree refusal), its worktree or clone on `ll-loop/<id>`
 * (idempotent, as a retried activity needs), and the keep-or-remove rule at the end.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkoutDir, finishCheckout, portableSource, prepareCheckout } from '../../activities/git-checkout.js';
import { GitCheckoutError } from '../../activities/git.js';

const tmp = mkdtempSync(join(tmpdir(), 'll-git-checkout-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let n = 0;

const ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@example.com',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
};
const sh = (cwd: string, ...args: string[]): string =>
  execFileSync('git', args, { cwd, env: ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/** A repository with one commit (README, src/a.txt) and a checkout-style `.loops/` with a tracked loop. */
function repo(): { dir: string; base: string; head: string } {
  const base = join(tmp, String(++n));
  const dir = join(base, 'repo');
  mkdirSync(join(dir, 'src'), { recursive: true });
  mkdirSync(join(dir, '.loops'), { recursive: true });
  sh(base, 'init', '--quiet', '-b', 'main', dir);
  writeFileSync(join(dir, 'README'), 'hello\n');
  writeFileSync(join(dir, 'src', 'a.txt'), 'a\n');
  writeFileSync(join(dir, '.loops', 'fix.yaml'), 'name: fix\n');
  sh(dir, 'add', '-A');
  sh(dir, 'commit', '--quiet', '-m', 'first');
  return { dir, base, head: sh(dir, 'rev-parse', 'HEAD') };
}

async function refusal(p: Promise<unknown>): Promise<GitCheckoutError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(GitCheckoutError);
  return err as GitCheckoutError;
}

describe('portableSource', () => {
  it('gives the repository path and HEAD of a clean repository without origin', async () => {
    const r = repo();
    expect(await portableSource(r.dir)).toEqual({ repository: r.dir, commit: r.head, path: '' });
    mkdirSync(join(r.dir, 'sub', '.loops'), { recursive: true });
    expect(await portableSource(join(r.dir, 'sub'))).toEqual({ repository: r.dir, commit: r.head, path: 'sub' });
  });

  it('refuses tracked changes, staged files and untracked files outside .loops/, with the fix', async () => {
    const r = repo();
    writeFileSync(join(r.dir, 'src', 'a.txt'), 'changed\n');
    const modified = await refusal(portableSource(r.dir));
    expect(modified).toMatchObject({ kind: 'dirty', where: r.dir });
    expect(modified.message).toContain('uncommitted changes a portable run would not see');
    expect(modified.message).toContain('src/a.txt');
    expect(modified.fix).toContain('git stash -u');
    sh(r.dir, 'checkout', '--quiet', '--', 'src/a.txt');
    writeFileSync(join(r.dir, 'new.txt'), 'n\n');
    expect((await refusal(portableSource(r.dir))).message).toContain('untracked new.txt');
    sh(r.dir, 'add', 'new.txt');
    expect((await refusal(portableSource(r.dir))).message).toContain('new.txt');
  });

  it('ignores untracked files in .loops/ (run files, new loops) but not changes to tracked ones there', async () => {
    const r = repo();
    mkdirSync(join(r.dir, '.loops', '.running'), { recursive: true });
    writeFileSync(join(r.dir, '.loops', '.running', 'x.events.jsonl'), '{}\n');
    writeFileSync(join(r.dir, '.loops', 'new-loop.yaml'), 'name: n\n');
    expect((await portableSource(r.dir)).commit).toBe(r.head);
    writeFileSync(join(r.dir, '.loops', 'fix.yaml'), 'name: changed\n');
    expect((await refusal(portableSource(r.dir))).message).toContain('.loops/fix.yaml');
  });

  it('ignores ll-loop’s runtime files even when a user committed them before (worker.log changes on every run)', async () => {
    const r = repo();
    for (const f of ['.worker/worker.log', '.running/x.state.json', '.temporal/server.log', '.server-note.json']) {
      mkdirSync(dirname(join(r.dir, '.loops', f)), { recursive: true });
      writeFileSync(join(r.dir, '.loops', f), 'one\n');
    }
    sh(r.dir, 'add', '-A');
    sh(r.dir, 'commit', '--quiet', '-m', 'runtime files committed by mistake');
    for (const f of ['.worker/worker.log', '.running/x.state.json', '.temporal/server.log', '.server-note.json'])
      writeFileSync(join(r.dir, '.loops', f), 'two\n');
    rmSync(join(r.dir, '.loops', '.running', 'x.state.json'));
    expect((await portableSource(r.dir)).commit).toBe(sh(r.dir, 'rev-parse', 'HEAD'));
    // Only ll-loop's own directories: a tracked file elsewhere in .loops/ still counts.
    mkdirSync(join(r.dir, '.loops', 'lib'), { recursive: true });
    writeFileSync(join(r.dir, '.loops', 'fix.yaml'), 'name: changed\n');
    expect((await refusal(portableSource(r.dir))).message).toContain('.loops/fix.yaml');
  });

  it('refuses a directory outside git, a repository without commits, and a missing git', async () => {
    const outside = join(tmp, `plain-${++n}`);
    mkdirSync(outside);
    expect(await refusal(portableSource(outside))).toMatchObject({ kind: 'not-a-repository', where: outside });
    const empty = join(tmp, `empty-${++n}`);
    sh(tmp, 'init', '--quiet', empty);
    expect(await refusal(portableSource(empty))).toMatchObject({ kind: 'no-commit' });
    expect(await refusal(portableSource(repo().dir, { git: '/nonexistent/git' }))).toMatchObject({ kind: 'no-git' });
  });

  it('gives origin’s URL when the commit is pushed there, refuses an unpushed one, and always the path for a worktree', async () => {
    const r = repo();
    const remote = join(r.base, 'remote.git');
    sh(r.base, 'clone', '--quiet', '--bare', r.dir, remote);
    sh(r.dir, 'remote', 'add', 'origin', remote);
    sh(r.dir, 'fetch', '--quiet', 'origin');
    expect(await portableSource(r.dir)).toEqual({ repository: remote, commit: r.head, path: '' });
    writeFileSync(join(r.dir, 'README'), 'more\n');
    sh(r.dir, 'commit', '--quiet', '-am', 'local only');
    const unpushed = await refusal(portableSource(r.dir));
    expect(unpushed).toMatchObject({ kind: 'unpushed' });
    expect(unpushed.fix).toContain('git push');
    expect(await portableSource(r.dir, { worktree: true })).toMatchObject({ repository: r.dir });
  });
});

describe('prepareCheckout and finishCheckout with a worktree', () => {
  const prepare = (r: ReturnType<typeof repo>, runId: string) =>
    prepareCheckout({
      repository: r.dir,
      commit: r.head,
      branch: `ll-loop/${runId}`,
      worktree: true,
      baseDir: join(r.base, 'data'),
      runId,
    });
  const finish = (r: ReturnType<typeof repo>, dir: string, runId: string) =>
    finishCheckout({ dir, repository: r.dir, branch: `ll-loop/${runId}`, commit: r.head, worktree: true });

  it('adds a worktree on ll-loop/<id> at the commit, leaving the user’s tree alone, and reuses it when asked again', async () => {
    const r = repo();
    const dir = await prepare(r, 'fix-1');
    expect(dir).toBe(join(r.base, 'data', 'worktrees', 'fix-1'));
    expect(sh(dir, 'symbolic-ref', '--short', 'HEAD')).toBe('ll-loop/fix-1');
    expect(sh(dir, 'rev-parse', 'HEAD')).toBe(r.head);
    expect(sh(r.dir, 'symbolic-ref', '--short', 'HEAD')).toBe('main');
    expect(sh(r.dir, 'worktree', 'list')).toContain(dir);
    writeFileSync(join(dir, 'work.txt'), 'in progress\n');
    expect(await prepare(r, 'fix-1')).toBe(dir);
    expect(existsSync(join(dir, 'work.txt'))).toBe(true);
  });

  it('after its directory was lost, checks the existing branch out again with its commits', async () => {
    const r = repo();
    const dir = await prepare(r, 'fix-2');
    writeFileSync(join(dir, 'README'), 'by the run\n');
    sh(dir, 'commit', '--quiet', '-am', 'run work');
    const work = sh(dir, 'rev-parse', 'HEAD');
    rmSync(dir, { recursive: true, force: true });
    expect(await prepare(r, 'fix-2')).toBe(dir);
    expect(sh(dir, 'rev-parse', 'HEAD')).toBe(work);
  });

  it('refuses a directory in its place that is not its worktree', async () => {
    const r = repo();
    const dir = checkoutDir(join(r.base, 'data'), 'fix-3', true);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'stray'), 'x');
    const err = await refusal(prepare(r, 'fix-3'));
    expect(err).toMatchObject({ kind: 'occupied', where: dir });
    expect(err.fix).toContain(`rm -rf '${dir}'`);
  });

  it('removes an unchanged worktree and its branch (run files in .loops/ do not count), and says so again', async () => {
    const r = repo();
    const dir = await prepare(r, 'fix-4');
    mkdirSync(join(dir, '.loops', '.running'), { recursive: true });
    writeFileSync(join(dir, '.loops', '.running', 'fix.state.json'), '{}');
    expect(await finish(r, dir, 'fix-4')).toEqual({ kept: false });
    expect(existsSync(dir)).toBe(false);
    expect(sh(r.dir, 'branch', '--list', 'll-loop/fix-4')).toBe('');
    expect(sh(r.dir, 'worktree', 'list')).not.toContain(dir);
    expect(await finish(r, dir, 'fix-4')).toEqual({ kept: false });
  });

  it('keeps a worktree with a commit beyond the start, or with uncommitted changes', async () => {
    const r = repo();
    const committed = await prepare(r, 'fix-5');
    writeFileSync(join(committed, 'README'), 'fixed\n');
    sh(committed, 'commit', '--quiet', '-am', 'fix');
    expect(await finish(r, committed, 'fix-5')).toEqual({
      kept: true,
      why: expect.stringContaining('1 commit on ll-loop/fix-5 beyond') as unknown,
    });
    expect(existsSync(committed)).toBe(true);
    const changed = await prepare(r, 'fix-6');
    writeFileSync(join(changed, 'src', 'a.txt'), 'edited\n');
    expect(await finish(r, changed, 'fix-6')).toEqual({
      kept: true,
      why: expect.stringContaining('uncommitted changes') as unknown,
    });
    expect(sh(r.dir, 'branch', '--list', 'll-loop/fix-6')).toContain('ll-loop/fix-6');
  });
});

describe('prepareCheckout and finishCheckout with a clone', () => {
  const opts = (r: ReturnType<typeof repo>, runId: string, commit = r.head) => ({
    repository: r.dir,
    commit,
    branch: `ll-loop/${runId}`,
    worktree: false,
    baseDir: join(r.base, 'data'),
    runId,
  });

  it('clones a local path into checkouts/<id> on ll-loop/<id> at the commit, idempotently', async () => {
    const r = repo();
    const dir = await prepareCheckout(opts(r, 'c-1'));
    expect(dir).toBe(join(r.base, 'data', 'checkouts', 'c-1'));
    expect(sh(dir, 'symbolic-ref', '--short', 'HEAD')).toBe('ll-loop/c-1');
    expect(sh(dir, 'rev-parse', 'HEAD')).toBe(r.head);
    expect(sh(dir, 'remote', 'get-url', 'origin')).toBe(r.dir);
    expect(sh(r.dir, 'branch', '--list', 'll-loop/*')).toBe('');
    expect(await prepareCheckout(opts(r, 'c-1'))).toBe(dir);
  });

  it('clears what an attempt that died mid-clone left, and nothing of other runs', async () => {
    const r = repo();
    const partials = join(r.base, 'data', 'checkouts', '.partial');
    mkdirSync(join(partials, 'c-5.4242'), { recursive: true });
    mkdirSync(join(partials, 'c-5.1.4242'), { recursive: true });
    const dir = await prepareCheckout(opts(r, 'c-5'));
    expect(sh(dir, 'rev-parse', 'HEAD')).toBe(r.head);
    expect(existsSync(join(partials, 'c-5.4242'))).toBe(false);
    expect(existsSync(join(partials, 'c-5.1.4242'))).toBe(true);
  });

  it('fetches a commit that is on no branch of the source (a detached HEAD)', async () => {
    const r = repo();
    sh(r.dir, 'checkout', '--quiet', '--detach');
    writeFileSync(join(r.dir, 'README'), 'detached\n');
    sh(r.dir, 'commit', '--quiet', '-am', 'detached work');
    const detached = sh(r.dir, 'rev-parse', 'HEAD');
    const dir = await prepareCheckout(opts(r, 'c-2', detached));
    expect(sh(dir, 'rev-parse', 'HEAD')).toBe(detached);
  });

  it('removes an unchanged clone and keeps one with a commit', async () => {
    const r = repo();
    const plain = await prepareCheckout(opts(r, 'c-3'));
    expect(
      await finishCheckout({ dir: plain, repository: r.dir, branch: 'll-loop/c-3', commit: r.head, worktree: false }),
    ).toEqual({ kept: false });
    expect(existsSync(plain)).toBe(false);
    const worked = await prepareCheckout(opts(r, 'c-4'));
    writeFileSync(join(worked, 'README'), 'fixed\n');
    sh(worked, 'commit', '--quiet', '-am', 'fix');
    expect(
      await finishCheckout({ dir: worked, repository: r.dir, branch: 'll-loop/c-4', commit: r.head, worktree: false }),
    ).toMatchObject({ kept: true });
    expect(existsSync(worked)).toBe(true);
  });
});

describe('names', () => {
  it('makes a run id one safe path segment and refuses a branch git would not accept', async () => {
    expect(checkoutDir('/d', 'a/b c', true)).toBe('/d/worktrees/a-b-c');
    expect(checkoutDir('/d', '..', false)).toBe('/d/checkouts/_');
    const r = repo();
    expect(
      await refusal(
        prepareCheckout({
          repository: r.dir,
          commit: r.head,
          branch: 'll-loop/bad..name',
          worktree: true,
          baseDir: join(r.base, 'data'),
          runId: 'x',
        }),
      ),
    ).toMatchObject({ kind: 'bad-name' });
  });
});
