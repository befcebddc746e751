/**
 * `ll-loop list --visibility V`: little-loops' audience field. Public loops (and loops without the
 * field) are listed by default; `internal`, `example` and `all` ask for the others; anything else
 * is a usage error naming the choices.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../client/exit-codes.js';
import { runCliInProcess } from '../support/cli.js';

function projectWithLoops(): string {
  const cwd = mkdtempSync(join(tmpdir(), 'll-loop-visibility-'));
  mkdirSync(join(cwd, '.loops'));
  const loop = (name: string, visibility?: string) =>
    writeFileSync(
      join(cwd, '.loops', `${name}.yaml`),
      `name: ${name}\ndescription: d\n${visibility ? `visibility: ${visibility}\n` : ''}initial: a\nstates:\n  a:\n    terminal: true\n`,
    );
  loop('plain');
  loop('shown', 'public');
  loop('helper', 'internal');
  loop('demo', 'example');
  return cwd;
}

async function names(argv: string[], cwd: string): Promise<string[]> {
  const r = await runCliInProcess([...argv, '--json'], { cwd });
  expect(r.code, r.stderr).toBe(EXIT.ok);
  return (JSON.parse(r.stdout) as Array<{ name: string }>).map((l) => l.name).sort();
}

describe('ll-loop list --visibility', () => {
  it('lists public loops by default, and the others when asked', async () => {
    const cwd = projectWithLoops();
    expect(await names(['list'], cwd)).toEqual(['plain', 'shown']);
    expect(await names(['list', '--visibility', 'public'], cwd)).toEqual(['plain', 'shown']);
    expect(await names(['list', '--visibility', 'internal'], cwd)).toEqual(['helper']);
    expect(await names(['list', '--visibility', 'example'], cwd)).toEqual(['demo']);
    expect(await names(['list', '--visibility', 'all'], cwd)).toEqual(['demo', 'helper', 'plain', 'shown']);
    const table = await runCliInProcess(['list'], { cwd });
    expect(table.stdout).not.toContain('helper');
  });

  it('says what it takes when given something else', async () => {
    const r = await runCliInProcess(['list', '--visibility', 'hidden'], { cwd: projectWithLoops() });
    expect(r.code).toBe(EXIT.usage);
    expect(r.stderr).toMatch(/--visibility "hidden": use one of public, internal, example or all/);
  });

  it('filters loops, not runs', async () => {
    const r = await runCliInProcess(['list', '--running', '--visibility', 'all'], { cwd: projectWithLoops() });
    expect(r.code).toBe(EXIT.usage);
    expect(r.stderr).toMatch(/--visibility filter the loops in \.loops\//);
  });
});
