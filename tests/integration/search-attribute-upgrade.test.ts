/**
 * An embedded server started by an earlier release lacks the search attributes added since (here
 * LoopCheckout, which loop names are resolved by): the next ll-loop that finds it running
 * registers them, before any run is started or looked up on it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { connectClient } from '../../temporal/connection.js';
import { ensureDevServer, stopDevServer } from '../../temporal/dev-server.js';
import { freePort, until } from '../support/processes.js';

let dir: string | undefined;

afterAll(async () => {
  if (!dir) return;
  await stopDevServer(join(dir, '.temporal'), { graceMs: 3_000 });
  await rm(dir, { recursive: true, force: true });
}, 60_000);

it(
  'a running server without LoopCheckout gets it registered when ll-loop reuses it',
  { timeout: 120_000 },
  async () => {
    dir = await mkdtemp(join(tmpdir(), 'll-loop-sa-upgrade-'));
    const dataDir = join(dir, '.temporal');
    const [port, uiPort] = [await freePort(), await freePort()];
    const first = await ensureDevServer({ dataDir, port, uiPort });
    const { connection } = await connectClient({ address: first.address, namespace: 'default' });
    const custom = async () =>
      (await connection.operatorService.listSearchAttributes({ namespace: 'default' })).customAttributes ?? {};
    try {
      // The server as an earlier release left it: LoopName and the others, no LoopCheckout.
      await connection.operatorService.removeSearchAttributes({
        namespace: 'default',
        searchAttributes: ['LoopCheckout'],
      });
      await until('LoopCheckout to be gone', async () => ('LoopCheckout' in (await custom()) ? undefined : true));
      expect(await custom()).toHaveProperty('LoopName');

      const again = await ensureDevServer({ dataDir, port, uiPort });
      expect(again.started).toBe(false);
      expect(await custom()).toHaveProperty('LoopCheckout');
    } finally {
      await connection.close();
    }
  },
);
