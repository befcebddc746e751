/**
 * What the worker's handlers of its socket's requests (requests.ts, serve-starts.ts) work with:
 * the worker's session and checkout, and its start queue. The worker's side only: the command's
 * side of the socket (schemas.ts, ask.ts) never names it.
 */
import type { Client } from '@temporalio/client';
import type { Checkout } from '../../host/checkout.js';
import type { Session } from '../../temporal/session.js';
import type { StartQueueRunner } from './start-queue-runner.js';
import type { RunArgvParser } from '../../runs/start/start-from-argv.js';

export interface ServeContext {
  session: Session;
  checkout: Checkout;
  /** A client on the worker's own connection (eager starts), when they are on. */
  starter: Client | undefined;
  queue: StartQueueRunner;
  /** `run`'s parser, for early starts; without it they are refused. */
  parseRun: RunArgvParser | undefined;
  log: (line: string) => void;
}
