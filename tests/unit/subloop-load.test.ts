/**
 * Sub-loop problems found when the parent is loaded, before anything runs: unknown children,
 * recursion, `with:` against the child's parameters, captured values a parent reads, required
 * parameters of a direct run. Files in temporary `.loops/` directories, through the real loader.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadLoopFile } from '../../loader/load.js';
import { formatDiagnostic } from '../../fsm/diagnostics.js';

/** A project whose `.loops/` holds the given files (name → YAML). */
function withLoops(files: Record<string, string>): { cwd: string } {
  const cwd = mkdtempSync(join(tmpdir(), 'll-loop-subloop-load-'));
  mkdirSync(join(cwd, '.loops'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(cwd, '.loops', `${name}.yaml`), text);
  return { cwd };
}

const CHILD_PASS =
  'name: child-pass\ndescription: passes at once\ninitial: check\nstates:\n  check:\n    action: "true"\n    on_yes: done\n  done: { terminal: true }\n';

describe('sub-loop problems are reported before anything runs', () => {
  const errorsOf = (cwd: string, name: string) =>
    loadLoopFile(join(cwd, '.loops', `${name}.yaml`), {}, cwd)
      .diagnostics.filter((d) => d.severity === 'error')
      .map(formatDiagnostic)
      .join('\n');

  it('an unknown child names the state and lists the known loops', () => {
    const p = withLoops({
      'child-pass': CHILD_PASS,
      parent:
        'name: parent\ninitial: a\nstates:\n  a:\n    loop: child-pas\n    on_success: done\n  done: { terminal: true }\n',
    });
    expect(errorsOf(p.cwd, 'parent')).toMatch(
      /parent\.yaml:5:5: .*state "a".*no loop named "child-pas".*did you mean "child-pass"/,
    );
  });

  it('a loop that calls itself, directly or through another, is rejected with the chain', () => {
    const p = withLoops({
      a: 'name: a\ninitial: s\nstates:\n  s:\n    loop: b\n    next: done\n  done: { terminal: true }\n',
      b: 'name: b\ninitial: s\nstates:\n  s:\n    loop: a\n    next: done\n  done: { terminal: true }\n',
    });
    expect(errorsOf(p.cwd, 'a')).toContain('loop "a" runs itself: a → b → a; recursive sub-loops are rejected');
  });

  it('with: keys and literal values are checked against the child parameters', () => {
    const p = withLoops({
      child:
        'name: child\ninitial: s\nparameters:\n  n: { type: integer, required: true }\nstates:\n  s:\n    action: "echo ${context.n}"\n    next: done\n  done: { terminal: true }\n',
      parent:
        'name: parent\ninitial: a\nstates:\n  a:\n    loop: child\n    with: { m: 1, n: lots }\n    next: b\n  b:\n    loop: child\n    next: done\n  done: { terminal: true }\n',
    });
    const errors = errorsOf(p.cwd, 'parent');
    expect(errors).toContain('sub-loop "child" has no parameter "m"');
    expect(errors).toContain('parameter "n" of sub-loop "child": expected an integer, got "lots"');
    expect(errors).toMatch(/state "b": sub-loop "child" needs parameter "n"/);
    expect(errors).toContain('fix: add with: { n: <value> } to state "b"');
  });

  it('captured values a parent reads must be captured by it or returned by a passthrough child', () => {
    const child =
      'name: child\ninitial: s\nstates:\n  s:\n    action: "echo ${captured.seed.output:-0}"\n    capture: grown\n    next: done\n  done: { terminal: true }\n';
    const parent = (ref: string) =>
      `name: parent\ninitial: a\nstates:\n  a:\n    loop: child\n    context_passthrough: true\n    next: b\n  b:\n    action: "echo \${captured.${ref}.output}"\n    next: done\n  done: { terminal: true }\n`;
    expect(errorsOf(withLoops({ child, parent: parent('grown') }).cwd, 'parent')).toBe('');
    expect(errorsOf(withLoops({ child, parent: parent('grwn') }).cwd, 'parent')).toMatch(
      /parent\.yaml:9:5: .*state "b".*\$\{captured\.grwn\.output\} refers to "grwn", which no state captures \(did you mean "grown"\?\)/,
    );
    // Without a default, a child reading a value only its parent captures is an error of the child.
    const strictChild = child.replace('${captured.seed.output:-0}', '${captured.seed.output}');
    expect(errorsOf(withLoops({ child: strictChild, parent: parent('grown') }).cwd, 'child')).toContain(
      ':-default} if a parent loop passes it in',
    );
  });

  it('a direct run needs required parameters from --context, typed', () => {
    const p = withLoops({
      child:
        'name: child\ninitial: s\nparameters:\n  n: { type: integer, required: true }\nstates:\n  s:\n    action: "echo ${context.n}"\n    next: done\n  done: { terminal: true }\n',
    });
    const file = join(p.cwd, '.loops', 'child.yaml');
    const missing = loadLoopFile(file, { requireParameters: true }, p.cwd).diagnostics.filter(
      (d) => d.severity === 'error',
    );
    expect(missing.map((d) => [d.message, d.fix])).toEqual([
      ['loop "child" needs parameter "n"', 'pass --context n=3'],
    ]);
    expect(
      loadLoopFile(file, { requireParameters: true, context: { n: 'x' } }, p.cwd)
        .diagnostics.map(formatDiagnostic)
        .join('\n'),
    ).toContain('expected an integer, got "x"');
    expect(loadLoopFile(file, { requireParameters: true, context: { n: '4' } }, p.cwd).definition?.context.n).toBe(4);
  });
});
