/**
 * `ll-loop ui`'s run status (ui/server/run-actions.ts) against the test run's server: a run the
 * server does not know is `unknown` (the route's 404), not a closed or silent run (null).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { runStatus } from '../../ui/server/run-actions.js';
import type { Session } from '../../temporal/session.js';
import { closeTemporal, temporal } from './harness.js';

afterAll(closeTemporal);

describe('ll-loop ui: a run status', () => {
  it('is unknown for a run the server does not have', async () => {
    const { client } = await temporal();
    const session = { client, connection: client.connection } as unknown as Session;
    expect(await runStatus(session, `nobody-${Date.now()}`)).toBe('unknown');
  });
});
