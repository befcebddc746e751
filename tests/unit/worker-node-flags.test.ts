/** The Node flags an on-demand checkout worker starts with (client/hosting/checkout-worker.ts). */
import { describe, expect, it } from 'vitest';
import { workerNodeFlags } from '../../client/hosting/checkout-worker.js';

describe('an on-demand checkout worker’s Node flags', () => {
  it('cap the young generation by default', () => {
    expect(workerNodeFlags({})).toEqual(['--max-semi-space-size=4']);
  });

  it('are replaced by LL_WORKER_NODE_FLAGS, which may be empty', () => {
    expect(workerNodeFlags({ LL_WORKER_NODE_FLAGS: '--max-old-space-size=512  --max-semi-space-size=2' })).toEqual([
      '--max-old-space-size=512',
      '--max-semi-space-size=2',
    ]);
    expect(workerNodeFlags({ LL_WORKER_NODE_FLAGS: '' })).toEqual([]);
  });
});
