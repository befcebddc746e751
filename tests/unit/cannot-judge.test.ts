/**
 * `cannot_judge`: a state whose judge may abstain asks a schema that lists the verdict, routes it
 * where the loop says, and warns at validate when nothing routes it; a state that does not opt in
 * asks exactly the schema it always did.
 */
import { describe, expect, it } from 'vitest';
import { mayAbstain } from '../../fsm/cannot-judge.js';
import { validateLoop } from '../../fsm/definition/validate.js';
import { answerCheckSchema, DEFAULT_LLM_SCHEMA, withCannotJudge } from '../../fsm/llm-schema.js';
import type { StateConfig } from '../../fsm/schema.js';
import { stateVerdicts } from '../../fsm/verdicts.js';
import { def, drive, eventsNamed, loop } from './helpers.js';

const judged = { action: '/ll:review', on_yes: 'done', on_no: 'fix' };
const fix = { fix: { action: 'make fix', next: 'done' } };

function verdictsOf(state: Record<string, unknown>): readonly string[] | undefined {
  const d = def(loop({ a: state, ...fix }));
  return stateVerdicts(d, d.states.a!)?.verdicts;
}

describe('which states let their judge abstain', () => {
  it.each([
    ['nothing said', {}, false],
    ['cannot_judge: true', { cannot_judge: true }, true],
    ['cannot_judge: false', { cannot_judge: false }, false],
    ['cannot_judge: false beats a route', { cannot_judge: false, on_cannot_judge: 'fix' }, false],
    ['on_cannot_judge', { on_cannot_judge: 'fix' }, true],
    ['route: cannot_judge', { route: { yes: 'done', cannot_judge: 'fix', _: 'fix' } }, true],
    ['route: with only a default', { route: { yes: 'done', _: 'fix' } }, false],
  ])('%s → %s', (_label, fields, expected) => {
    expect(mayAbstain({ ...judged, ...fields } as unknown as StateConfig)).toBe(expected);
  });
});

describe("the judge's schema", () => {
  it('gains cannot_judge in its verdict enum and description', () => {
    const schema = withCannotJudge(DEFAULT_LLM_SCHEMA) as {
      properties: { verdict: { enum: string[]; description: string } };
    };
    expect(schema.properties.verdict.enum).toEqual(['yes', 'no', 'blocked', 'partial', 'cannot_judge']);
    expect(schema.properties.verdict.description).toMatch(/- cannot_judge: /);
    // The default is left alone.
    expect((DEFAULT_LLM_SCHEMA.properties as { verdict: { enum: string[] } }).verdict.enum).not.toContain(
      'cannot_judge',
    );
  });

  it.each([
    ['a schema without a verdict enum', { type: 'object', properties: { verdict: { type: 'string' } } }],
    ['a schema that lists it already', { type: 'object', properties: { verdict: { enum: ['ok', 'cannot_judge'] } } }],
  ])('leaves %s as it is', (_label, schema) => {
    expect(withCannotJudge(schema)).toBe(schema);
  });

  it('the abstaining default schema is checked as leniently as the default (only verdict required)', () => {
    expect(answerCheckSchema(withCannotJudge(DEFAULT_LLM_SCHEMA)).required).toEqual(['verdict']);
  });

  it.each([
    ['without the field', {}, DEFAULT_LLM_SCHEMA],
    ['with on_cannot_judge', { on_cannot_judge: 'fix' }, withCannotJudge(DEFAULT_LLM_SCHEMA)],
  ])('a state %s asks the schema it should', (_label, fields, schema) => {
    const run = drive(def(loop({ a: { ...judged, ...fields }, ...fix })), { llm: { a: ['yes'] } });
    const call = run.commands.find((c) => c.type === 'evaluate_llm');
    expect(call?.type === 'evaluate_llm' ? call.input.schema : undefined).toEqual(schema);
  });

  it("a loop's own schema gains the verdict too", () => {
    const own = {
      type: 'object',
      properties: { verdict: { type: 'string', enum: ['pass', 'fail'] } },
      required: ['verdict'],
    };
    const d = def(
      loop({
        a: {
          action: '/ll:review',
          evaluate: { type: 'llm_structured', schema: own },
          cannot_judge: true,
          on_pass: 'done',
          on_fail: 'fix',
          on_cannot_judge: 'fix',
        },
        ...fix,
      }),
    );
    expect(stateVerdicts(d, d.states.a!)?.verdicts).toEqual(['pass', 'fail', 'cannot_judge']);
  });
});

describe('routing an abstention', () => {
  it('follows on_cannot_judge', () => {
    const run = drive(
      def(loop({ a: { ...judged, on_cannot_judge: 'ask' }, ask: { action: 'echo ask', next: 'done' }, ...fix })),
      {
        llm: { a: ['cannot_judge'] },
      },
    );
    expect(run.entered).toEqual(['a', 'ask', 'done']);
    expect(eventsNamed(run, 'route')[0]).toMatchObject({ from: 'a', to: 'ask', verdict: 'cannot_judge' });
  });

  it('follows route: cannot_judge', () => {
    const run = drive(
      def(
        loop({
          a: { action: '/ll:review', route: { yes: 'done', no: 'fix', cannot_judge: 'ask' } },
          ask: { action: 'echo ask', next: 'done' },
          ...fix,
        }),
      ),
      { llm: { a: ['cannot_judge'] } },
    );
    expect(run.entered).toEqual(['a', 'ask', 'done']);
  });

  it('without a route, ends the run with an error that names the fix', () => {
    const run = drive(def(loop({ a: { ...judged, cannot_judge: true }, ...fix })), { llm: { a: ['cannot_judge'] } });
    expect(run.result?.terminated_by).toBe('error');
    expect(run.result?.error).toMatch(/verdict "cannot_judge".*add on_cannot_judge: <state>/);
  });

  it('validate warns when a state lets its judge abstain but routes the verdict nowhere', () => {
    const result = validateLoop(loop({ a: { ...judged, cannot_judge: true }, ...fix }));
    const warnings = result.diagnostics.filter((d) => d.severity === 'warning' && /cannot_judge/.test(d.message));
    expect(warnings.map((w) => w.message)).toEqual([
      expect.stringMatching(/can answer .*"cannot_judge", which no route handles/),
    ]);
    expect(verdictsOf({ ...judged, on_cannot_judge: 'fix' })).toEqual([
      'yes',
      'no',
      'blocked',
      'partial',
      'cannot_judge',
    ]);
    expect(verdictsOf(judged)).toEqual(['yes', 'no', 'blocked', 'partial']);
  });
});
