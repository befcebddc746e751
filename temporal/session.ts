/**
 * A client connection for commands that talk to Temporal (status, stop, list, history…): the
 * external cluster from TEMPORAL_ADDRESS, or the project's embedded dev server (started if it is
 * not running: its runs are on disk). Connection failures are InfrastructureErrors (exit 7)
 * within a few seconds, never a hang.
 */
import type { Client, Connection } from '@temporalio/client';
import {
  clientFor,
  connectClient,
  resolveEndpoint,
  resolveTemporalTarget,
  TemporalUnavailableError,
  type TemporalEndpoint,
} from './connection.js';
import { embeddedServerOptions } from './embedded.js';
import { CliError, InfrastructureError } from '../errors/errors.js';

export interface Session {
  client: Client;
  connection: Connection;
  /** `started`: this session (re)started the embedded server; `foreign`: the server on its port is another's. */
  endpoint: TemporalEndpoint & { uiUrl?: string; started?: boolean; foreign?: boolean };
  close(): Promise<void>;
}

export async function openSession(cwd: string): Promise<Session> {
  let endpoint: Session['endpoint'];
  // The connection that found the embedded server running, when it was: the session's own.
  let handedOver: Connection | undefined;
  try {
    ({ connection: handedOver, ...endpoint } = await resolveEndpoint(resolveTemporalTarget(), {
      ...embeddedServerOptions(cwd),
      keepConnection: true,
    }));
  } catch (err) {
    if (err instanceof CliError) throw err;
    if (err instanceof TemporalUnavailableError) throw new InfrastructureError(err.message);
    throw new InfrastructureError(`cannot start or reach Temporal: ${(err as Error).message}`, 'see docs/temporal.md');
  }
  let connected: Awaited<ReturnType<typeof connectClient>>;
  try {
    connected = await clientFor({ ...endpoint, ...(handedOver ? { connection: handedOver } : {}) });
  } catch (err) {
    if (err instanceof TemporalUnavailableError) throw new InfrastructureError(err.message);
    throw err;
  }
  const { client, connection } = connected;
  return { client, connection, endpoint, close: () => connection.close().catch(() => undefined) };
}

/** Open a session, run `fn`, always close. */
export async function withSession<T>(cwd: string, fn: (session: Session) => Promise<T>): Promise<T> {
  const session = await openSession(cwd);
  try {
    return await fn(session);
  } finally {
    await session.close();
  }
}
