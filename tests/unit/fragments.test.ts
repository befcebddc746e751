/**
 * Composing a loop from its `from:` layers and `fragment:`s (fsm/definition/fragments.ts), pure: documents
 * in, document and findings out. File reading and positions are tested in reuse.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  addFragments,
  composeLoop,
  fragmentsBlockProblems,
  importListProblems,
  type FragmentDef,
  type FragmentTable,
} from '../../fsm/definition/fragments.js';
import type { PlainObject } from '../../fsm/definition/merge.js';

/** A fragment table from inline blocks, lowest priority first; each origin is its block's index. */
function table(...blocks: PlainObject[]): FragmentTable<number> {
  const out: FragmentTable<number> = new Map();
  blocks.forEach((block, i) => addFragments(out, block, i));
  return out;
}

const CHECK = {
  action: 'check ${context.target}',
  capture: 'check',
  evaluate: { type: 'exit_code' },
  on_yes: 'done',
  on_no: 'fix',
  timeout: 60,
};

describe('fragment: on a state (one file)', () => {
  it.each<[string, PlainObject, PlainObject, PlainObject]>([
    ['adds the fragment keys the state lacks', { f: CHECK }, { fragment: 'f' }, CHECK],
    [
      'a state scalar wins over the fragment',
      { f: CHECK },
      { fragment: 'f', on_no: 'give_up', timeout: 5 },
      { ...CHECK, on_no: 'give_up', timeout: 5 },
    ],
    [
      'nested mappings merge: the state wins key by key at every depth',
      { f: { evaluate: { type: 'output_numeric', operator: 'le', target: 5, source: '${captured.n.output}' } } },
      { fragment: 'f', evaluate: { target: 3 }, next: 'x' },
      { evaluate: { type: 'output_numeric', operator: 'le', target: 3, source: '${captured.n.output}' }, next: 'x' },
    ],
    [
      'route tables merge verdict by verdict',
      { f: { route: { yes: 'done', no: 'fix', _: 'fix' } } },
      { fragment: 'f', route: { no: 'retry' } },
      { route: { yes: 'done', no: 'retry', _: 'fix' } },
    ],
    [
      'a state list replaces the fragment list',
      { f: { tools: ['Read', 'Edit'], action: 'p' } },
      { fragment: 'f', tools: ['Read'] },
      { tools: ['Read'], action: 'p' },
    ],
    [
      'null in the state removes a fragment key',
      { f: CHECK },
      { fragment: 'f', capture: null, on_no: null },
      { ...CHECK, capture: undefined, on_no: undefined },
    ],
    [
      'the fragment description is not copied',
      { f: { description: 'runs the check', action: 'x' } },
      { fragment: 'f', next: 'done' },
      { action: 'x', next: 'done' },
    ],
    [
      'a state description is kept',
      { f: { description: 'runs the check', action: 'x' } },
      { fragment: 'f', description: 'mine' },
      { action: 'x', description: 'mine' },
    ],
    [
      'templates are kept as written',
      { f: { action: 'run ${context.cmd} --x=${captured.a.output}' } },
      { fragment: 'f', next: 'done' },
      { action: 'run ${context.cmd} --x=${captured.a.output}', next: 'done' },
    ],
  ])('%s', (_label, fragments, state, expected) => {
    const composed = composeLoop(
      [{ name: 'l', initial: 's', states: { s: state, done: { terminal: true } } }],
      table(fragments),
    );
    expect(composed.findings).toEqual([]);
    const result = (composed.raw.states as PlainObject).s as PlainObject;
    expect(result).toEqual(JSON.parse(JSON.stringify(expected)));
    expect(Object.hasOwn(result, 'fragment')).toBe(false);
    expect(composed.applied.get('s')?.name).toBe('f');
  });

  it('leaves no reuse key in the document and states without fragment: exactly as written', () => {
    const doc = {
      name: 'l',
      import: ['lib.yaml'],
      fragments: { f: { action: 'x' } },
      initial: 's',
      states: { s: { fragment: 'f', next: 'done' }, done: { terminal: true, on_maintain: null } },
    };
    const composed = composeLoop([doc], table(doc.fragments));
    expect(composed.raw).toEqual({
      name: 'l',
      initial: 's',
      states: { s: { action: 'x', next: 'done' }, done: { terminal: true, on_maintain: null } },
    });
  });

  it('shares no mapping or list with the fragment, so two states using it stay independent', () => {
    const fragments = { f: { tools: ['Read'], evaluate: { type: 'exit_code' } } };
    const composed = composeLoop([{ states: { a: { fragment: 'f' }, b: { fragment: 'f' } } }], table(fragments));
    const states = composed.raw.states as Record<string, PlainObject>;
    (states.a!.tools as string[]).push('Edit');
    (states.a!.evaluate as PlainObject).type = 'output_numeric';
    expect(states.b).toEqual({ tools: ['Read'], evaluate: { type: 'exit_code' } });
    expect(fragments.f).toEqual({ tools: ['Read'], evaluate: { type: 'exit_code' } });
  });
});

