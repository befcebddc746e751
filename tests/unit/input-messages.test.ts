/**
 * Bad input a new user types, in process through `main`: each is refused naming what was given
 * (the path, the flag, the key, the line where the problem starts) with a fix that fits it — a
 * path that does not exist, `--context __proto__=…`, a negative or huge `--max-iterations`, a
 * quote left open in a loop file, a loop without `initial`.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { EXIT } from '../../errors/exit-codes.js';
import { runCliInProcess } from '../support/cli.js';

let root: string;

function loop(name: string, body: string): void {
  writeFileSync(join(root, '.loops', `${name}.yaml`), body);
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'll-loop-input-'));
  mkdirSync(join(root, '.loops'));
  loop(
    'greet',
    'name: greet\ninitial: hello\nstates:\n  hello:\n    action: "echo hi"\n    next: done\n  done:\n    terminal: true\n',
  );
});

describe('bad input is refused with the thing given and a fix that fits', () => {
  it('a path that does not exist is said to be missing, not a loop name to create', async () => {
    const r = await runCliInProcess(['validate', './nope.yaml'], { cwd: root });
    expect(r.code).toBe(EXIT.usage);
    expect(r.stderr).toContain(
      `error: no loop file at ./nope.yaml (${join(root, 'nope.yaml')} does not exist); loops in .loops/: greet`,
    );
    expect(r.stderr).toContain('fix: check the path, or give a loop by its name (ll-loop list shows them)\n');
    expect(r.stderr).not.toContain('.yaml.yaml');
    // A name is still offered the file to create.
    const name = await runCliInProcess(['validate', 'nope'], { cwd: root });
    expect(name.stderr).toContain('fix: create .loops/nope.yaml or pass a path to a loop file');
  });

  it('--context __proto__=… is refused by name, as constructor=… is', async () => {
    const proto = await runCliInProcess(['run', 'greet', '--dry-run', '--context', '__proto__=1'], { cwd: root });
    expect(proto.code).toBe(EXIT.usage);
    expect(proto.stderr).toBe(
      'error: --context "__proto__=1": "__proto__" cannot be a context key (JavaScript reserves the name)\nfix: give the value another key\n',
    );
    const allowed = await runCliInProcess(
      ['run', 'greet', '--dry-run', '--context-allow-unknown', '--context', '__proto__=1'],
      { cwd: root },
    );
    expect(allowed.code).toBe(EXIT.usage);
    const ctor = await runCliInProcess(['run', 'greet', '--dry-run', '--context', 'constructor=1'], { cwd: root });
    expect(ctor.code).toBe(EXIT.usage);
    expect(ctor.stderr).toContain('error: --context "constructor": loop "greet" does not use this key');
  });

  it('--context-file __proto__=… is refused against that flag, without the file’s contents', async () => {
    writeFileSync(join(root, 'secret.txt'), 'TOKEN=s3cr3t\n');
    const r = await runCliInProcess(['run', 'greet', '--dry-run', '--context-file', '__proto__=secret.txt'], {
      cwd: root,
    });
    expect(r.code).toBe(EXIT.usage);
    expect(r.stderr).toBe(
      'error: --context-file __proto__=secret.txt: "__proto__" cannot be a context key (JavaScript reserves the name)\nfix: give the value another key\n',
    );
    expect(r.stderr).not.toContain('s3cr3t');
  });

  it('--max-iterations: a negative or huge value is refused against the flag', async () => {
    for (const command of ['run', 'resume'])
      for (const value of ['-1', '99999999999999999999', '2.5', '1e3']) {
        const r = await runCliInProcess([command, 'greet', '--max-iterations', value], { cwd: root });
        expect(r.code, `${command} ${value}`).toBe(EXIT.usage);
        expect(r.stderr, `${command} ${value}`).toBe(
          `error: --max-iterations must be a whole number from 1 to 9007199254740991, got "${value}"\nfix: e.g. --max-iterations 50\n`,
        );
      }
    const ok = await runCliInProcess(['run', 'greet', '--dry-run', '--max-iterations', '3'], { cwd: root });
    expect(ok.code, ok.stderr).toBe(EXIT.ok);
    expect(ok.stdout).toContain('(max_iterations 3)');
  });

  it('a quote left open is reported where it opens, not at the end of the file', async () => {
    loop(
      'q',
      'name: q\ninitial: a\nstates:\n  a:\n    action: "echo hi\n    next: done\n  done:\n    terminal: true\n  x:\n    terminal: true\n',
    );
    const r = await runCliInProcess(['validate', 'q'], { cwd: root });
    expect(r.code).not.toBe(EXIT.ok);
    expect(r.stdout + r.stderr).toContain(
      '.loops/q.yaml:5:13: error: invalid YAML: the quote opened here is never closed ("echo hi); the parser read on to the end of the file\n    fix: close it with " where the value ends\n',
    );
  });

  it('a loop without initial is offered its first state that is not terminal', async () => {
    loop('ni', 'name: ni\nstates:\n  done:\n    terminal: true\n  start:\n    action: "echo hi"\n    next: done\n');
    const r = await runCliInProcess(['validate', 'ni'], { cwd: root });
    expect(r.code).not.toBe(EXIT.ok);
    expect(r.stdout + r.stderr).toContain(
      'error: missing required field "initial"\n    fix: add initial: start to the loop (the state a run starts in; its states: done, start)\n',
    );
  });

  it('commands: [{command: …}] is offered cmd:, and a state with a list of commands what the format has for it', async () => {
    loop(
      'c',
      'name: c\ninitial: a\ncommands:\n  - command: npm test\nstates:\n  a:\n    action: "echo hi"\n    next: done\n  done:\n    terminal: true\n',
    );
    const top = await runCliInProcess(['validate', 'c'], { cwd: root });
    expect(top.stdout + top.stderr).toContain(
      'error: unknown field "command" (did you mean "cmd"?)\n    fix: rename it "cmd"; commands: only lists command lines ll-loop show prints under "How to run"',
    );
    expect(top.stdout + top.stderr).not.toContain('comment');
    loop(
      'c2',
      'name: c2\ninitial: a\nstates:\n  a:\n    commands:\n      - npm ci\n      - npm test\n    next: done\n  done:\n    terminal: true\n',
    );
    const state = await runCliInProcess(['validate', 'c2'], { cwd: root });
    expect(state.stdout + state.stderr).toContain(
      'unknown state field "commands"\n    fix: a state runs one action: chain the commands in it (action: "npm ci && npm test")',
    );
    expect(state.stdout + state.stderr).toContain('a parallel: state runs several loops side by side');
  });
});
