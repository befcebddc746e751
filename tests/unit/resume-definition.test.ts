/**
 * The definition `ll-loop resume` continues with: the loop file read again, the stopped run's
 * context kept (as literal values), `--context` on top; the run's own definition when the file
 * is gone; an invalid file refused.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { definitionForResume } from '../../runs/resume/resume-definition.js';
import type { LoopWorkflowInput } from '../../workflows/definitions.js';
import type { Diagnostic } from '../../fsm/diagnostics.js';
import { resolvedDef } from './helpers.js';

const LOOP = `name: fix
description: d
initial: check
states:
  check:
    action: "\${context.cmd}"
    on_yes: done
    on_no: check
  done:
    terminal: true
context:
  target: src
  cmd: "lint \${context.target}"
`;

function previous(context: Record<string, unknown>): LoopWorkflowInput {
  const raw = {
    name: 'fix',
    description: 'd',
    initial: 'check',
    states: { check: { action: '${context.cmd}', on_yes: 'done', on_no: 'check' }, done: { terminal: true } },
    context,
  };
  return { definition: resolvedDef(raw), options: { cwd: '/tmp' } };
}

function setup(text = LOOP): string {
  const file = join(mkdtempSync(join(tmpdir(), 'll-loop-resume-def-')), 'fix.yaml');
  writeFileSync(file, text);
  return file;
}

describe('definitionForResume', () => {
  it('re-reads the file (a fix is picked up) and keeps the run context, with --context on top', () => {
    const file = setup(LOOP.replace('on_no: check', 'on_no: done'));
    const r = definitionForResume({
      runId: 'fix-1',
      file,
      previous: previous({ target: 'lib', cmd: 'lint lib', extra: 'a $${b}' }),
      context: { target: 'app' },
    });
    expect(r.fromFile).toBe(true);
    expect(r.definition.states.check!.on_no).toBe('done');
    // The run's resolved values stay as they were (`${` included); --context replaces one value.
    expect(r.definition.context).toMatchObject({ target: 'app', cmd: 'lint lib', extra: 'a ${b}' });
  });

  it('applies --max-iterations', () => {
    const r = definitionForResume({
      runId: 'fix-1',
      file: setup(),
      previous: previous({}),
      context: {},
      maxIterations: 7,
    });
    expect(r.definition.max_iterations).toBe(7);
    expect(r.definition.context).toMatchObject({ target: 'src', cmd: 'lint src' });
  });

  it('falls back to the run’s own definition when the file is gone', () => {
    const r = definitionForResume({
      runId: 'fix-1',
      file: '/nonexistent/fix.yaml',
      previous: previous({ target: 'lib', cmd: 'lint lib' }),
      context: { cmd: 'lint ${context.target} --fix' },
    });
    expect(r.fromFile).toBe(false);
    expect(r.definition.context).toMatchObject({ target: 'lib', cmd: 'lint lib --fix' });
  });

  it('refuses a file that is no longer valid, and a run with neither file nor input', () => {
    const told: Diagnostic[] = [];
    expect(() =>
      definitionForResume({
        runId: 'fix-1',
        file: setup('name: fix\ninitial: nope\nstates: {}\n'),
        previous: undefined,
        context: {},
        onInvalid: (diagnostics) => told.push(...diagnostics),
      }),
    ).toThrow(/is not a valid loop any more; nothing was resumed/);
    expect(told.some((d) => d.severity === 'error')).toBe(true);
    expect(() => definitionForResume({ runId: 'fix-1', file: undefined, previous: undefined, context: {} })).toThrow(
      /its loop file \(none recorded\) is gone/,
    );
  });

  it("refuses a --context value a parameter's type does not take as the command line's, the file's or not", () => {
    const typed = LOOP.replace('context:\n', 'parameters:\n  tries: { type: integer, default: 3 }\ncontext:\n');
    const told: Diagnostic[] = [];
    const file = setup(typed);
    expect(() =>
      definitionForResume({
        runId: 'fix-1',
        file,
        previous: undefined,
        context: { tries: 'abc' },
        onInvalid: (diagnostics) => told.push(...diagnostics),
      }),
    ).toThrow(`the --context values are not valid for ${file}; nothing was resumed`);
    expect(told.filter((d) => d.severity === 'error').map((d) => [d.given, d.message])).toEqual([
      ['context', 'parameter "tries" of loop "fix": expected an integer, got "abc"'],
    ]);
    // The file is gone: the run's own definition declares the parameter.
    const gone = previous({ target: 'lib', cmd: 'lint lib' });
    gone.definition = { ...gone.definition, parameters: { tries: { type: 'integer', required: false, default: 3 } } };
    expect(() =>
      definitionForResume({ runId: 'fix-1', file: '/nonexistent/fix.yaml', previous: gone, context: { tries: 'abc' } }),
    ).toThrow('--context: parameter "tries" of loop "fix": expected an integer, got "abc"; nothing was resumed');
  });
});