describe('problems with fragment:', () => {
  it.each<[string, PlainObject, unknown, RegExp, RegExp]>([
    [
      'an unknown name, with a suggestion and the known names',
      { shell_check: {}, llm_check: {} },
      'shel_check',
      /fragment "shel_check" is not defined \(did you mean "shell_check"\?\); known fragments: llm_check, shell_check/,
      /define shel_check under fragments:/,
    ],
    [
      'an unknown name when there are no fragments',
      {},
      'x',
      /fragment "x" is not defined; no fragments are defined/,
      /import:/,
    ],
    ['a name that is not a string', { f: {} }, 3, /fragment: must be the name of a fragment/, /known fragments: f/],
    ['an empty name', { f: {} }, '', /fragment: must be the name of a fragment/, /fragment: <name>/],
  ])('%s', (_label, fragments, name, message, fix) => {
    const composed = composeLoop([{ states: { s: { fragment: name, action: 'a', next: 'done' } } }], table(fragments));
    expect(composed.findings).toHaveLength(1);
    const { diagnostic, layer } = composed.findings[0]!;
    expect(layer).toBe(0);
    expect(diagnostic).toMatchObject({ path: ['states', 's', 'fragment'], state: 's' });
    expect(diagnostic.message).toMatch(message);
    expect(diagnostic.fix).toMatch(fix);
    // The state keeps its own keys and loses the unusable fragment: key either way.
    expect((composed.raw.states as PlainObject).s).toEqual({ action: 'a', next: 'done' });
  });

  it('reports every state with an unknown fragment, each in the layer that wrote it', () => {
    const base = { states: { a: { fragment: 'nope', next: 'b' } } };
    const child = { states: { b: { fragment: 'gone', next: 'a' }, a: { next: 'b' } } };
    const composed = composeLoop([base, child], table({ real: {} }));
    expect(composed.findings.map((f) => [f.diagnostic.state, f.layer])).toEqual([
      ['a', 0],
      ['b', 1],
    ]);
  });
});

