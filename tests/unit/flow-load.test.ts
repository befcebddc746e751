/**
 * little-loops' `flow:` shorthand (fsm/definition/flow.ts): a list of states in order becomes
 * `states:`, with `state_defs:` bodies merged over it. Loops written here, through the real loader.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadLoopFile } from '../../loader/load.js';
import { formatDiagnostic } from '../../fsm/diagnostics.js';

function load(text: string) {
  const cwd = mkdtempSync(join(tmpdir(), 'll-loop-flow-'));
  mkdirSync(join(cwd, '.loops'));
  const file = join(cwd, '.loops', 'f.yaml');
  writeFileSync(file, text);
  const loaded = loadLoopFile(file, {}, cwd);
  return { ...loaded, shown: loaded.diagnostics.map(formatDiagnostic).join('\n') };
}

const FLOW = `name: f
description: a chain with one branch
initial: measure
flow:
  - measure
  - "check?report:fix"
  - fix
  - report
  - done
state_defs:
  measure:
    action: "echo 3"
    capture: n
  check:
    action: "test 3 -lt 5"
    evaluate: { type: exit_code }
  fix:
    action: "echo fixing"
    next: measure
  report:
    action: "echo report"
`;

describe('flow: becomes states:', () => {
  it('each entry goes next to the one after it, a branch routes yes/no, the last is terminal', () => {
    const { definition, shown } = load(FLOW);
    expect(shown).toBe('');
    expect(definition!.states).toMatchObject({
      measure: { action: 'echo 3', capture: 'n', next: 'check' },
      check: { action: 'test 3 -lt 5', on_yes: 'report', on_no: 'fix' },
      fix: { action: 'echo fixing', next: 'measure' },
      report: { action: 'echo report', next: 'done' },
      done: { terminal: true },
    });
    expect(definition!.states.check!.next).toBeUndefined();
    expect(Object.keys(definition!)).not.toContain('flow');
    expect(Object.keys(definition!)).not.toContain('state_defs');
  });

  it('a state a body makes terminal ends there, whatever the chain says', () => {
    const { definition } = load(
      'name: f\ndescription: d\ninitial: a\nflow: [a, failed, done]\nstate_defs:\n  a: { action: "false", on_error: failed }\n  failed: { terminal: true }\n',
    );
    expect(definition!.states.failed).toMatchObject({ terminal: true });
    expect(definition!.states.a).toMatchObject({ next: 'failed', on_error: 'failed' });
  });

  it.each([
    ['flow: a string', 'flow: measure\n', /flow: must be a non-empty list of states/],
    ['an empty flow', 'flow: []\n', /flow: must be a non-empty list of states/],
    [
      'a malformed branch',
      'flow:\n  - "a?b"\n  - done\n',
      /f\.yaml:5:5: error: flow: entry "a\?b" is not a state or a branch/,
    ],
    ['a branch without a no', 'flow:\n  - "a?b:"\n  - done\n', /flow: entry "a\?b:" is not a state or a branch/],
    ['a mapping entry', 'flow:\n  - { a: b }\n  - done\n', /flow: entry \{"a":"b"\} is not a state or a branch/],
  ])('%s is an error at its line', (_label, flow, message) => {
    const { definition, shown } = load(`name: f\ndescription: d\ninitial: a\n${flow}`);
    expect(definition).toBeUndefined();
    expect(shown).toMatch(message);
  });

  it("a generated state's problem points at its body under state_defs:", () => {
    const { definition, shown } = load(
      'name: f\ndescription: d\ninitial: a\nflow: [a, done]\nstate_defs:\n  a:\n    action: "true"\n    on_yes: nowhere\n',
    );
    expect(definition).toBeUndefined();
    expect(shown).toMatch(/f\.yaml:8:5: error: state "a": on_yes goes to "nowhere"/);
  });

  it('a body for a state not in flow: is a warning; states: beside flow: is replaced, with a warning', () => {
    const { definition, shown } = load(
      'name: f\ndescription: d\ninitial: a\nflow: [a, done]\nstate_defs:\n  a: { action: "true" }\n  b: { action: "true" }\nstates:\n  z: { terminal: true }\n',
    );
    expect(Object.keys(definition!.states)).toEqual(['a', 'done']);
    expect(shown).toMatch(/warning: state_defs: "b" is not in flow:/);
    expect(shown).toMatch(/warning: states: is replaced by the states flow: lists/);
  });
});
