/**
 * validate warns of a `${captured.x}` a run can read before any state captured `x`
 * (fsm/definition/capture-order.ts): never captured first, or captured on some paths only.
 */
import { describe, expect, it } from 'vitest';
import { validateLoop } from '../../fsm/definition/validate.js';

function captureWarnings(states: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const r = validateLoop({
    name: 'c',
    description: 'c',
    initial: Object.keys(states)[0],
    states: { ...states, done: { terminal: true } },
    ...extra,
  });
  expect(r.definition, JSON.stringify(r.diagnostics)).toBeDefined();
  return r.diagnostics
    .filter((d) => d.severity === 'warning' && d.message.includes('captured'))
    .map((d) => ({ path: d.path.join('.'), message: d.message, fix: d.fix }));
}

const measure = { action: 'echo 3', capture: 'count', next: 'report' };

describe('a capture read before it is made', () => {
  it('never captured first: it fails every time, and the warning says so at the field', () => {
    expect(
      captureWarnings({
        report: { action: 'echo ${captured.count.output}', next: 'measure' },
        measure: { ...measure, next: 'done' },
      }),
    ).toEqual([
      {
        path: 'states.report.action',
        message:
          '${captured.count.output} is read before any state captures "count": no path reaches state "report" after "measure", so it fails with "undefined variable" every time it runs',
        fix: 'route to "measure" before "report", or write ${captured.count.output:-default} for a value until then',
      },
    ]);
  });

  it('captured on one branch only: the warning names the shortest path that bypasses the capture', () => {
    const [w] = captureWarnings({
      check: { action: 'test -f x', on_yes: 'measure', on_no: 'report' },
      measure,
      report: { action: 'echo ${captured.count.output}', next: 'done' },
    });
    expect(w?.message).toBe(
      '${captured.count.output} may be read before "count" is captured: the path check → report reaches state "report" without "measure", and the state then fails with "undefined variable"',
    );
    expect(w?.fix).toContain('capture_reachability_ok: true says so');
  });

  it('a state reading its own capture in its action: the run starts there, before the capture', () => {
    const [w] = captureWarnings({
      measure: { action: 'echo ${captured.count.output}', capture: 'count', on_yes: 'done', on_no: 'measure' },
    });
    expect(w?.message).toMatch(/may be read before "count" is captured: the run starts in state "measure" without/);
  });

  it('a maintain loop whose capture comes after the read: the first cycle bypasses it', () => {
    const [w] = captureWarnings(
      { report: { action: 'echo ${captured.count.output}', next: 'measure' }, measure: { ...measure, next: 'done' } },
      { maintain: true },
    );
    expect(w?.message).toMatch(/may be read before "count" is captured: the run starts in state "report"/);
  });

  it.each<[string, Record<string, unknown>, Record<string, unknown>?]>([
    [
      'captured on every path (two capturing states together)',
      {
        check: { action: 'test -f x', on_yes: 'measure', on_no: 'other' },
        measure,
        other: { action: 'echo 0', capture: 'count', next: 'report' },
        report: { action: 'echo ${captured.count.output}', next: 'done' },
      },
    ],
    [
      'read in its own evaluate and routes, after its action captured it',
      {
        measure: {
          action: 'echo 3',
          capture: 'count',
          evaluate: { type: 'output_numeric', source: '${captured.count.output}', operator: 'eq', target: 0 },
          on_yes: 'done',
          on_no: 'done',
        },
      },
    ],
    [
      'a reference with a default',
      {
        report: { action: 'echo ${captured.count.output:-none}', next: 'measure' },
        measure: { ...measure, next: 'done' },
      },
    ],
    [
      'capture_reachability_ok: true (the author checked the path)',
      { report: { action: 'echo ${captured.count.output}', next: 'measure' }, measure: { ...measure, next: 'done' } },
      { capture_reachability_ok: true },
    ],
  ])('no warning: %s', (_, states, extra) => {
    expect(captureWarnings(states, extra)).toEqual([]);
  });
});

it('capture_reachability_ok is read here, so validate does not note it as unread', () => {
  const r = validateLoop({
    name: 'c',
    description: 'c',
    initial: 'done',
    capture_reachability_ok: true,
    states: { done: { terminal: true } },
  });
  expect(r.diagnostics.filter((d) => d.message.includes('capture_reachability_ok'))).toEqual([]);
});

describe("a captured value's field", () => {
  it('a misspelt field of an action capture is warned with the near name and the fix', () => {
    const r = validateLoop({
      name: 'c',
      description: 'c',
      initial: 'count',
      states: {
        count: { action: 'echo 3', capture: 'n', next: 'check' },
        check: {
          evaluate: { type: 'output_numeric', source: '${captured.n.outptu}', operator: 'ge', target: 3 },
          on_yes: 'done',
          on_no: 'done',
        },
        show: { action: 'echo ${captured.n.json.items.0} ${captured.n.exit_code} ${captured.n.oops:-x}', next: 'done' },
        done: { terminal: true },
      },
    });
    const fields = r.diagnostics.filter((d) => d.message.includes('has no field'));
    expect(fields.map((d) => [d.path.join('.'), d.message, d.fix])).toEqual([
      [
        'states.check.evaluate.source',
        '${captured.n.outptu}: a capture has no field "outptu" (did you mean "output"?); it has output, stderr, exit_code, duration_ms, json, so this is undefined when the state runs',
        'write ${captured.n.output}',
      ],
    ]);
  });

  it("a human state's answer and a join have fields of their own: not checked", () => {
    const r = validateLoop({
      name: 'c',
      description: 'c',
      initial: 'ask',
      states: {
        ask: { action_type: 'human', ask: 'approval', prompt: 'ok?', on_yes: 'show', on_no: 'done' },
        show: { action: 'echo ${captured.ask.answer} ${captured.ask.by}', next: 'done' },
        done: { terminal: true },
      },
    });
    expect(r.definition, JSON.stringify(r.diagnostics)).toBeDefined();
    expect(r.diagnostics.filter((d) => d.message.includes('has no field'))).toEqual([]);
  });
});
