import { describe, expect, it } from 'vitest';
import { ContextError, resolveContext } from '../../fsm/definition/context.js';
import { TemplateSyntaxError } from '../../fsm/template.js';

describe('resolveContext', () => {
  it.each([
    ['a plain value', { target_dir: 'src/' }, { target_dir: 'src/' }],
    [
      'the seed example',
      { target_dir: 'src/', max_errors: 10, metric_cmd: 'mypy ${context.target_dir}' },
      { target_dir: 'src/', max_errors: 10, metric_cmd: 'mypy src/' },
    ],
    ['a forward reference', { cmd: 'mypy ${context.dir}', dir: 'lib/' }, { cmd: 'mypy lib/', dir: 'lib/' }],
    ['a chain', { a: '${context.b}!', b: '${context.c}?', c: 'x' }, { a: 'x?!', b: 'x?', c: 'x' }],
    ['repeated references', { a: '${context.b}${context.b}', b: 'y' }, { a: 'yy', b: 'y' }],
    ['a number rendered in text', { n: 10, msg: 'max ${context.n}' }, { n: 10, msg: 'max 10' }],
    [
      'a boolean and a list as JSON',
      { on: true, xs: [1, 2], msg: '${context.on} ${context.xs}' },
      { on: true, xs: [1, 2], msg: 'true [1,2]' },
    ],
    ['a nested key', { obj: { k: 'v' }, msg: '${context.obj.k}' }, { obj: { k: 'v' }, msg: 'v' }],
    [
      'an array index, negative from the end',
      { xs: ['a', 'b'], first: '${context.xs.0}', last: '${context.xs.-1}' },
      { xs: ['a', 'b'], first: 'a', last: 'b' },
    ],
    ['a default for a missing key', { msg: '${context.nope:-fallback}' }, { msg: 'fallback' }],
    ['a default for an empty value', { empty: '', msg: '${context.empty:-fallback}' }, { empty: '', msg: 'fallback' }],
    ['a default for a missing nested key', { obj: {}, msg: '${context.obj.k:-d}' }, { obj: {}, msg: 'd' }],
    ['an empty value without default', { empty: '', msg: '[${context.empty}]' }, { empty: '', msg: '[]' }],
    ['the $${ escape', { cmd: 'echo $${HOME}' }, { cmd: 'echo ${HOME}' }],
    ['non-string values untouched', { n: 1.5, obj: { s: '${context.n}' } }, { n: 1.5, obj: { s: '${context.n}' } }],
    ['an empty context', {}, {}],
  ])('resolves %s', (_label, context, expected) => {
    expect(resolveContext(context)).toEqual(expected);
  });

  it('keeps the order of the keys as written', () => {
    expect(Object.keys(resolveContext({ z: '${context.a}', m: 1, a: 'x' }))).toEqual(['z', 'm', 'a']);
  });

  it('does not modify its input', () => {
    const context = { a: '${context.b}', b: 'x' };
    resolveContext(context);
    expect(context).toEqual({ a: '${context.b}', b: 'x' });
  });

  it.each([
    ['a self-reference', { a: '${context.a}' }, 'context reference cycle: a → a', 'a'],
    ['a two-step cycle', { a: '${context.b}', b: '${context.a}' }, 'context reference cycle: a → b → a', 'a'],
    [
      'a three-step cycle',
      { a: 'x ${context.b}', b: '${context.c}', c: '${context.a}' },
      'context reference cycle: a → b → c → a',
      'a',
    ],
    [
      'a cycle reached from outside it',
      { start: '${context.b}', b: '${context.c}', c: '${context.b}' },
      'context reference cycle: b → c → b',
      'b',
    ],
  ])('throws ContextError naming the chain for %s', (_label, context, message, key) => {
    let caught: unknown;
    try {
      resolveContext(context);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ContextError);
    expect((caught as ContextError).message).toContain(message);
    expect((caught as ContextError).key).toBe(key);
  });

  it.each(['captured.x.output', 'prev.output', 'result.verdict', 'state.name', 'loop.name', 'env.HOME'])(
    'refuses ${%s}: only context may be referenced',
    (ref) => {
      expect(() => resolveContext({ a: `echo \${${ref}}` })).toThrow(ContextError);
      expect(() => resolveContext({ a: `echo \${${ref}}` })).toThrow(
        `context.a references \${${ref}}: context values may only reference other context values`,
      );
    },
  );

  it.each([
    ['a missing key', { a: '${context.nope}' }, '--context nope=VALUE'],
    ['a null value', { a: '${context.n}', n: null }, '--context n=VALUE'],
    ['a missing nested key', { a: '${context.obj.k}', obj: {} }, '--context obj=VALUE'],
    ['an inherited property', { a: '${context.constructor}' }, '--context constructor=VALUE'],
    ['an inherited property below a key', { a: '${context.obj.toString}', obj: {} }, 'which is not defined'],
  ])('throws ContextError for %s', (_label, context, fix) => {
    expect(() => resolveContext(context)).toThrow(ContextError);
    expect(() => resolveContext(context)).toThrow(fix);
  });

  it('syntax errors are TemplateSyntaxError', () => {
    expect(() => resolveContext({ a: '${context.b' })).toThrow(TemplateSyntaxError);
    expect(() => resolveContext({ a: '${nope.b}' })).toThrow(TemplateSyntaxError);
  });
});

describe('resolveContext: values given as data stay data', () => {
  const given = (keys: string[], code: string[] = []) => ({
    keys: new Set(keys),
    isCode: (key: string) => code.includes(key),
  });

  it('a data value in a command parameter’s value is one shell-quoted argument', () => {
    const data = given(['ref'], ['cmd']);
    const out = resolveContext({ ref: 'v1; touch pwned', cmd: 'git show ${context.ref}' }, data);
    expect(out.cmd).toBe(`git show 'v1; touch pwned'`);
    expect([...data.keys]).toEqual(['ref']);
  });

  it('a value built from data (not a command parameter) becomes data itself, verbatim', () => {
    const data = given(['ref']);
    const out = resolveContext({ ref: '$(id)', msg: 'checking ${context.ref}', chained: '<${context.msg}>' }, data);
    expect(out).toMatchObject({ msg: 'checking $(id)', chained: '<checking $(id)>' });
    expect(new Set(data.keys)).toEqual(new Set(['ref', 'msg', 'chained']));
  });

  it('the author’s own values stay code, and :shell is quoted once', () => {
    const data = given(['ref'], ['cmd']);
    const out = resolveContext(
      { dir: 'src', ref: 'a b', cmd: 'ls ${context.dir} ${context.ref:shell}', other: 'in ${context.dir}' },
      data,
    );
    expect(out).toMatchObject({ cmd: `ls src 'a b'`, other: 'in src' });
    expect([...data.keys]).toEqual(['ref']);
  });
});
