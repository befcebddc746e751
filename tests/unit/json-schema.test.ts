/**
 * Answers checked against their JSON Schema (issue 13 §4): the checker's wording, and a `schema:`
 * that is not a JSON Schema refused at load with file, line and a fix.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LLM_SCHEMA, answerCheckSchema } from '../../fsm/llm-schema.js';
import { compileJsonSchema, schemaErrors } from '../../loader/json-schema.js';
import { loadLoopFile } from '../../loader/load.js';

const VERDICTS = {
  type: 'object',
  properties: { verdict: { type: 'string', enum: ['done', 'retry'] }, confidence: { type: 'number' } },
  required: ['verdict'],
};

describe('schemaErrors', () => {
  it('accepts an answer that fits', () => {
    expect(schemaErrors(VERDICTS, { verdict: 'done', confidence: 0.9 })).toEqual([]);
    expect(schemaErrors(DEFAULT_LLM_SCHEMA, { verdict: 'yes', confidence: 1, reason: 'ok' })).toEqual([]);
  });

  it('names a verdict outside the enum with the allowed values', () => {
    expect(schemaErrors(VERDICTS, { verdict: 'maybe' })).toEqual([
      '/verdict must be equal to one of the allowed values: "done", "retry"',
    ]);
  });

  it('lists every problem, one line each', () => {
    const errors = schemaErrors(DEFAULT_LLM_SCHEMA, { verdict: 'yes', confidence: 2 });
    expect(errors).toContain('/confidence must be <= 1');
    expect(errors).toContain("answer must have required property 'reason'");
    expect(errors).toHaveLength(2);
  });
});

describe('answerCheckSchema', () => {
  it('checks answers to the default schema for their verdict only (confidence and reason stay optional)', () => {
    const check = answerCheckSchema(DEFAULT_LLM_SCHEMA);
    expect(schemaErrors(check, { verdict: 'yes' })).toEqual([]);
    expect(schemaErrors(check, { verdict: 'maybe' })).toEqual([
      '/verdict must be equal to one of the allowed values: "yes", "no", "blocked", "partial"',
    ]);
    expect(schemaErrors(check, { verdict: 'no', confidence: 3 })).toEqual(['/confidence must be <= 1']);
  });

  it('keeps a loop’s own schema as written', () => {
    expect(answerCheckSchema(VERDICTS)).toBe(VERDICTS);
  });
});

describe('compileJsonSchema', () => {
  it('refuses a keyword of the wrong shape', () => {
    const c = compileJsonSchema({ type: 'objekt' });
    // One explanation per bad keyword, not the meta-schema's three.
    expect('problem' in c && c.problem).toBe(
      '/type must be equal to one of the allowed values: "array", "boolean", "integer", "null", "number", "object", "string"',
    );
  });

  it('refuses a $ref that resolves nowhere', () => {
    const c = compileJsonSchema({ type: 'object', properties: { verdict: { $ref: '#/$defs/missing' } } });
    expect('problem' in c && c.problem).toMatch(/missing/);
  });
});

describe('a schema: that is not a JSON Schema', () => {
  it('is an error at load with its file, line and a fix', () => {
    const dir = mkdtempSync(join(tmpdir(), 'll-json-schema-'));
    const file = join(dir, 'judged.yaml');
    writeFileSync(
      file,
      [
        'name: judged',
        'initial: check',
        'states:',
        '  check:',
        '    action: "echo hi"',
        '    evaluate:',
        '      type: llm_structured',
        '      schema:',
        '        type: object',
        '        properties:',
        '          verdict: { type: string, enum: "done" }',
        '    on_yes: done',
        '    on_no: done',
        '  done: { terminal: true }',
        '',
      ].join('\n'),
    );
    const loaded = loadLoopFile(file, {}, dir);
    expect(loaded.definition).toBeUndefined();
    const d = loaded.diagnostics.find((x) => x.severity === 'error');
    expect(d?.message).toMatch(/^schema is not a valid JSON Schema: .*enum/);
    expect(d?.file).toBe(file);
    expect(d?.line).toBe(8);
    expect(d?.state).toBe('check');
    expect(d?.fix).toMatch(/JSON Schema/);
  });

  it('an output_schema: that is not a JSON Schema is an error at its line too', () => {
    const dir = mkdtempSync(join(tmpdir(), 'll-json-schema-'));
    const file = join(dir, 'planned.yaml');
    writeFileSync(
      file,
      [
        'name: planned',
        'initial: plan',
        'states:',
        '  plan:',
        '    action: "make plan"',
        '    output_schema: { type: objekt }',
        '    next: done',
        '  done: { terminal: true }',
        '',
      ].join('\n'),
    );
    const loaded = loadLoopFile(file, {}, dir);
    const d = loaded.diagnostics.find((x) => x.severity === 'error');
    expect(d?.message).toMatch(/^output_schema is not a valid JSON Schema: .*type/);
    expect(d?.line).toBe(6);
  });
});
