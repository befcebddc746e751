/**
 * `ll-loop suggest`'s ranking (client/commands/suggest-rank.ts): scores from matched words, explained in
 * `why`, best first, project loops shadowing built-ins of the same name. Loops written here.
 */
import { describe, expect, it } from 'vitest';
import { MIN_FIT, rankLoops, scoreCandidate, stem, type Candidate } from '../../client/commands/suggest-rank.js';
import { mergeRanking, rankingPrompt } from '../../client/commands/suggest-llm.js';

const loop = (name: string, extra: Partial<Candidate> = {}): Candidate => ({
  name,
  source: 'builtin',
  labels: [],
  parameters: {},
  ...extra,
});

const CATALOG: Candidate[] = [
  loop('tests-green', { description: 'Run the tests and fix failures until they pass', labels: ['tests', 'agent'] }),
  loop('lint-clean', { description: 'Fix what the linter reports', labels: ['lint'], category: 'code-quality' }),
  loop('docs-sync', {
    description: 'Keep the docs in step with the code',
    parameters: { docs_dir: 'Where the markdown lives' },
  }),
];

describe('suggest ranking', () => {
  it('ranks by matched words, best first, and says which', () => {
    const ranked = rankLoops('fix the failing tests', CATALOG);
    expect(ranked.map((r) => r.name)).toEqual(['tests-green', 'lint-clean']);
    expect(ranked[0]!.why).toEqual(['description: fix', 'name: tests']);
    expect(ranked[0]!.score).toBeGreaterThan(ranked[1]!.score);
    expect(ranked[1]!.why).toEqual(['description: fix']);
  });

  it('weighs names and labels over the description, and the description over parameters', () => {
    const byName = scoreCandidate('lint', loop('lint-clean'));
    const byLabel = scoreCandidate('lint', loop('x', { labels: ['lint'] }));
    const byDescription = scoreCandidate('lint', loop('x', { description: 'runs the lint' }));
    const byParameter = scoreCandidate('lint', loop('x', { parameters: { lint_cmd: undefined } }));
    expect(byName.score).toBe(1);
    expect(byLabel.score).toBe(1);
    expect(byDescription.score).toBeCloseTo(1 / 3, 3);
    expect(byParameter.score).toBeCloseTo(0.5 / 3, 3);
    expect(byParameter.why).toEqual(['parameter: lint']);
  });

  it('finds parameters by their descriptions', () => {
    expect(rankLoops('update the markdown', CATALOG)).toEqual([
      { name: 'docs-sync', source: 'builtin', score: expect.any(Number), why: ['parameter: markdown'] },
    ]);
  });

  it('matches word forms and ignores filler words', () => {
    expect(['tests', 'testing', 'tested', 'test'].map(stem)).toEqual(['test', 'test', 'test', 'test']);
    expect(stem('fixes')).toBe('fix');
    expect(rankLoops('the and of with', CATALOG)).toEqual([]);
  });

  it('gives nothing for a task no loop is about', () => {
    const ranked = rankLoops('bake a chocolate cake', CATALOG);
    expect(ranked).toEqual([]);
  });

  it('a project loop shadows the built-in of the same name, and wins ties', () => {
    const mine = loop('lint-clean', { source: 'project', description: 'Our lint', labels: ['lint'] });
    const other = loop('lint-more', { source: 'builtin', labels: ['lint'] });
    const ranked = rankLoops('lint', [
      ...CATALOG,
      mine,
      other,
      loop('lint-zz', { source: 'project', labels: ['lint'] }),
    ]);
    expect(ranked.map((r) => `${r.source}:${r.name}`)).toEqual([
      'project:lint-clean',
      'project:lint-zz',
      'builtin:lint-more',
    ]);
  });

  it('a loop fits from about one task word in five on a name or label', () => {
    const score = scoreCandidate('lint these five other words', loop('lint-clean')).score;
    expect(score).toBeGreaterThanOrEqual(MIN_FIT);
    const weak = scoreCandidate('lint these five other words', loop('x', { parameters: { lint: undefined } })).score;
    expect(weak).toBeLessThan(MIN_FIT);
  });
});

describe('suggest --llm: the LLM ranking over the words', () => {
  const byWords = rankLoops('fix the failing tests', CATALOG);

  it('takes the LLM scores and reasons, keeps the matched words, drops unknown names, best first', () => {
    const answer = {
      ranking: [
        { name: 'lint-clean', score: 0.2, why: 'fixes lint, not tests' },
        { name: 'tests-green', score: 1.4, why: 'exactly this' },
        { name: 'no-such-loop', score: 0.9, why: 'made up' },
      ],
    };
    expect(mergeRanking(answer, byWords, CATALOG)).toEqual([
      {
        name: 'tests-green',
        source: 'builtin',
        score: 1,
        why: ['llm: exactly this', 'description: fix', 'name: tests'],
      },
      { name: 'lint-clean', source: 'builtin', score: 0.2, why: ['llm: fixes lint, not tests', 'description: fix'] },
    ]);
    expect(mergeRanking(JSON.stringify(answer), byWords, CATALOG)).toHaveLength(2);
  });

  it('an answer that is not a ranking is undefined (the words then stand)', () => {
    expect(mergeRanking('I think tests-green', byWords, CATALOG)).toBeUndefined();
    expect(mergeRanking({ verdict: 'yes' }, byWords, CATALOG)).toBeUndefined();
    expect(mergeRanking({ ranking: [{ name: 'tests-green' }] }, byWords, CATALOG)).toBeUndefined();
  });

  it('asks with the task and every loop in a line', () => {
    const text = rankingPrompt('fix the failing tests', CATALOG);
    expect(text).toContain('Task: fix the failing tests');
    expect(text).toContain(
      '- docs-sync: Keep the docs in step with the code; parameters: docs_dir (Where the markdown lives)',
    );
  });
});

describe('suggest ranking ties', () => {
  it('an equal score goes first to the loop with more task words in its name', () => {
    const byLabel = loop('a-gate', { labels: ['tests'], description: 'fixes what fails' });
    const byName = loop('tests-fixer', { description: 'fixes what fails' });
    const ranked = rankLoops('fix failing tests', [byLabel, byName]);
    expect(ranked[0]!.score).toBe(ranked[1]!.score);
    expect(ranked.map((r) => r.name)).toEqual(['tests-fixer', 'a-gate']);
  });
});
