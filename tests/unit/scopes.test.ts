/**
 * Scope paths and the scope lock's queue, in the pure core: normalisation against the checkout,
 * segment-aware overlap, and the grant / queue / deny decisions (FIFO, release, removal,
 * liveness, rebuild) as a state machine fed with facts.
 */
import { describe, expect, it } from 'vitest';
import { claimedScopes, claimsOverlap, normaliseScope, scopesOverlap } from '../../fsm/scopes.js';
import {
  decide,
  EMPTY_QUEUE,
  type QueueFact,
  type ScopeAnswer,
  type ScopeQueue,
  withFacts,
} from '../../fsm/run/scope-queue.js';

const ROOT = '/home/me/project';

describe('normaliseScope', () => {
  it.each([
    ['src/api/', 'src/api'],
    ['./src//api/.', 'src/api'],
    ['src/a/../b', 'src/b'],
    ['.', '.'],
    ['./', '.'],
    ['src/..', '.'],
    [`${ROOT}/src/api`, 'src/api'],
    [`${ROOT}/`, '.'],
    [ROOT, '.'],
    ['  tests  ', 'tests'],
  ])('%s → %s', (path, scope) => {
    expect(normaliseScope(path, ROOT)).toEqual({ scope });
  });

  it.each([['../x'], ['src/../../x'], ['..'], ['/home/me/other'], ['/home/me/project-two/src'], ['/etc']])(
    '%s is outside the checkout',
    (path) => {
      expect(normaliseScope(path, ROOT)).toMatchObject({ problem: 'outside' });
    },
  );

  it('an empty path is a problem of its own', () => {
    expect(normaliseScope('  ', ROOT)).toMatchObject({ problem: 'empty' });
  });
});

describe('claimedScopes', () => {
  it('no scope: the whole checkout', () => {
    expect(claimedScopes(undefined, ROOT)).toEqual({ scopes: ['.'], problems: [] });
    expect(claimedScopes([], ROOT)).toEqual({ scopes: ['.'], problems: [] });
  });

  it('normalises, drops duplicates and names each bad entry by index', () => {
    expect(claimedScopes(['src/', './src', '../x', `${ROOT}/docs`], ROOT)).toEqual({
      scopes: ['src', 'docs'],
      problems: [{ index: 2, message: expect.stringContaining('climbs out') as string }],
    });
  });
});

describe('scopesOverlap (segment-aware prefixes)', () => {
  it.each([
    ['src/a', 'src/a', true],
    ['src/a', 'src/a/b', true],
    ['src', 'src/a/b', true],
    ['src/a', 'src/ab', false],
    ['src/ab', 'src/a', false],
    ['src', 'tests', false],
    ['.', 'anything/at/all', true],
    ['docs', '.', true],
    ['a/b/c', 'a/b/d', false],
  ])('%s vs %s → %s', (a, b, expected) => {
    expect(scopesOverlap(a, b)).toBe(expected);
    expect(scopesOverlap(b, a)).toBe(expected);
  });

  it('lists overlap when any pair does', () => {
    expect(claimsOverlap(['src/api', 'tests/api'], ['docs', 'tests'])).toBe(true);
    expect(claimsOverlap(['src/api', 'tests/api'], ['docs', 'src/apix'])).toBe(false);
  });
});

/** Feed facts in order; collect every answer as `run: kind`. */
function play(
  facts: QueueFact[],
  start: ScopeQueue = EMPTY_QUEUE,
): { queue: ScopeQueue; answers: Array<[string, ScopeAnswer]> } {
  let queue = start;
  const answers: Array<[string, ScopeAnswer]> = [];
  for (const fact of facts) {
    const d = decide(queue, fact);
    queue = d.queue;
    answers.push(...d.answers.map((a): [string, ScopeAnswer] => [a.run, a.answer]));
  }
  return { queue, answers };
}

const req = (run: string, scopes: string[], wait = true, now = 0): QueueFact => ({
  type: 'request',
  run,
  scopes,
  wait,
  now,
});
const rel = (run: string, now = 0): QueueFact => ({ type: 'release', run, now });
const kinds = (answers: Array<[string, ScopeAnswer]>) => answers.map(([run, a]) => `${run}:${a.kind}`);
const holders = (q: ScopeQueue) => q.holders.map((h) => h.run);
const waiters = (q: ScopeQueue) => q.waiters.map((w) => w.run);

