/**
 * `with:` may set a child's context key (a key of its `context:`, or a `${context.key}` it reads)
 * that is not a declared parameter, as little-loops binds `with:` into the child's context. A key
 * the child never reads is still refused with a did-you-mean. Loops written here.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadLoopFile } from '../../loader/load.js';
import { formatDiagnostic } from '../../fsm/diagnostics.js';
import { childStart } from '../../fsm/run/subloop.js';

function errorsOf(files: Record<string, string>, name: string): string {
  const cwd = mkdtempSync(join(tmpdir(), 'll-loop-with-context-'));
  mkdirSync(join(cwd, '.loops'));
  for (const [file, text] of Object.entries(files)) writeFileSync(join(cwd, '.loops', `${file}.yaml`), text);
  return loadLoopFile(join(cwd, '.loops', `${name}.yaml`), {}, cwd)
    .diagnostics.filter((d) => d.severity === 'error')
    .map(formatDiagnostic)
    .join('\n');
}

const GATE =
  'name: gate\ndescription: d\ninitial: s\ncontext:\n  targets: ""\nstates:\n  s:\n    action: "echo ${context.targets} ${context.mode:-fast}"\n    next: done\n  done: { terminal: true }\n';
const WITH_PARAMS =
  'name: refine\ndescription: d\ninitial: s\nparameters:\n  input: { type: string, default: "" }\ncontext:\n  order: queue\nstates:\n  s:\n    action: "echo ${context.input} ${context.order}"\n    next: done\n  done: { terminal: true }\n';
const parent = (loop: string, withs: string) =>
  `name: parent\ndescription: d\ninitial: a\nstates:\n  a:\n    loop: ${loop}\n    with: ${withs}\n    next: done\n  done: { terminal: true }\n`;

describe('with: sets a context key the child has or reads', () => {
  it.each([
    ['a key of its context: (child without parameters)', 'gate', '{ targets: "a,b" }'],
    ['a ${context.key} it reads with a default', 'gate', '{ mode: slow }'],
    ['a key of its context: beside its parameters', 'refine', '{ input: X-1, order: next-action }'],
  ])('%s loads', (_label, loop, withs) => {
    expect(errorsOf({ gate: GATE, refine: WITH_PARAMS, parent: parent(loop, withs) }, 'parent')).toBe('');
  });

  it('a key the child never reads is refused, naming its parameters and context keys', () => {
    expect(errorsOf({ refine: WITH_PARAMS, parent: parent('refine', '{ ordr: x }') }, 'parent')).toMatch(
      /sub-loop "refine" has no parameter "ordr" \(did you mean "order"\?\)[\s\S]*bind one of its parameters or context keys: input, order/,
    );
  });

  it('at run time the value is set in the child context, and data stays data', () => {
    const child = loadChild(WITH_PARAMS);
    const start = childStart(child, {
      bindings: { values: { order: 'next-action', input: 'X' }, dataContext: ['order'] },
    });
    expect(start).toMatchObject({
      definition: { context: { order: 'next-action', input: 'X' } },
      dataContext: ['order'],
    });
  });
});

function loadChild(text: string) {
  const cwd = mkdtempSync(join(tmpdir(), 'll-loop-with-context-child-'));
  mkdirSync(join(cwd, '.loops'));
  writeFileSync(join(cwd, '.loops', 'refine.yaml'), text);
  return loadLoopFile(join(cwd, '.loops', 'refine.yaml'), {}, cwd).definition!;
}
