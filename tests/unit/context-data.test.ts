import { describe, expect, it } from 'vitest';
import { coerceParameter, commandLineDataKeys } from '../../fsm/definition/parameters.js';
import { renderShell } from '../../fsm/shell-render.js';
import type { LoopDefinition } from '../../fsm/schema.js';
import { validateLoop } from '../../fsm/definition/validate.js';
import { scope } from './helpers.js';

describe('--context values as data', () => {
  const def = {
    parameters: { check_cmd: { type: 'command', required: false }, n: { type: 'integer', required: false } },
  } as unknown as Pick<LoopDefinition, 'parameters'>;

  it('every command-line key is data except a command parameter', () => {
    expect(commandLineDataKeys(def, { x: 'a"; touch F', check_cmd: 'pytest -q | tee log', n: '3' })).toEqual([
      'x',
      'n',
    ]);
    expect(commandLineDataKeys({}, {})).toEqual([]);
  });

  it('a data context key renders as a variable, an author key as code', () => {
    const s = scope({ context: { x: 'a"; touch F', check_cmd: 'pytest -q | tee log' }, dataContext: ['x'] });
    expect(renderShell('echo "${context.x}"; ${context.check_cmd}', s)).toEqual({
      script: 'echo "${LL_V1}"; pytest -q | tee log',
      vars: { LL_V1: 'a"; touch F' },
      env: {},
    });
  });

  it('a command parameter takes a non-empty command and validates in a loop file', () => {
    expect(coerceParameter({ type: 'command', required: false }, 'make test')).toEqual({ value: 'make test' });
    expect(coerceParameter({ type: 'command', required: false }, '  ')).toEqual({
      error: 'expected a shell command, got "  "',
    });
    const r = validateLoop({
      name: 'l',
      initial: 'a',
      parameters: { c: { type: 'command', default: 'true' } },
      states: { a: { action: '${context.c}', terminal: true } },
    });
    expect(r.definition?.parameters?.c?.type).toBe('command');
  });
});
