/**
 * little-loops' `required_inputs` and `input_key` when a run starts: each listed key must be given
 * (or set under context:) and not empty, the error points at the list's entry, and both fields'
 * keys are context keys the loop uses. Files in a temporary `.loops/`, through the real loader.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatDiagnostic } from '../../fsm/diagnostics.js';
import { loadLoopFile, type LoadOverrides } from '../../loader/load.js';

const LOOP = `name: needs
description: d
initial: a
input_key: issue_id
required_inputs: [issue_id, mode]
context:
  mode: fast
states:
  a:
    action: "echo \${context.issue_id:shell}"
    next: done
  done: { terminal: true }
`;

function load(context: Record<string, string>, extra: Partial<LoadOverrides> = {}) {
  const cwd = mkdtempSync(join(tmpdir(), 'll-loop-required-inputs-'));
  mkdirSync(join(cwd, '.loops'));
  const file = join(cwd, '.loops', 'needs.yaml');
  writeFileSync(file, LOOP);
  const loaded = loadLoopFile(file, { context, requireParameters: true, refuseUnusedContext: true, ...extra }, cwd);
  return { loaded, errors: loaded.diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic) };
}

describe('required_inputs at start', () => {
  it('given keys start the run (context: supplies the rest)', () => {
    const { loaded, errors } = load({ issue_id: 'FEAT-1' });
    expect(errors).toEqual([]);
    expect(loaded.definition?.context).toMatchObject({ issue_id: 'FEAT-1', mode: 'fast' });
  });

  it('a missing key is an error at its entry, naming the loop, the key and the fix', () => {
    const { errors } = load({});
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/needs\.yaml:5:\d+: error: loop "needs" needs "issue_id" \(its input: ll-loop run needs/);
    expect(errors[0]).toMatch(/was not given\n    fix: pass --context issue_id=VALUE/);
  });

  it('an empty value is refused too', () => {
    const { errors } = load({ issue_id: 'X', mode: '  ' });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/needs "mode": it is in required_inputs and is empty/);
  });

  it('is not checked where parameters are not (validate, show)', () => {
    expect(load({}, { requireParameters: false }).errors).toEqual([]);
  });
});
