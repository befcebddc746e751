/** Which project's worker a command brings back for a run of another project (runs/workers/revive-run-checkout.ts). */
import { describe, expect, it } from 'vitest';
import { rootOnThisHost } from '../../runs/workers/revive-run-checkout.js';

describe('rootOnThisHost', () => {
  it('is the root of a run’s checkout on this host, and nothing for another host or none', () => {
    expect(rootOnThisHost('vm:/home/me/p2', 'vm')).toBe('/home/me/p2');
    expect(rootOnThisHost('vm2:/home/me/p2', 'vm')).toBeUndefined();
    expect(rootOnThisHost('other:/home/me/p2', 'vm')).toBeUndefined();
    expect(rootOnThisHost(undefined, 'vm')).toBeUndefined();
  });
});
