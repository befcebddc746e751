/**
 * The CLI a person expects, in process through `main`: `--version`; our own messages for unknown
 * options and commands (never parseArgs' text), with the closest option or command; `--context`
 * keys the loop does not use are refused unless `--context-allow-unknown`; commands started in a
 * subdirectory work in the project above it, while a path typed there is read from there.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { EXIT } from '../../errors/exit-codes.js';
import { eventsPath, runFileStem, statePath } from '../../host/run-files.js';
import { scheduledRunId } from '../../runs/find/find-runs.js';
import { runCliInProcess } from '../support/cli.js';

let root: string;

function loop(name: string, body: string): void {
  writeFileSync(join(root, '.loops', `${name}.yaml`), body);
}

const GREET = `name: greet
initial: hello
states:
  hello:
    action: "echo \${context.who} \${context.mood}"
    next: done
  done:
    terminal: true
context:
  who: world
`;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'll-loop-cli-person-'));
  mkdirSync(join(root, '.loops'));
  loop('greet', GREET);
});

describe('--version', () => {
  it.each(['--version', '-V'])('%s prints the package version and exits 0', async (flag) => {
    const version = (
      JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as { version: string }
    ).version;
    const r = await runCliInProcess([flag], { cwd: root });
    expect(r).toEqual({ code: EXIT.ok, stdout: `ll-loop ${version}\n`, stderr: '' });
  });
});

describe('unknown options and commands', () => {
  it('an unknown option names the command and the closest option, in our words', async () => {
    const r = await runCliInProcess(['validate', 'greet', '--jsno'], { cwd: root });
    expect(r.code).toBe(EXIT.usage);
    expect(r.stderr).toBe('error: unknown option --jsno for ll-loop validate\nfix: did you mean --json?\n');
  });

  it('an option far from every other gets the command help, not parseArgs text', async () => {
    const r = await runCliInProcess(['run', 'greet', '--zzzzzzzz'], { cwd: root });
    expect(r.code).toBe(EXIT.usage);
    expect(r.stderr).toContain('error: unknown option --zzzzzzzz for ll-loop run\n');
    expect(r.stderr).toContain('fix: see ll-loop help run');
    expect(r.stderr).not.toContain('To specify a positional');
  });

  it('a missing value and a value given to a switch are said plainly', async () => {
    const missing = await runCliInProcess(['run', 'greet', '--context'], { cwd: root });
    expect(missing.code).toBe(EXIT.usage);
    expect(missing.stderr).toContain('error: --context of ll-loop run needs a value');
    const extra = await runCliInProcess(['list', '--json=yes'], { cwd: root });
    expect(extra.code).toBe(EXIT.usage);
    expect(extra.stderr).toContain('error: --json of ll-loop list takes no value');
  });

  it('server --port takes a port number', async () => {
    const r = await runCliInProcess(['server', 'start', '--port', 'abc'], { cwd: root });
    expect(r.code).toBe(EXIT.usage);
    expect(r.stderr).toBe('error: --port must be a port number (1-65535), got "abc"\nfix: e.g. --port 7243\n');
  });

  it('`ll-loop --verison` suggests --version', async () => {
    const r = await runCliInProcess(['--verison'], { cwd: root });
    expect(r.code).toBe(EXIT.usage);
    expect(r.stderr).toContain('fix: did you mean --version?');
  });

  it('a mistyped command that is no loop suggests the command', async () => {
    const r = await runCliInProcess(['statsu'], { cwd: root });
    expect(r.code).toBe(EXIT.usage);
    expect(r.stderr).toBe(
      'error: unknown command "statsu" (and no loop of that name)\nfix: did you mean ll-loop status? (ll-loop help lists the commands)\n',
    );
  });

  it('a word closer to a loop than to a command is a mistyped loop name', async () => {
    const r = await runCliInProcess(['gret'], { cwd: root });
    expect(r.code).toBe(EXIT.usage);
    expect(r.stderr).toContain('no loop named "gret" (did you mean "greet"?)');
    expect(r.stderr).not.toContain('unknown command');
  });
});

describe('help and validate as a new user meets them', () => {
  it('`help nosuch` is an unknown command (exit 1), and help names where the docs are installed', async () => {
    const r = await runCliInProcess(['help', 'nosuch'], { cwd: root });
    expect(r.code).toBe(EXIT.usage);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error: unknown command "nosuch"\nfix: ll-loop help lists the commands: run, /);
    const near = await runCliInProcess(['help', 'statsu'], { cwd: root });
    expect(near.stderr).toContain('fix: did you mean ll-loop status?');
    const usage = await runCliInProcess(['run', '--help'], { cwd: root });
    const docs = join(import.meta.dirname, '..', '..', 'docs', 'cli.md');
    expect(usage.stdout).toContain(`Details: ${docs}\n`);
    expect((await runCliInProcess(['help'], { cwd: root })).stdout).toContain(docs);
  });

  it('validate names files relative to where it was started, and every load error has a fix', async () => {
    loop(
      'yes',
      'name: yes\ninitial: a\nstates:\n  a:\n    action: "true"\n    next: done\n  done:\n    terminal: yes\n',
    );
    mkdirSync(join(root, 'src'));
    const fromSub = await runCliInProcess(['validate', 'yes'], { cwd: join(root, 'src') });
    expect(fromSub.code).toBe(EXIT.usage);
    expect(fromSub.stderr).toBe(
      '../.loops/yes.yaml:8:5: error: state "done": states.done.terminal: Invalid input: expected boolean, received string (got "yes")\n' +
        '    fix: write terminal: true (YAML 1.2 reads yes as text; only true and false are booleans)\n' +
        '✗ ../.loops/yes.yaml: 1 error\n',
    );
    const ok = await runCliInProcess(['validate', 'greet'], { cwd: root });
    expect(ok.stdout).toMatch(/^✓ \.loops\/greet\.yaml is valid \(2 states/);
  });
});

describe('--context keys the loop does not use', () => {
  it('are refused, naming the key, the closest used key and all of them', async () => {
    const r = await runCliInProcess(['run', 'greet', '--context', 'moood=happy', '--dry-run'], { cwd: root });
    expect(r.code).toBe(EXIT.usage);
    expect(r.stderr).toContain(
      'error: --context "moood": loop "greet" does not use this key (did you mean "mood"?); it uses mood, who',
    );
    expect(r.stderr).toContain('--context-allow-unknown');
  });

  it('are passed on with --context-allow-unknown', async () => {
    const r = await runCliInProcess(
      ['run', 'greet', '--context', 'moood=happy', '--context', 'mood=ok', '--context-allow-unknown', '--dry-run'],
      { cwd: root },
    );
    expect(r.code, r.stderr).toBe(EXIT.ok);
    expect(r.stdout).toContain('"moood":"happy"');
  });

  it('a key only referenced (${context.X}) or declared is used; so is one a passthrough sub-loop uses', async () => {
    expect(
      (
        await runCliInProcess(['run', 'greet', '--context', 'mood=ok', '--context', 'who=me', '--dry-run'], {
          cwd: root,
        })
      ).code,
    ).toBe(EXIT.ok);
    loop(
      'child',
      'name: child\ninitial: a\nstates:\n  a:\n    action: "echo ${context.depth}"\n    next: done\n  done:\n    terminal: true\n',
    );
    loop(
      'parent',
      'name: parent\ninitial: sub\nstates:\n  sub:\n    loop: child\n    context_passthrough: true\n    on_yes: done\n    on_no: done\n  done:\n    terminal: true\n',
    );
    const r = await runCliInProcess(['run', 'parent', '--context', 'depth=2', '--dry-run'], { cwd: root });
    expect(r.code, r.stderr).toBe(EXIT.ok);
    const wrong = await runCliInProcess(['run', 'parent', '--context', 'dept=2', '--dry-run'], { cwd: root });
    expect(wrong.code).toBe(EXIT.usage);
    expect(wrong.stderr).toContain('(did you mean "depth"?)');
  });
});

describe('from a subdirectory', () => {
  it('validate, show and list find the project above; a path typed there is read from there', async () => {
    const sub = join(root, 'src', 'deep');
    mkdirSync(sub, { recursive: true });
    const listed = await runCliInProcess(['list'], { cwd: sub });
    expect(listed.code, listed.stderr).toBe(EXIT.ok);
    expect(listed.stdout).toMatch(/^greet\s/m);
    const validated = await runCliInProcess(['validate', 'greet'], { cwd: sub });
    expect(validated.code, validated.stderr).toBe(EXIT.ok);
    expect((await runCliInProcess(['show', 'greet'], { cwd: sub })).code).toBe(EXIT.ok);
    writeFileSync(join(sub, 'local.yaml'), GREET.replace('name: greet', 'name: local'));
    const local = await runCliInProcess(['validate', 'local.yaml'], { cwd: sub });
    expect(local.code, local.stderr).toBe(EXIT.ok);
    // Named as typed: relative to where the command was started.
    expect(local.stdout).toMatch(/^✓ local\.yaml is valid/);
    // Scope paths are the project's, whichever directory the command starts in.
    loop(
      'scoped',
      'name: scoped\ndescription: d\nscope: [src/]\ninitial: a\nstates:\n  a:\n    action: "true"\n    next: done\n  done:\n    terminal: true\n',
    );
    const shown = await runCliInProcess(['show', 'scoped', '--format', 'json'], { cwd: sub });
    expect(shown.code, shown.stderr).toBe(EXIT.ok);
    expect((JSON.parse(shown.stdout) as { scope: string[] }).scope).toEqual(['src']);
    // A bare word is a name even beside a file of that name: only paths are read from here.
    writeFileSync(join(sub, 'greet'), 'not a loop');
    expect((await runCliInProcess(['validate', 'greet'], { cwd: sub })).code).toBe(EXIT.ok);
    // `ll-loop <name>` from the subdirectory is the project's loop (its mood has no value: given here).
    const planned = await runCliInProcess(['greet', '--context', 'mood=ok', '--dry-run'], { cwd: sub });
    expect(planned.stdout, planned.stderr).toContain('Execution plan for greet');
  });
});

describe("a scheduled run's files", () => {
  it('are named without ":" and that name resolves to the run; files an earlier release named with ":" are still found', () => {
    const id = 'nightly-2026-11-24T03:00:00Z';
    expect(runFileStem(id)).toBe('nightly-2026-11-24T03-00-00Z');
    expect(eventsPath(root, id)).toBe(join(root, '.loops', '.running', 'nightly-2026-11-24T03-00-00Z.events.jsonl'));
    expect(scheduledRunId('nightly-2026-11-24T03-00-00Z')).toBe(id);
    expect(scheduledRunId('greet-20261124T033421')).toBeUndefined();
    mkdirSync(join(root, '.loops', '.running'));
    writeFileSync(join(root, '.loops', '.running', `${id}.state.json`), '{}');
    expect(statePath(root, id)).toBe(join(root, '.loops', '.running', `${id}.state.json`));
  });
});
