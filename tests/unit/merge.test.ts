import { describe, expect, it } from 'vitest';
import { cloneValue, deepMerge, mergeLayers, valueAt, type PlainObject } from '../../fsm/definition/merge.js';

describe('deepMerge', () => {
  it.each<[string, PlainObject, PlainObject, PlainObject]>([
    ['adds keys of the override', { a: 1 }, { b: 2 }, { a: 1, b: 2 }],
    [
      'a scalar overrides',
      { max_iterations: 20, name: 'base' },
      { name: 'child' },
      { max_iterations: 20, name: 'child' },
    ],
    ['a list overrides (no concatenation)', { labels: ['a', 'b'] }, { labels: ['c'] }, { labels: ['c'] }],
    ['an empty list overrides', { labels: ['a'] }, { labels: [] }, { labels: [] }],
    [
      'mappings merge recursively',
      { context: { a: 1, b: 2 } },
      { context: { b: 3, c: 4 } },
      { context: { a: 1, b: 3, c: 4 } },
    ],
    [
      'states and route merge at every depth',
      { states: { check: { action: 'make', route: { yes: 'done', no: 'fix' } }, done: { terminal: true } } },
      { states: { check: { route: { no: 'retry' } } } },
      { states: { check: { action: 'make', route: { yes: 'done', no: 'retry' } }, done: { terminal: true } } },
    ],
    [
      'a mapping replaces a scalar',
      { evaluate: 'x' },
      { evaluate: { type: 'exit_code' } },
      { evaluate: { type: 'exit_code' } },
    ],
    ['a scalar replaces a mapping', { context: { a: 1 } }, { context: 'none' }, { context: 'none' }],
    ['null removes a key', { context: { a: 1, b: 2 } }, { context: { a: null } }, { context: { b: 2 } }],
    [
      'null removes a whole mapping',
      { states: { old: { next: 'done' }, done: { terminal: true } } },
      { states: { old: null } },
      { states: { done: { terminal: true } } },
    ],
    ['null over a missing key leaves it absent', { a: 1 }, { b: null }, { a: 1 }],
    [
      'false and 0 and "" override (they are values)',
      { a: true, b: 1, c: 'x' },
      { a: false, b: 0, c: '' },
      { a: false, b: 0, c: '' },
    ],
    ['an empty override changes nothing', { a: { b: 1 } }, {}, { a: { b: 1 } }],
    [
      'an empty mapping override changes nothing beneath it',
      { context: { a: 1 } },
      { context: {} },
      { context: { a: 1 } },
    ],
    [
      'a list of mappings is replaced whole, not merged item by item',
      { commands: [{ cmd: 'a', comment: 'x' }] },
      { commands: [{ cmd: 'b' }] },
      { commands: [{ cmd: 'b' }] },
    ],
    [
      'nested state keys merge four levels deep',
      { states: { s: { evaluate: { type: 'llm_structured', schema: { properties: { a: 1, b: 2 } } } } } },
      { states: { s: { evaluate: { schema: { properties: { b: 3 } } } } } },
      { states: { s: { evaluate: { type: 'llm_structured', schema: { properties: { a: 1, b: 3 } } } } } },
    ],
    [
      'templates are plain strings to the merge',
      { action: '${context.a}' },
      { context: { a: '${context.b}' } },
      { action: '${context.a}', context: { a: '${context.b}' } },
    ],
  ])('%s', (_label, base, override, expected) => {
    expect(deepMerge(base, override)).toEqual(expected);
  });

  it('mutates neither input and shares no mapping or list with them', () => {
    const base = { context: { a: 1 }, labels: ['x'] };
    const override = { context: { b: 2 }, scope: ['src'] };
    const before = JSON.stringify([base, override]);
    const merged = deepMerge(base, override);
    expect(JSON.stringify([base, override])).toBe(before);
    (merged.context as PlainObject).c = 3;
    (merged.labels as string[]).push('y');
    (merged.scope as string[]).push('lib');
    expect(JSON.stringify([base, override])).toBe(before);
  });

  it('keeps a "__proto__" key as data, never as a prototype', () => {
    const override = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as PlainObject;
    const merged = deepMerge({}, override);
    expect(Object.keys(merged)).toEqual(['__proto__', 'a']);
    expect(({} as PlainObject).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
  });
});

describe('mergeLayers', () => {
  it.each<[string, PlainObject[], PlainObject]>([
    ['no layers is an empty document', [], {}],
    [
      'one layer is kept as written, nulls included',
      [{ a: 1, b: null, c: { d: null } }],
      { a: 1, b: null, c: { d: null } },
    ],
    [
      'the base keeps its nulls where no override touches them',
      [{ on_maintain: null, x: 1 }, { x: 2 }],
      { on_maintain: null, x: 2 },
    ],
    ['an override replaces a base null', [{ on_maintain: null }, { on_maintain: 'start' }], { on_maintain: 'start' }],
    [
      'later layers win',
      [{ name: 'base', n: 1 }, { name: 'mid' }, { name: 'child', m: 2 }],
      { name: 'child', n: 1, m: 2 },
    ],
    [
      'a middle layer can remove what the base set, and a later one set it again',
      [{ a: { x: 1, y: 2 } }, { a: { x: null } }, { a: { x: 3 } }],
      { a: { x: 3, y: 2 } },
    ],
  ])('%s', (_label, layers, expected) => {
    expect(mergeLayers(layers)).toEqual(expected);
  });

  it('copies the base: changing the result leaves the first layer as it was', () => {
    const base = { context: { a: 1 }, labels: ['x'] };
    const merged = mergeLayers([base]);
    (merged.context as PlainObject).a = 2;
    (merged.labels as string[]).push('y');
    expect(base).toEqual({ context: { a: 1 }, labels: ['x'] });
  });
});

describe('cloneValue and valueAt', () => {
  it('copies mappings and lists deeply', () => {
    const value = { a: [{ b: 1 }] };
    const copy = cloneValue(value);
    expect(copy).toEqual(value);
    expect(copy.a).not.toBe(value.a);
    expect(copy.a[0]).not.toBe(value.a[0]);
  });

  it.each<[string, unknown, Array<string | number>, unknown]>([
    ['a nested key', { states: { a: { next: 'b' } } }, ['states', 'a', 'next'], 'b'],
    ['a list index', { import: ['x', 'y'] }, ['import', 1], 'y'],
    ['the document itself', { a: 1 }, [], { a: 1 }],
    ['a missing key', { states: {} }, ['states', 'a', 'next'], undefined],
    ['through a scalar', { a: 'text' }, ['a', 'length'], undefined],
    ['an inherited property is not a key', {}, ['toString'], undefined],
  ])('%s', (_label, doc, path, expected) => {
    expect(valueAt(doc, path)).toEqual(expected);
  });
});
