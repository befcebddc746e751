/**
 * `--context-file KEY=PATH` in process through `main`: the file's bytes become the value (exactly,
 * `=` and newlines included), read from where the command was started; a pair without `=`, a
 * missing file, a directory, a file that is not UTF-8 and a key given twice are refused with
 * error and fix; so are a device, a FIFO and a file over what a run can carry, without reading
 * them to their end (there is none). The 1 MB value reaching an action is tests/e2e/context-file.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { EXIT } from '../../errors/exit-codes.js';
import { MAX_DEFINITION_BYTES } from '../../loader/payload-limit.js';
import { runCliInProcess } from '../support/cli.js';

let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'll-loop-context-file-'));
  mkdirSync(join(root, '.loops'));
  writeFileSync(
    join(root, '.loops', 'greet.yaml'),
    'name: greet\ninitial: hello\nstates:\n  hello:\n    action: "echo ${context.who}"\n    next: done\n  done:\n    terminal: true\ncontext:\n  who: world\n',
  );
});

describe('--context-file KEY=PATH', () => {
  it('gives the file’s contents, exactly, as the value (run and show)', async () => {
    writeFileSync(join(root, 'who.txt'), 'a=b "c"\nsecond line\n\n');
    const r = await runCliInProcess(['run', 'greet', '--context-file', 'who=who.txt', '--dry-run'], { cwd: root });
    expect(r.code, r.stderr).toBe(EXIT.ok);
    expect(r.stdout).toContain(JSON.stringify({ who: 'a=b "c"\nsecond line\n\n' }).slice(1, -1));
    const shown = await runCliInProcess(['show', 'greet', '--context-file', 'who=who.txt', '--json'], { cwd: root });
    expect(shown.code, shown.stderr).toBe(EXIT.ok);
    expect(shown.stdout).toContain('second line');
  });

  it('reads a relative path from the directory the command was started in', async () => {
    mkdirSync(join(root, 'sub'));
    writeFileSync(join(root, 'sub', 'who.txt'), 'from-sub');
    const r = await runCliInProcess(['run', 'greet', '--context-file', 'who=who.txt', '--dry-run'], {
      cwd: join(root, 'sub'),
    });
    expect(r.code, r.stderr).toBe(EXIT.ok);
    expect(r.stdout).toContain('"who":"from-sub"');
  });

  it('refuses a pair without =, a missing file, a directory, non-UTF-8 and a key given twice', async () => {
    const noEq = await runCliInProcess(['run', 'greet', '--context-file', 'who', '--dry-run'], { cwd: root });
    expect(noEq.code).toBe(EXIT.usage);
    expect(noEq.stderr).toBe(
      'error: --context-file "who" is not KEY=PATH\nfix: write --context-file name=path/to/file (the file’s contents become the value of context.name)\n',
    );
    const missing = await runCliInProcess(['run', 'greet', '--context-file', 'who=nope.txt', '--dry-run'], {
      cwd: root,
    });
    expect(missing.code).toBe(EXIT.usage);
    expect(missing.stderr).toBe(
      `error: --context-file who=nope.txt: cannot read ${join(root, 'nope.txt')} (no such file)\nfix: give the path of a readable file, relative to the directory you run ll-loop in\n`,
    );
    const dir = await runCliInProcess(['run', 'greet', '--context-file', 'who=.loops', '--dry-run'], { cwd: root });
    expect(dir.code).toBe(EXIT.usage);
    expect(dir.stderr).toContain('(it is a directory)');
    writeFileSync(join(root, 'bin.dat'), Buffer.from([0x61, 0xff, 0xfe, 0x62]));
    const binary = await runCliInProcess(['run', 'greet', '--context-file', 'who=bin.dat', '--dry-run'], { cwd: root });
    expect(binary.code).toBe(EXIT.usage);
    expect(binary.stderr).toContain(`error: --context-file who: ${join(root, 'bin.dat')} is not UTF-8 text\nfix: `);
    writeFileSync(join(root, 'who.txt'), 'x');
    const twice = await runCliInProcess(
      ['run', 'greet', '--context', 'who=y', '--context-file', 'who=who.txt', '--dry-run'],
      { cwd: root },
    );
    expect(twice.code).toBe(EXIT.usage);
    expect(twice.stderr).toContain('error: context key "who" is given twice');
  });

  it('is listed in the usage of run, resume and schedule', async () => {
    for (const command of ['run', 'resume', 'schedule']) {
      const r = await runCliInProcess(['help', command], { cwd: root });
      expect(r.stdout + r.stderr).toContain('--context-file K=PATH');
    }
  });

  it('reads regular files only, and no more than a run can carry, even with --dry-run', async () => {
    const zero = await runCliInProcess(['run', 'greet', '--context-file', 'who=/dev/zero', '--dry-run'], { cwd: root });
    expect(zero.code).toBe(EXIT.usage);
    expect(zero.stderr).toBe(
      'error: --context-file who=/dev/zero: /dev/zero is a character device, not a regular file\n' +
        'fix: give a regular file; to pass what a command prints, write it to a file first (cmd > out.txt) and give that file\n',
    );
    // A FIFO nobody writes to: refused at once, not waited on.
    execFileSync('mkfifo', [join(root, 'pipe')]);
    const fifo = await runCliInProcess(['run', 'greet', '--context-file', 'who=pipe', '--dry-run'], { cwd: root });
    expect(fifo.code).toBe(EXIT.usage);
    expect(fifo.stderr).toContain(`${join(root, 'pipe')} is a FIFO (named pipe), not a regular file`);
    writeFileSync(join(root, 'big.txt'), 'x'.repeat(MAX_DEFINITION_BYTES + 1));
    const big = await runCliInProcess(['run', 'greet', '--context-file', 'who=big.txt', '--dry-run'], { cwd: root });
    expect(big.code).toBe(EXIT.usage);
    expect(big.stderr).toContain(
      `error: --context-file who=big.txt: ${join(root, 'big.txt')} is over 1.8 MiB, more than a run can carry`,
    );
    expect(big.stderr).toContain('fix: keep large text in a file the actions read');
  }, 20_000);
});
