/** The Node flags an on-demand checkout worker starts with (runs/workers/checkout-worker.ts). */
import { describe, expect, it } from 'vitest';
import { workerEnv, workerNodeFlags } from '../../runs/workers/checkout-worker.js';

describe('an on-demand checkout worker’s Node flags', () => {
  it('cap the young generation and drop code not run lately, by default', () => {
    expect(workerNodeFlags({})).toEqual(['--max-semi-space-size=2', '--bytecode-old-age=2', '--flush-baseline-code']);
  });

  it('are replaced by LL_WORKER_NODE_FLAGS, which may be empty', () => {
    expect(workerNodeFlags({ LL_WORKER_NODE_FLAGS: '--max-old-space-size=512  --max-semi-space-size=2' })).toEqual([
      '--max-old-space-size=512',
      '--max-semi-space-size=2',
    ]);
    expect(workerNodeFlags({ LL_WORKER_NODE_FLAGS: '' })).toEqual([]);
  });

  it('keep malloc to two arenas and return freed blocks, unless the environment says otherwise', () => {
    expect(workerEnv({ PATH: '/bin' })).toEqual({
      PATH: '/bin',
      MALLOC_ARENA_MAX: '2',
      MALLOC_MMAP_THRESHOLD_: '65536',
      MALLOC_TRIM_THRESHOLD_: '131072',
      LL_WORKER_STARTED_BY: 'on-demand',
    });
    expect(workerEnv({ MALLOC_ARENA_MAX: '8' }).MALLOC_ARENA_MAX).toBe('8');
    expect(workerEnv({ LL_WORKER_STARTED_BY: 'service' }).LL_WORKER_STARTED_BY).toBe('on-demand');
  });
});
