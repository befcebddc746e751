/**
 * When a guarded action takes the checkout's listing made ahead of it (activities/listing-ahead.ts):
 * only after a check ended in a checkout where a guarded action ran lately, only for a guarded
 * action in that checkout, and only when nothing of the worker started since the listing began
 * or ran while it was made.
 */
import { describe, expect, it } from 'vitest';
import { ListingAhead } from '../../activities/listing-ahead.js';

/** A lister that answers each checkout with its name, and counts its calls. */
function lister() {
  const calls: string[] = [];
  const list = (cwd: string) => {
    calls.push(cwd);
    return Promise.resolve([`${cwd}/tests/test_a.py`]);
  };
  return { calls, list };
}

/** A guarded action that ran and ended in `cwd`, then a check that ended there. */
function afterGuardedThenCheck(ahead: ListingAhead, cwd: string): void {
  void ahead.enterGuarded(cwd);
  ahead.leave(cwd, true);
  ahead.enter();
  ahead.leave(cwd);
}

describe('a listing made ahead of a guarded action', () => {
  it('is made when a check ends where a guarded action ran, and taken by the next guarded action there', async () => {
    const { calls, list } = lister();
    const ahead = new ListingAhead(list);
    afterGuardedThenCheck(ahead, '/a');
    expect(calls).toEqual(['/a']);
    const taken = ahead.enterGuarded('/a');
    expect(await taken).toEqual(['/a/tests/test_a.py']);
    // Taken once: the guarded action's own end makes none, and the next guarded action lists for itself.
    ahead.leave('/a', true);
    expect(ahead.enterGuarded('/a')).toBeUndefined();
  });

  it('is not made where no guarded action ran, nor after a guarded action itself', () => {
    const { calls, list } = lister();
    const ahead = new ListingAhead(list);
    ahead.enter();
    ahead.leave('/a');
    void ahead.enterGuarded('/a');
    ahead.leave('/a', true);
    expect(calls).toEqual([]);
  });

  it('is not taken by a guarded action elsewhere, nor by any action that is not guarded', () => {
    const { list } = lister();
    const ahead = new ListingAhead(list);
    afterGuardedThenCheck(ahead, '/a');
    expect(ahead.enterGuarded('/b')).toBeUndefined();
    ahead.leave();
    afterGuardedThenCheck(ahead, '/a');
    // An action that is not guarded takes nothing and drops the listing.
    ahead.enter();
    expect(ahead.enterGuarded('/a')).toBeUndefined();
  });

  it('is dropped when anything of the worker starts before the guarded action', () => {
    const { list } = lister();
    const ahead = new ListingAhead(list);
    afterGuardedThenCheck(ahead, '/a');
    const hook = ahead.around(async () => 'ran');
    return hook().then((ran) => {
      expect(ran).toBe('ran');
      expect(ahead.enterGuarded('/a')).toBeUndefined();
    });
  });

  it('is not made while another action of the worker still runs', () => {
    const { calls, list } = lister();
    const ahead = new ListingAhead(list);
    void ahead.enterGuarded('/a');
    ahead.leave('/a', true);
    ahead.enter(); // a long check of another run
    ahead.enter();
    ahead.leave('/a'); // this check ends while the other still runs
    expect(calls).toEqual([]);
    expect(ahead.enterGuarded('/a')).toBeUndefined();
  });

  it('is not made without the spawner, nor an hour after the last guarded action', () => {
    const down = new ListingAhead(() => undefined);
    afterGuardedThenCheck(down, '/a');
    expect(down.enterGuarded('/a')).toBeUndefined();
    let now = 0;
    const { calls, list } = lister();
    const ahead = new ListingAhead(list, () => now);
    void ahead.enterGuarded('/a');
    ahead.leave('/a', true);
    now = 60 * 60 * 1000 + 1;
    ahead.enter();
    ahead.leave('/a');
    expect(calls).toEqual([]);
  });

  it('that failed is taken as none: the guarded action lists for itself', async () => {
    const ahead = new ListingAhead(() => Promise.reject(new Error('spawner gone')));
    afterGuardedThenCheck(ahead, '/a');
    expect(await ahead.enterGuarded('/a')).toBeUndefined();
  });
});
