/**
 * The hint after a built-in's failed run: the project's own command for a parameter the run left
 * at the built-in's default (what `ll-loop init` would set), and nothing where there is none.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { initHintAfterRun } from '../../client/init/run-hint.js';

function project(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'll-run-hint-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

const PYTEST = { 'pyproject.toml': '[project]\nname = "x"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n' };

describe('initHintAfterRun', () => {
  it("names the project's test command and the command line that uses it", () => {
    const hint = initHintAfterRun(project(PYTEST), 'test-until-pass', []);
    expect(hint).toContain('test_cmd is `pytest -q`, not `npm test`');
    expect(hint).toContain('pyproject.toml');
    expect(hint).toContain("ll-loop run test-until-pass --context test_cmd='pytest -q'");
    expect(hint).toContain('ll-loop init');
  });

  it('says nothing when the parameter was given on the command line', () => {
    expect(initHintAfterRun(project(PYTEST), 'test-until-pass', ['test_cmd=make test'])).toBeUndefined();
  });

  it("says nothing when the project's command is the default", () => {
    const dir = project({ 'package.json': JSON.stringify({ scripts: { test: 'vitest run' } }) });
    expect(initHintAfterRun(dir, 'test-until-pass', [])).toBeUndefined();
  });

  it('says nothing for a project loop of that name, a path, or a loop init proposes nothing for', () => {
    const own = project({ ...PYTEST, '.loops/test-until-pass.yaml': 'name: test-until-pass\n' });
    expect(initHintAfterRun(own, 'test-until-pass', [])).toBeUndefined();
    expect(initHintAfterRun(project(PYTEST), './loops/test-until-pass.yaml', [])).toBeUndefined();
    expect(initHintAfterRun(project(PYTEST), 'fix-bug', [])).toBeUndefined();
    expect(initHintAfterRun(project({}), 'test-until-pass', [])).toBeUndefined();
  });
});
