/**
 * A context value built from a parameter that has no default (`count_cmd: "git grep -c
 * ${context.pattern:shell}"` beside a required `pattern`), through the real loader: `validate` and
 * `show`, which are given no parameters, load the loop (the value resolves when a run gives the
 * parameter); a run without it is told to pass the parameter; one with it gets the value built.
 * A reference to a context value that is neither there nor a parameter is an error naming the
 * entry, never a crash. (The validate fuzz test found the crash: exit 5 on a built-in whose
 * parameter lost its default.)
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatDiagnostic } from '../../fsm/diagnostics.js';
import { loadLoopFile, type LoadOverrides } from '../../loader/load.js';

const loopWith = (reference: string) => `name: migrate
description: d
initial: count
parameters:
  pattern:
    type: string
    description: the old usage
context:
  count_cmd: "git grep -c -E \${context.${reference}:shell} || true"
states:
  count:
    action: "\${context.count_cmd}"
    next: done
  done: { terminal: true }
`;

function load(text: string, overrides: LoadOverrides) {
  const cwd = mkdtempSync(join(tmpdir(), 'll-loop-context-param-'));
  mkdirSync(join(cwd, '.loops'));
  const file = join(cwd, '.loops', 'migrate.yaml');
  writeFileSync(file, text);
  const loaded = loadLoopFile(file, overrides, cwd);
  return { loaded, errors: loaded.diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic) };
}

describe('a context value built from a parameter without a default', () => {
  it('loads for validate and show, left as written until a run gives the parameter', () => {
    const { loaded, errors } = load(loopWith('pattern'), {});
    expect(errors).toEqual([]);
    expect(loaded.definition?.context.count_cmd).toBe('git grep -c -E ${context.pattern:shell} || true');
  });

  it('a run without the parameter is told to pass it; one with it gets the value built', () => {
    const without = load(loopWith('pattern'), { requireParameters: true });
    expect(without.loaded.definition).toBeUndefined();
    expect(without.errors.join('\n')).toContain('pass --context pattern=VALUE');
    const given = load(loopWith('pattern'), { requireParameters: true, context: { pattern: 'old(' } });
    expect(given.errors).toEqual([]);
    expect(given.loaded.definition?.context.count_cmd).toBe("git grep -c -E 'old(' || true");
  });

  it('a reference to neither a context value nor a parameter is an error naming the entry', () => {
    const { loaded, errors } = load(loopWith('patern'), {});
    expect(loaded.definition).toBeUndefined();
    expect(errors.join('\n')).toMatch(/count_cmd references \$\{context\.patern:shell\}, which is not defined/);
  });
});
