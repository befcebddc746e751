/**
 * What a run remembers of its shell actions' durations (workflows/quick-record.ts): the states it
 * saw quick (within 1 s: bursts) and brief (within 5 s: the actions an action's activity runs
 * after it, the `briefAfterActions` rule), each with the longest timeout its actions had.
 */
import { describe, expect, it } from 'vitest';
import { LEARNED_BRIEF_MS, LEARNED_QUICK_MS, QuickRecord } from '../../workflows/quick-record.js';

const shell = (state: string, timeout_s = 1800) => ({ state, kind: 'shell' as const, timeout_s });

describe('the states a run saw quick or brief', () => {
  it('takes each state by its last shell action: quick within 1 s, brief within 5 s', () => {
    const seen = new QuickRecord(true);
    seen.saw(shell('build'), 400);
    seen.saw(shell('types'), 1_900);
    seen.saw(shell('tests', 600), 7_000);
    seen.saw({ state: 'fix', kind: 'prompt', timeout_s: 1800 }, 100);
    expect(seen.learned()).toEqual({ build: 1800 });
    expect(seen.learned(LEARNED_BRIEF_MS)).toEqual({ build: 1800, types: 1800 });
    expect(seen.quick(shell('build'))).toBe(true);
    expect(seen.quick(shell('types'))).toBe(false);
    expect(LEARNED_QUICK_MS).toBeLessThan(LEARNED_BRIEF_MS);
  });

  it('goes by the last duration (a burst’s later action known by its state) and keeps the longest timeout', () => {
    const seen = new QuickRecord(true);
    seen.saw(shell('types', 60), 800);
    seen.saw(shell('types', 30), 900);
    expect(seen.learned()).toEqual({ types: 60 });
    seen.sawInBurst('types', 3_000);
    expect(seen.learned()).toEqual({});
    expect(seen.learned(LEARNED_BRIEF_MS)).toEqual({ types: 60 });
    seen.sawInBurst('types', 6_000);
    expect(seen.learned(LEARNED_BRIEF_MS)).toEqual({});
  });

  it('remembers nothing when off (a run without learnedQuick, or whose actions run elsewhere)', () => {
    const seen = new QuickRecord(false);
    seen.saw(shell('build'), 10);
    expect(seen.learned(LEARNED_BRIEF_MS)).toEqual({});
    expect(seen.quick(shell('build'))).toBe(false);
  });
});
