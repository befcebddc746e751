/**
 * A loop's version (loader/loop-version.ts): the same for the same loop whatever its key order
 * or its run's context values, and new when an imported fragment changes.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { LoopDefinition } from '../../fsm/schema.js';
import { loadLoop } from '../../loader/load.js';
import { canonicalJson, loopVersion } from '../../loader/loop-version.js';

const dir = mkdtempSync(join(tmpdir(), 'll-loop-version-'));
mkdirSync(join(dir, '.loops', 'lib'), { recursive: true });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function library(action: string): void {
  writeFileSync(
    join(dir, '.loops', 'lib', 'checks.yaml'),
    `fragments:\n  check:\n    action: "${action}"\n    on_yes: done\n    on_no: done\n`,
  );
}

function versionOf(context: Record<string, string> = {}): string {
  const loaded = loadLoop('versioned', dir, { context });
  expect(loaded.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return loopVersion(loaded.definition!);
}

writeFileSync(
  join(dir, '.loops', 'versioned.yaml'),
  `name: versioned
import: [lib/checks.yaml]
context:
  target: src
initial: check
states:
  check:
    fragment: check
  done:
    terminal: true
`,
);

describe('loopVersion', () => {
  it('is 12 hex digits, the same whatever the key order at any depth', () => {
    const a = { name: 'x', initial: 's', states: { s: { terminal: true, action: 'a' } } };
    const b = { states: { s: { action: 'a', terminal: true } }, initial: 's', name: 'x' };
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    const version = loopVersion(a as unknown as LoopDefinition);
    expect(version).toMatch(/^[0-9a-f]{12}$/);
    expect(loopVersion(b as unknown as LoopDefinition)).toBe(version);
    expect(loopVersion({ ...a, initial: 't' } as unknown as LoopDefinition)).not.toBe(version);
  });

  it("leaves out the run's context values", () => {
    library('make check');
    expect(versionOf({ target: 'lib' })).toBe(versionOf());
  });

  it('changes when an imported fragment changes, and not when the file is only loaded again', () => {
    library('make check');
    const before = versionOf();
    expect(versionOf()).toBe(before);
    library('make test');
    expect(versionOf()).not.toBe(before);
  });
});