describe('decide: grants and conflicts', () => {
  it('grants non-overlapping requests at once, side by side', () => {
    const { queue, answers } = play([req('a', ['src/a']), req('b', ['src/ab']), req('c', ['docs'], false)]);
    expect(kinds(answers)).toEqual(['a:granted', 'b:granted', 'c:granted']);
    expect(holders(queue)).toEqual(['a', 'b', 'c']);
  });

  it('denies an overlapping request without --queue, naming the holder', () => {
    const { queue, answers } = play([req('a', ['src']), req('b', ['src/api'], false)]);
    expect(answers[1]).toEqual([
      'b',
      { kind: 'denied', reason: 'busy', blockers: [{ run: 'a', scopes: ['src'], holds: true }] },
    ]);
    expect(waiters(queue)).toEqual([]);
  });

  it('queues an overlapping request with --queue, and grants it when the holder releases', () => {
    const { queue, answers } = play([req('a', ['.']), req('b', ['src'], true, 5), rel('a', 9)]);
    expect(kinds(answers)).toEqual(['a:granted', 'b:queued', 'b:granted']);
    expect(answers[1]![1]).toEqual({ kind: 'queued', blockers: [{ run: 'a', scopes: ['.'], holds: true }] });
    expect(queue.holders).toEqual([{ run: 'b', scopes: ['src'], wait: true, requestedAtMs: 5, grantedAtMs: 9 }]);
  });

  it('FIFO: a request that overlaps only an earlier waiter waits behind it (and is denied without --queue)', () => {
    // a holds src; b waits for src and docs; c wants only docs, free now, but b is ahead of it.
    const { queue, answers } = play([
      req('a', ['src']),
      req('b', ['src', 'docs']),
      req('c', ['docs']),
      req('d', ['docs'], false),
    ]);
    expect(kinds(answers)).toEqual(['a:granted', 'b:queued', 'c:queued', 'd:denied']);
    expect(answers[3]![1]).toMatchObject({
      blockers: [
        { run: 'b', holds: false },
        { run: 'c', holds: false },
      ],
    });
    expect(waiters(queue)).toEqual(['b', 'c']);
    const after = play([rel('a')], queue);
    expect(kinds(after.answers)).toEqual(['b:granted']);
    expect(kinds(play([rel('b')], after.queue).answers)).toEqual(['c:granted']);
  });

  it('a release grants every waiter that is free, in order, and never two overlapping ones', () => {
    const start = play([
      req('h', ['.']),
      req('w1', ['src/a']),
      req('w2', ['src/b']),
      req('w3', ['src']),
      req('w4', ['docs']),
    ]);
    const { queue, answers } = play([rel('h')], start.queue);
    expect(kinds(answers)).toEqual(['w1:granted', 'w2:granted', 'w4:granted']);
    expect(waiters(queue)).toEqual(['w3']);
  });

  it('a repeated request keeps its place; a holder asking again hears it holds', () => {
    const { queue, answers } = play([
      req('a', ['src']),
      req('b', ['src']),
      req('c', ['src']),
      req('b', ['src']),
      req('a', ['src']),
    ]);
    expect(kinds(answers)).toEqual(['a:granted', 'b:queued', 'c:queued', 'a:granted']);
    expect(waiters(queue)).toEqual(['b', 'c']);
  });

  it('a release of an unknown run changes nothing', () => {
    const start = play([req('a', ['src'])]);
    expect(play([rel('zzz')], start.queue)).toEqual({ queue: start.queue, answers: [] });
  });
});

