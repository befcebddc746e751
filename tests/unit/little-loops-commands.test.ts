/**
 * little-loops' command forms, in process: the aliases (each is its command, shown by `--help`,
 * none a command, flag or alias of ours), `fragments <lib>`, `list --visibility` and `--status`,
 * and how `next-loop` ranks loops.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALIASES, commandOf } from '../../client/commands/aliases.js';
import { COMMANDS } from '../../client/commands/index.js';
import { EXIT } from '../../errors/exit-codes.js';
import { statusWanted } from '../../client/commands/list-status.js';
import { shown, visibilityWanted } from '../../client/commands/list-visibility.js';
import { rankLoops } from '../../client/commands/next-loop.js';
import { runCliInProcess } from '../support/cli.js';

function project(): string {
  const cwd = mkdtempSync(join(tmpdir(), 'll-loop-ll-commands-'));
  mkdirSync(join(cwd, '.loops', 'lib'), { recursive: true });
  writeFileSync(
    join(cwd, '.loops', 'greet.yaml'),
    'name: greet\ndescription: say hi\ninitial: hello\nstates:\n  hello:\n    action: "echo hi"\n    next: done\n  done:\n    terminal: true\n',
  );
  return cwd;
}

describe('aliases', () => {
  it.each(Object.entries(ALIASES))('%s is %s, a command of the table', (alias, command) => {
    expect(commandOf(alias)).toBe(command);
    expect(Object.hasOwn(COMMANDS, command)).toBe(true);
    // No alias shadows a command of ours.
    expect(Object.hasOwn(COMMANDS, alias)).toBe(false);
  });

  it('s is show and st is status, not stop, server, schedule or steer; t is test', () => {
    expect([commandOf('s'), commandOf('st'), commandOf('t')]).toEqual(['show', 'status', 'test']);
    expect(commandOf('status')).toBe('status');
  });

  it.each([
    [
      ['val', 'greet'],
      ['validate', 'greet'],
    ],
    [
      ['s', 'greet'],
      ['show', 'greet'],
    ],
    [
      ['l', '--json'],
      ['list', '--json'],
    ],
    [
      ['sim', 'greet', '--scenario', 'all-pass'],
      ['simulate', 'greet', '--scenario', 'all-pass'],
    ],
    [
      ['t', 'greet', 'hello'],
      ['test', 'greet', 'hello'],
    ],
    [
      ['r', 'greet', '--dry-run'],
      ['run', 'greet', '--dry-run'],
    ],
  ])('ll-loop %j does what ll-loop %j does', async (alias, command) => {
    const cwd = project();
    const [a, c] = [await runCliInProcess(alias, { cwd }), await runCliInProcess(command, { cwd })];
    // How long an action took differs from one call to the next.
    const timeless = (text: string) => text.replace(/after \d+(\.\d+)? s/g, 'after … s');
    expect(a.code, a.stderr).toBe(c.code);
    expect(timeless(a.stdout)).toBe(timeless(c.stdout));
    expect(a.stderr).toBe(c.stderr);
  });

  it('--help lists them as aliases; help <alias> and <alias> --help give the command', async () => {
    const cwd = project();
    const help = await runCliInProcess(['--help'], { cwd });
    expect(help.stdout).toContain(
      "Aliases (little-loops' short names): r = run, val = validate, l = list, st = status, res = resume, h = history, t = test, sim = simulate, s = show",
    );
    for (const argv of [
      ['help', 'r'],
      ['r', '--help'],
      ['help', 'run'],
    ]) {
      const r = await runCliInProcess(argv, { cwd });
      expect(r.stdout).toMatch(/^Usage:\n {2}ll-loop run <name\|path> \[input\]/);
      expect(r.stdout).toContain('Alias: ll-loop r\n');
    }
    expect((await runCliInProcess(['help', 's'], { cwd })).stdout).toMatch(/ll-loop show .*\nAlias: ll-loop s\n/s);
  });

  it('an unknown word close to a command still gets a did-you-mean', async () => {
    const r = await runCliInProcess(['fragmnets', 'lib/common.yaml'], { cwd: project() });
    expect(r.code).toBe(EXIT.usage);
    expect(r.stderr).toContain('error: unknown command "fragmnets" (and no loop of that name)');
    expect(r.stderr).toContain('fix: did you mean ll-loop fragments?');
  });
});

describe('ll-loop fragments <lib>', () => {
  it("lists a built-in library's fragments with what they give and their descriptions", async () => {
    const r = await runCliInProcess(['fragments', 'lib/common.yaml'], { cwd: project() });
    expect(r.code, r.stderr).toBe(EXIT.ok);
    expect(r.stdout).toMatch(/^lib\/common\.yaml \(built-in\): \d+ fragments\nNAME\s+GIVES\s+DESCRIPTION\n/);
    expect(r.stdout).toMatch(/shell_exit\s+action_type, evaluate\s+A shell command judged by its exit code/);
  });

  it("finds a project's library in .loops/ (extension optional), and prints JSON", async () => {
    const cwd = project();
    writeFileSync(
      join(cwd, '.loops', 'lib', 'mine.yaml'),
      'fragments:\n  quick:\n    description: a quick check\n    action_type: shell\n  bare:\n    timeout: 5\n',
    );
    const r = await runCliInProcess(['fragments', 'lib/mine', '--json'], { cwd });
    expect(r.code, r.stderr).toBe(EXIT.ok);
    expect(JSON.parse(r.stdout)).toEqual({
      file: join(cwd, '.loops', 'lib', 'mine.yaml'),
      fragments: [
        { name: 'quick', description: 'a quick check', fields: ['action_type'] },
        { name: 'bare', description: null, fields: ['timeout'] },
      ],
    });
  });

  it.each([
    [[], /fragments needs a library file/, /ll-loop fragments lib\/common\.yaml/],
    [
      ['lib/comon.yaml'],
      /no fragment library "lib\/comon\.yaml" \(did you mean "lib\/common\.yaml"\?\)/,
      /give one of: .*lib\/common\.yaml/,
    ],
    [['greet'], /greet\.yaml has no fragments: block, so it is no fragment library/, /fragments: \{ name:/],
    [['lib/bad.yaml'], /lib\/bad\.yaml:2: fragment "x" must be a mapping of state fields/, /give it state fields/],
    [['lib/common.yaml', 'more'], /unexpected arguments: more/, /give one library/],
  ])('refuses %j', async (args, message, fix) => {
    const cwd = project();
    writeFileSync(join(cwd, '.loops', 'lib', 'bad.yaml'), 'fragments:\n  x: 3\n');
    const r = await runCliInProcess(['fragments', ...args], { cwd });
    expect(r.code).toBe(EXIT.usage);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.split('\n').find((l) => l.startsWith('fix: '))).toMatch(fix);
  });
});

describe('ll-loop list --visibility and --status', () => {
  it.each([
    [undefined, 'public'],
    ['internal', 'internal'],
    ['all', 'all'],
  ])('--visibility %s is %s', (given, want) => {
    expect(visibilityWanted(given)).toBe(want);
  });

  it('shows a loop of the asked audience (no visibility is public)', () => {
    expect([shown(undefined, 'public'), shown('internal', 'public'), shown('internal', 'internal')]).toEqual([
      true,
      false,
      true,
    ]);
    expect(['public', 'internal', 'example'].every((v) => shown(v, 'all'))).toBe(true);
  });

  it.each([
    ['failed', 'failed'],
    ['succeeded', 'succeeded'],
    ['interrupted', 'stopped'],
    ['awaiting_continuation', 'handoff'],
    ['completed', 'succeeded'],
    ['running', 'running'],
  ])("--status %s is our outcome %s (little-loops' words taken too)", (given, want) => {
    expect(statusWanted(given)).toBe(want);
  });

  it.each([
    [
      ['--visibility', 'secret'],
      /--visibility "secret" is not one of public, internal, example, all/,
      /--visibility all/,
    ],
    [
      ['--status', 'faild'],
      /--status "faild" is no run status \(did you mean "failed"\?\)/,
      /give one of: running, succeeded, failed/,
    ],
    [
      ['--status', 'failed', '--builtin'],
      /--status lists runs; it takes no other filter/,
      /ll-loop list --status S alone/,
    ],
    [['--failed', '--visibility', 'all'], /--visibility filters the loops, not runs/, /ll-loop list --visibility V/],
  ])('refuses %j', async (args, message, fix) => {
    const r = await runCliInProcess(['list', ...args], { cwd: project() });
    expect(r.code).toBe(EXIT.usage);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toMatch(fix);
  });

  it('lists the public loops by default and every one with --visibility all', async () => {
    const cwd = project();
    const names = async (...args: string[]) =>
      (JSON.parse((await runCliInProcess(['list', ...args, '--json'], { cwd })).stdout) as Array<{ name: string }>).map(
        (l) => l.name,
      );
    expect(await names()).toEqual(['greet']);
    expect(await names('--visibility', 'all')).toEqual(['greet']);
    expect(await names('--visibility', 'internal')).toEqual([]);
  });
});

describe('next-loop ranking', () => {
  const now = new Date('2026-06-15T12:00:00Z');
  const day = 86_400_000;
  const run = (loop: string, daysAgo: number, succeeded = true) => ({
    loop,
    succeeded,
    started: new Date(now.getTime() - daysAgo * day),
  });

  it('weighs how often, how recently and how well each loop ran; --exclude leaves one out', () => {
    const runs = [run('often', 3), run('often', 4), run('often', 5), run('recent', 0), run('failing', 0, false)];
    const ranked = rankLoops(runs, now);
    expect(ranked.map((s) => s.loop)).toEqual(['often', 'recent', 'failing']);
    expect(ranked[1]).toEqual({
      loop: 'recent',
      input: null,
      context: {},
      score: Math.round((0.5 * (Math.log1p(1) / Math.log1p(50)) + 0.3 + 0.2) * 10_000) / 10_000,
      rationale: '1 run; last run today; 100% success',
      command: 'll-loop run recent',
    });
    expect(ranked[0]!.rationale).toBe('3 runs; last run 3d ago; 100% success');
    expect(ranked[2]!.rationale).toBe('1 run; last run today; 0% success');
    expect(rankLoops(runs, now, new Set(['often'])).map((s) => s.loop)).toEqual(['recent', 'failing']);
    expect(rankLoops([], now)).toEqual([]);
  });
});
