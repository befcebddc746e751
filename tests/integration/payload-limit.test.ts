/**
 * Temporal's own refusal of an oversized start (a server whose limit is lower than the one the
 * loader checks) becomes one plain error with the size, the limit and the fix, at once.
 */
import { afterAll, expect, it } from 'vitest';
import { payloadRefusal } from '../../runs/start/start-limits.js';
import { closeTemporal, temporal } from './harness.js';

afterAll(closeTemporal);

it("the server's refusal of a payload over its limit is said plainly", async () => {
  const { client } = await temporal();
  const input = { definition: { description: 'x'.repeat(2_200_000) } };
  const err = await client.workflow
    .start('loopWorkflow', { workflowId: `payload-${Date.now()}`, taskQueue: 'nobody-polls-this', args: [input] })
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  expect(err).toBeDefined();
  const said = payloadRefusal(err, 2_200_040);
  expect(said?.message).toMatch(
    /Temporal refused to start the run: its input is 2\.1 MiB, over this server's payload limit/,
  );
  expect(said?.fix).toMatch(/limit\.blobSize\.error/);
  expect(payloadRefusal(new Error('other'), 10)).toBeUndefined();
});