describe('decide: leaving the queue', () => {
  const start = play([req('h', ['src']), req('w1', ['src']), req('w2', ['src/x']), req('w3', ['docs'])]).queue;

  it('a stopped waiter (release) leaves; those behind it move up', () => {
    const { queue, answers } = play([rel('w1'), rel('h')], start);
    expect(kinds(answers)).toEqual(['w2:granted']);
    expect(waiters(queue)).toEqual([]);
  });

  it('queue remove denies the waiter with reason removed, naming what it waited for', () => {
    const { queue, answers } = play([{ type: 'remove', run: 'w1', now: 1 }], start);
    expect(answers).toEqual([
      ['w1', { kind: 'denied', reason: 'removed', blockers: [{ run: 'h', scopes: ['src'], holds: true }] }],
    ]);
    expect(waiters(queue)).toEqual(['w2']);
    expect(holders(queue)).toEqual(['h', 'w3']);
  });

  it('queue remove does not touch holders', () => {
    expect(play([{ type: 'remove', run: 'h', now: 1 }], start).queue).toEqual(start);
  });

  it('withFacts shows the queue after facts heard but not yet decided, and decides nothing itself', () => {
    const heard: QueueFact[] = [rel('w1'), req('w4', ['docs/a'])];
    const seen = withFacts(start, heard);
    expect(seen).toEqual(play(heard, start).queue);
    expect(waiters(seen)).toEqual(['w2', 'w4']);
    expect(withFacts(start, [])).toBe(start);
    expect(waiters(start)).toEqual(['w1', 'w2']);
  });

  it('runs found gone by the liveness check free their scopes', () => {
    const { queue, answers } = play([{ type: 'gone', runs: ['h', 'w2'], now: 3 }], start);
    expect(kinds(answers)).toEqual(['w1:granted']);
    expect(holders(queue)).toEqual(['w3', 'w1']);
    expect(waiters(queue)).toEqual([]);
  });
});

describe('decide: rebuild', () => {
  it('restored holders block overlapping requests and are not granted twice', () => {
    const { queue, answers } = play([
      { type: 'restore', holders: [{ run: 'old', scopes: ['src'], sinceMs: 1 }], now: 2 },
      req('new', ['src/a'], false),
      req('other', ['docs'], false),
      { type: 'restore', holders: [{ run: 'old', scopes: ['src'], sinceMs: 1 }], now: 3 },
    ]);
    expect(kinds(answers)).toEqual(['new:denied', 'other:granted']);
    expect(holders(queue)).toEqual(['old', 'other']);
  });

  it('a run that re-requested before the rebuild found it holding stops waiting', () => {
    const { queue } = play([{ type: 'request', run: 'h', scopes: ['src'], wait: true, now: 1 }, req('w', ['src'])]);
    expect(waiters(queue)).toEqual(['w']);
    const restored = play([{ type: 'restore', holders: [{ run: 'w', scopes: ['src'], sinceMs: 0 }], now: 2 }], queue);
    expect(holders(restored.queue)).toEqual(['h', 'w']);
    expect(waiters(restored.queue)).toEqual([]);
  });
});

describe('decide: many contending runs', () => {
  it('never holds two overlapping claims at once, grants in FIFO order per overlap, and drains', () => {
    const pool = [['.'], ['src'], ['src/a'], ['src/b'], ['docs'], ['src/a', 'docs']];
    let queue = EMPTY_QUEUE;
    const order: string[] = [];
    const requested: string[] = [];
    const claims = new Map<string, string[]>();
    const apply = (fact: QueueFact) => {
      const d = decide(queue, fact);
      queue = d.queue;
      for (const a of d.answers) if (a.answer.kind === 'granted') order.push(a.run);
      for (let i = 0; i < queue.holders.length; i += 1) {
        for (let j = i + 1; j < queue.holders.length; j += 1)
          expect(claimsOverlap(queue.holders[i]!.scopes, queue.holders[j]!.scopes)).toBe(false);
      }
    };
    for (let i = 0; i < 60; i += 1) {
      const run = `r${i}`;
      claims.set(run, pool[(i * 7) % pool.length]!);
      requested.push(run);
      apply(req(run, claims.get(run)!));
      // Every third step the oldest holder finishes.
      if (i % 3 === 2 && queue.holders.length) apply(rel(queue.holders[0]!.run));
    }
    while (queue.holders.length) apply(rel(queue.holders[0]!.run));
    expect(queue.waiters).toEqual([]);
    expect(new Set(order)).toEqual(new Set(requested));
    // FIFO: of two overlapping requests, the earlier is granted first.
    for (let i = 0; i < requested.length; i += 1) {
      for (let j = i + 1; j < requested.length; j += 1) {
        const [a, b] = [requested[i]!, requested[j]!];
        if (claimsOverlap(claims.get(a)!, claims.get(b)!)) expect(order.indexOf(a)).toBeLessThan(order.indexOf(b));
      }
    }
  });
});
