/**
 * `scope:` when a loop is loaded: paths outside the checkout are errors pointing at the entry's
 * file, line and column, with a fix; absolute paths inside it become relative; the definition
 * carries the normalised paths. Files in a temporary `.loops/`, through the real loader.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatDiagnostic } from '../../fsm/diagnostics.js';
import { loadLoopFile } from '../../loader/load.js';

function load(scopeYaml: string) {
  const cwd = mkdtempSync(join(tmpdir(), 'll-loop-scope-load-'));
  mkdirSync(join(cwd, '.loops'));
  const file = join(cwd, '.loops', 'scoped.yaml');
  writeFileSync(
    file,
    `name: scoped\ninitial: a\n${scopeYaml}states:\n  a:\n    action: "true"\n    next: done\n  done: { terminal: true }\n`,
  );
  const loaded = loadLoopFile(file, {}, cwd);
  return { cwd, loaded, errors: loaded.diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic) };
}

describe('scope: in a loop file', () => {
  it('normalises relative and absolute paths inside the checkout', () => {
    const cwd = mkdtempSync(join(tmpdir(), 'll-loop-scope-load-'));
    mkdirSync(join(cwd, '.loops'));
    const file = join(cwd, '.loops', 'scoped.yaml');
    writeFileSync(
      file,
      `name: scoped\ninitial: a\nscope:\n  - "src/api/"\n  - "${cwd}/tests/api"\n  - ./src/api\nstates:\n  a:\n    action: "true"\n    next: done\n  done: { terminal: true }\n`,
    );
    const loaded = loadLoopFile(file, {}, cwd);
    expect(loaded.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(loaded.definition?.scope).toEqual(['src/api', 'tests/api']);
  });

  it('no scope stays absent (the whole checkout is claimed when the run starts)', () => {
    expect(load('').loaded.definition?.scope).toBeUndefined();
  });

  it('a path that climbs out of the checkout is an error at its line, with a fix', () => {
    const { errors } = load('scope:\n  - src\n  - ../other\n');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      /scoped\.yaml:5:5: error: scope "\.\.\/other" climbs out of the checkout .*\n {4}fix: use a path inside the checkout/,
    );
  });

  it('an absolute path elsewhere is an error too', () => {
    const { errors, loaded } = load('scope: ["/etc/passwd"]\n');
    expect(loaded.definition).toBeUndefined();
    expect(errors[0]).toMatch(/scoped\.yaml:3:9: error: scope "\/etc\/passwd" is outside the checkout/);
  });
});