describe('from: layers with fragments', () => {
  const fragments = table({
    check: CHECK,
    lint: { action: 'lint', evaluate: { type: 'exit_code' }, on_yes: 'done', on_no: 'fix' },
  });
  const parent = {
    name: 'base',
    max_iterations: 20,
    context: { target: 'src' },
    initial: 'test',
    states: {
      test: { fragment: 'check', timeout: 30 },
      fix: { action: 'fix', next: 'test' },
      done: { terminal: true },
    },
  };

  it.each<[string, PlainObject, PlainObject]>([
    [
      'a child key of an inherited state wins over the parent state and the fragment',
      { states: { test: { on_no: 'give_up' } } },
      { ...CHECK, timeout: 30, on_no: 'give_up' },
    ],
    [
      'a child can switch the fragment; the parent state keys still apply over it',
      { states: { test: { fragment: 'lint' } } },
      { action: 'lint', evaluate: { type: 'exit_code' }, on_yes: 'done', on_no: 'fix', timeout: 30 },
    ],
    [
      'a child fragment: null drops the fragment, keeping the parent state keys',
      { states: { test: { fragment: null, action: 'own', next: 'done' } } },
      { timeout: 30, action: 'own', next: 'done' },
    ],
    [
      "null in a child removes the key from the merged state, the fragment's value included",
      { states: { test: { timeout: null } } },
      { ...CHECK, timeout: undefined },
    ],
  ])('%s', (_label, child, expectedTest) => {
    const composed = composeLoop([parent, child], fragments);
    expect(composed.findings).toEqual([]);
    expect((composed.raw.states as PlainObject).test).toEqual(JSON.parse(JSON.stringify(expectedTest)));
  });

  it('merges top-level keys as the seed says and keeps the states the child does not name', () => {
    const child = { name: 'child', from: 'base', context: { extra: 1 }, states: { give_up: { terminal: true } } };
    const composed = composeLoop([parent, child], fragments);
    expect(composed.raw).toEqual({
      name: 'child',
      max_iterations: 20,
      context: { target: 'src', extra: 1 },
      initial: 'test',
      states: {
        test: { ...CHECK, timeout: 30 },
        fix: { action: 'fix', next: 'test' },
        done: { terminal: true },
        give_up: { terminal: true },
      },
    });
  });

  it.each<[string, PlainObject, string[]]>([
    ['a state set to null is removed', { states: { fix: null } }, ['test', 'done']],
    ['states: null removes every inherited state before the child adds its own', { states: null }, []],
    ['a state written over a non-mapping replaces it', { states: { fix: { next: 'done' } } }, ['test', 'fix', 'done']],
  ])('%s', (_label, child, names) => {
    const composed = composeLoop([parent, child], fragments);
    expect(Object.keys((composed.raw.states as PlainObject | undefined) ?? {})).toEqual(names);
  });

  it('a grandchild sees the whole chain, most derived last', () => {
    const middle = { context: { target: 'lib', level: 'middle' }, states: { test: { timeout: 40 } } };
    const leaf = { context: { level: 'leaf' }, states: { test: { on_yes: 'fix' } } };
    const composed = composeLoop([parent, middle, leaf], fragments);
    expect(composed.raw.context).toEqual({ target: 'lib', level: 'leaf' });
    expect((composed.raw.states as PlainObject).test).toEqual({ ...CHECK, timeout: 40, on_yes: 'fix' });
  });
});

describe('fragment tables and blocks', () => {
  it('a later block replaces a same-name fragment of an earlier one (callers add by priority)', () => {
    const t = table({ f: { action: 'imported' }, g: { action: 'g' } }, { f: { action: 'inline' } });
    expect([...t.values()].map((d: FragmentDef<number>) => [d.name, d.body.action, d.origin])).toEqual([
      ['f', 'inline', 1],
      ['g', 'g', 0],
    ]);
  });

  it.each<[string, unknown, Array<[Array<string | number>, RegExp]>]>([
    ['a well-formed block', { f: { action: 'x' }, g: {} }, []],
    ['not a mapping', ['f'], [[['fragments'], /must be a mapping from fragment names/]]],
    ['a fragment that is not a mapping', { f: 'x' }, [[['fragments', 'f'], /fragment "f" must be a mapping/]]],
    [
      'a fragment using another fragment',
      { f: { fragment: 'g' }, g: {} },
      [[['fragments', 'f', 'fragment'], /fragments cannot be nested/]],
    ],
  ])('fragments: %s', (_label, block, expected) => {
    const problems = fragmentsBlockProblems(block);
    expect(problems.map((d) => [d.path, d.severity])).toEqual(expected.map(([path]) => [path, 'error']));
    problems.forEach((d, i) => expect(d.message).toMatch(expected[i]![1]));
  });

  it('skips malformed fragments when building the table', () => {
    expect([...table({ ok: {}, bad: 'x', nested: { fragment: 'ok' } }).keys()]).toEqual(['ok']);
  });

  it.each<[string, unknown, Array<Array<string | number>>]>([
    ['a list of paths', ['lib/a.yaml', 'b'], []],
    ['a single string', 'lib/a.yaml', [['import']]],
    [
      'an empty entry and a number',
      ['ok', '', 3],
      [
        ['import', 1],
        ['import', 2],
      ],
    ],
  ])('import: %s', (_label, value, paths) => {
    expect(importListProblems(value).map((d) => d.path)).toEqual(paths);
  });
});
