/**
 * The checkout worker's half of `ll-loop run`'s early start (early-start.ts): the command line as
 * typed, parsed and loaded here as the command would (the same code: the request's build is this
 * worker's), then started as a `start` request is (start-requested.ts). Whatever the command
 * would report itself is refused, so that it reports it in its own words: a usage error, an
 * invalid loop, a missing provider key, a dry run, a run for another place than this checkout.
 */
import type { Client } from '@temporalio/client';
import type { Checkout } from '../../host/checkout.js';
import type { Session } from '../../temporal/session.js';
import { checkProviderKeys } from './provider-keys.js';
import { refusalOf } from '../../fsm/diagnostics.js';
import { idBaseAt } from './instance-id.js';
import { loadForRun } from './run-loop.js';
import { lockOptionsOf } from './run-options.js';
import type { RunOptions } from './run-options.js';
import { startRequested } from './start-requested.js';
import type { WorkerArgvStartReply, WorkerArgvStartRequest, WorkerStartRequest } from '../transport/schemas.js';

/** How the worker reads `run`'s command line: the CLI's own parser (client/commands/run-flags.ts), handed down. */
export type RunArgvParser = (argv: readonly string[], invokedIn: string) => RunOptions;

/** The start `r.argv` asks for, as a `start` request, and whether it is a `--background` one. */
export interface ArgvStart {
  request: WorkerStartRequest;
  background: boolean;
  json: boolean;
}

/** Parse and load `r.argv` as the command would; a refusal for whatever the command must report itself. */
export function prepareFromArgv(
  r: WorkerArgvStartRequest,
  parse: RunArgvParser,
  checkout: Checkout,
): ArgvStart | Extract<WorkerArgvStartReply, { kind: 'refused' }> {
  const refused = (why: string) => ({ kind: 'refused', why }) as const;
  let opts: RunOptions;
  try {
    opts = parse(r.argv, r.cwd);
  } catch (err) {
    return refused(`the command line: ${(err as Error).message}`);
  }
  if (opts.dryRun) return refused('a dry run');
  if (opts.place !== undefined && opts.place.kind !== 'checkout') return refused('the run goes elsewhere');
  if (opts.cwd !== checkout.root) return refused(`the command's project is ${opts.cwd}`);
  const loaded = loadForRun(opts);
  if ('diagnostics' in loaded) return refused(refusalOf(loaded.file, loaded.diagnostics));
  try {
    checkProviderKeys(loaded.definition, r.env);
  } catch (err) {
    return refused((err as Error).message);
  }
  return {
    background: opts.background === true,
    json: opts.json,
    request: {
      kind: 'start',
      code_id: r.code_id,
      address: r.address,
      root: r.root,
      definition: loaded.definition,
      file: loaded.file,
      cwd: opts.cwd,
      id_base: idBaseAt(loaded.definition.name, r.stamp),
      env: r.env,
      data_context: loaded.dataContext,
      lock: lockOptionsOf(opts),
      background: opts.background === true,
    },
  };
}

/** Start a prepared request; the answer carries the loop as loaded (the command follows that one). */
export async function startPrepared(
  request: WorkerStartRequest,
  session: Pick<Session, 'client' | 'connection' | 'endpoint'>,
  checkout: Checkout,
  starter?: Client,
): Promise<Extract<WorkerArgvStartReply, { kind: 'started' }>> {
  const started = await startRequested(request, session, checkout, starter);
  return { ...started, definition: request.definition, file: request.file, data_context: request.data_context };
}
