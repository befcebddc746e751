/**
 * Loop files the YAML parser refuses are diagnostics with file, line and column (exit 1, valid
 * `--json`), never exit 5 or a stack trace; `list` lists a broken file as invalid and the others.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../support/cli.js';

const GOOD =
  'name: good\ndescription: fine\ninitial: a\nstates:\n  a:\n    action: "true"\n    next: done\n  done:\n    terminal: true\n';

const laughs = [
  'a: &a ["x","x","x","x","x","x","x","x","x"]',
  ...'bcdefg'.split('').map((k, i) => `${k}: &${k} [${Array(9).fill(`*${'abcdefg'[i]}`).join(',')}]`),
  'name: x',
  'initial: done',
  'states:',
  '  done: {terminal: true}',
  '',
].join('\n');

/** name → [file text, expected message, expected line (undefined: none), expected column]. */
const CASES: Record<string, [string, RegExp, number | undefined, number | undefined]> = {
  alias: ['name: alias\ninitial: *a\nstates:\n  done: {terminal: true}\n', /alias \*a refers to no anchor &a/, 2, 10],
  'late-anchor': [
    'name: x\ninitial: *d\nstates:\n  done: &d {terminal: true}\n',
    /alias \*d refers to no anchor/,
    2,
    10,
  ],
  duplicate: ['name: x\nname: y\ninitial: a\nstates:\n  a: {terminal: true}\n', /Map keys must be unique/, 2, 1],
  tabs: ['name: x\ninitial: a\nstates:\n\ta: {terminal: true}\n', /Tabs are not allowed/, 4, 1],
  list: ['- a\n- b\n', /must be a mapping .* but this is a list/, 1, 1],
  scalar: ['hello\n', /must be a mapping .* but this is a string/, 1, 1],
  multi: ['name: x\n---\nname: y\n', /more than one YAML document/, 2, 1],
  empty: ['', /this is an empty document/, undefined, undefined],
  laughs: [laughs, /aliases expand to more than 100 copies/, 2, undefined],
  garbage: ['\u0000\u0001\u00ff{[}: &&\n\t- *', /invalid YAML: Tabs are not allowed/, 2, 1],
};

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'll-yaml-'));
  mkdirSync(join(dir, '.loops'));
  writeFileSync(join(dir, '.loops', 'good.yaml'), GOOD);
  for (const [name, [text]] of Object.entries(CASES)) writeFileSync(join(dir, '.loops', `${name}.yaml`), text);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('YAML the parser refuses', () => {
  for (const [name, [, message, line, column]] of Object.entries(CASES)) {
    it(`${name}: a diagnostic naming the file${line ? ' and line' : ''}, exit 1`, async () => {
      const text = await runCliInProcess(['validate', name], { cwd: dir });
      expect(text.code, text.stderr).toBe(1);
      expect(text.stderr).not.toMatch(/^\s+at /m);
      const file = join(dir, '.loops', `${name}.yaml`);
      expect(text.stdout + text.stderr).toMatch(message);
      if (line !== undefined)
        expect(text.stdout + text.stderr).toContain(`${relative(dir, file)}:${line}:${column ?? ''}`);

      const json = await runCliInProcess(['validate', name, '--json'], { cwd: dir });
      expect(json.code).toBe(1);
      const parsed = JSON.parse(json.stdout) as {
        valid: boolean;
        file: string;
        diagnostics: Array<{ severity: string; message: string; file: string; line?: number; column?: number }>;
      };
      expect(parsed.valid).toBe(false);
      const first = parsed.diagnostics.find((d) => d.severity === 'error');
      expect(first?.message).toMatch(message);
      expect(first?.file).toBe(file);
      if (line !== undefined) expect(first?.line).toBe(line);
      if (column !== undefined) expect(first?.column).toBe(column);
    });
  }

  it('list skips the broken files with a warning each and lists the good one (exit 0)', async () => {
    const r = await runCliInProcess(['list'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^good\s+-\s+-\s+fine/m);
    expect(r.stdout).not.toMatch(/^(alias|laughs)\s/m);
    expect(r.stderr).toMatch(/^warning: skipped \S*alias\.yaml: .*alias \*a refers to no anchor/m);
    expect(r.stderr).toMatch(/^warning: skipped \S*laughs\.yaml: /m);
    const json = await runCliInProcess(['list', '--json'], { cwd: dir });
    const rows = JSON.parse(json.stdout) as Array<{ name: string; valid: boolean }>;
    expect(rows.find((l) => l.name === 'good')?.valid).toBe(true);
    expect(
      rows
        .filter((l) => !l.valid)
        .map((l) => l.name)
        .sort(),
    ).toEqual(Object.keys(CASES).sort());
  });
});
