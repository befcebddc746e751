/**
 * The worker's handlers of the two start requests (requests.ts `start`, `start_argv`): the start
 * the command would have made (runs/start/start-requested.ts), on the worker's client, counted
 * among the starts whose scope lock has not answered yet (worker/socket/unanswered-starts.ts).
 * A start is made once: its error is the command's error, never a reason to start again.
 */
import { runInfo } from '../../runs/find/run-info.js';
import { startRequested } from '../../runs/start/start-requested.js';
import { prepareFromArgv, startPrepared } from '../../runs/start/start-from-argv.js';
import { errorReply } from './start-error-reply.js';
import type { ServeContext } from './serve-context.js';
import type {
  WorkerArgvStartReply,
  WorkerArgvStartRequest,
  WorkerStartReply,
  WorkerStartRequest,
} from '../../runs/transport/schemas.js';

/** The worker's server, for the follower's RunInfo without connecting. */
function serverOf({ session }: ServeContext): { namespace: string; ui_url?: string } {
  const { namespace, uiUrl } = session.endpoint;
  return { namespace, ...(uiUrl ? { ui_url: uiUrl } : {}) };
}

/** `start`: a loop the command loaded. */
export async function serveStart(request: WorkerStartRequest, ctx: ServeContext): Promise<WorkerStartReply> {
  const { session, checkout, starter, queue } = ctx;
  const started = await queue.unanswered.followed(request, checkout, () =>
    startRequested(request, session, checkout, starter),
  );
  return { ...started, ...serverOf(ctx) };
}

/**
 * `start_argv`: the command line as typed, parsed and loaded as the command would; what the
 * command must report itself (a usage error, an invalid loop, a dry run) is refused.
 */
export async function serveArgvStart(
  request: WorkerArgvStartRequest,
  ctx: ServeContext,
): Promise<WorkerArgvStartReply> {
  const { session, checkout, starter, queue, parseRun, log } = ctx;
  if (!parseRun) return { kind: 'refused', why: "this worker does not read run's command line" };
  let prepared: ReturnType<typeof prepareFromArgv>;
  try {
    prepared = prepareFromArgv(request, parseRun, checkout);
  } catch (err) {
    // What loading the loop throws (a --context it does not take) is the command's error.
    return errorReply(err);
  }
  if ('kind' in prepared) {
    log(`an early start was refused (${prepared.why}); the command starts its run itself`);
    return prepared;
  }
  // `--background`: answered once the start is queued for good; the run starts from the queue.
  if (prepared.background) {
    const { request: started, json } = prepared;
    const id = await queue.accept(started);
    log(`${id}: queued for ll-loop run --background`);
    const url = runInfo(session.endpoint, started.cwd, id).uiUrl;
    return { kind: 'queued', instance_id: id, task_queue: checkout.queue, json, ...(url ? { run_url: url } : {}) };
  }
  const early = prepared.request;
  const reply = await queue.unanswered.followed(early, checkout, () =>
    startPrepared(early, session, checkout, starter),
  );
  return { ...reply, ...serverOf(ctx) };
}
