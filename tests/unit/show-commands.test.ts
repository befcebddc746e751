/**
 * A loop's `commands:` (seed 001: "Override Commands section in ll-loop show output") through the
 * CLI's own `main`, in process: it replaces the generated "How to run" commands in the text and
 * is in `--json`; a `from:` child inherits it and `commands: null` brings the generated ones back;
 * a malformed entry is an `error:` at its line with a `fix:`.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../errors/exit-codes.js';
import { runCliInProcess } from '../support/cli.js';

const LOOP = `name: mine
description: Builds it.
initial: build
commands:
  - cmd: ll-loop run mine --context target=prod
    comment: the real thing
  - cmd: make ci
states:
  build: { action: "true", next: done }
  done: { terminal: true }
`;

function project(files: Record<string, string>): string {
  const cwd = mkdtempSync(join(tmpdir(), 'll-show-commands-'));
  mkdirSync(join(cwd, '.loops'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(cwd, '.loops', `${name}.yaml`), text);
  return cwd;
}

const howToRun = (stdout: string) => stdout.slice(stdout.indexOf('How to run'));

describe('commands: in ll-loop show', () => {
  it('replaces the generated commands, each cmd with its comment; --json carries the list', async () => {
    const cwd = project({ mine: LOOP });
    const text = await runCliInProcess(['show', 'mine'], { cwd });
    expect(text.code).toBe(EXIT.ok);
    expect(howToRun(text.stdout)).toBe(
      'How to run\n  ll-loop run mine --context target=prod  # the real thing\n  make ci\n',
    );
    const json = await runCliInProcess(['show', 'mine', '--json'], { cwd });
    expect(JSON.parse(json.stdout)).toMatchObject({
      commands: [{ cmd: 'll-loop run mine --context target=prod', comment: 'the real thing' }, { cmd: 'make ci' }],
    });
  });

  it('a from: child inherits the list; commands: null in the child brings back the generated commands', async () => {
    const cwd = project({
      mine: LOOP,
      kid: 'name: kid\ndescription: Inherits.\nfrom: mine\n',
      own: 'name: own\ndescription: Its own commands.\nfrom: mine\ncommands: null\n',
    });
    expect(howToRun((await runCliInProcess(['show', 'kid'], { cwd })).stdout)).toContain('make ci');
    const own = howToRun((await runCliInProcess(['show', 'own'], { cwd })).stdout);
    expect(own).not.toContain('make ci');
    expect(own).toMatch(/ll-loop run own +# run it\n/);
  });

  it('a malformed entry is an error at its line with a fix, for validate and show alike', async () => {
    const bad = LOOP.replace('  - cmd: make ci\n', '  - make ci\n  - cmd: x\n    coment: typo\n');
    const cwd = project({ bad });
    for (const argv of [
      ['validate', 'bad'],
      ['show', 'bad'],
    ]) {
      const r = await runCliInProcess(argv, { cwd });
      expect(r.code).toBe(EXIT.usage);
      const out = r.stdout + r.stderr;
      expect(out).toMatch(
        /bad\.yaml:7:5: error: commands\.1: Invalid input: expected object, received string \(got "make ci"\)\n\s+fix: write commands: as a list of entries like - cmd: /,
      );
      expect(out).toMatch(
        /bad\.yaml:9:5: error: unknown field "coment" \(did you mean "comment"\?\)\n\s+fix: rename it "comment"/,
      );
    }
  });
});

describe('history --event', () => {
  it('an event name no event has is a usage error with the near name, before any server is asked', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'll-loop-history-event-'));
    const r = await runCliInProcess(['history', 'x', 'x-1', '--event', 'action_complet'], { cwd });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error: --event action_complet: no event is named so (did you mean "action_complete"?)');
  });
});
