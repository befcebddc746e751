/**
 * How a long-lived worker process (the checkout's, a pool's) runs: its Temporal workers poll
 * until SIGINT or SIGTERM, which drains them (no new work; running actions get the drain time);
 * a second signal exits at once. SIGHUP is ignored: a closed terminal or SSH session is not a
 * reason to stop serving. One of its workers failing stops the others, and so does `stopWhen`
 * (the one run a worker serves has closed). The only shutdown path of every worker process.
 */
import type { Worker } from '@temporalio/worker';
import { EXIT } from '../../errors/exit-codes.js';

/** `LL_WORKER_DRAIN_S`: how long running actions may finish once a worker drains. */
export function drainSeconds(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.LL_WORKER_DRAIN_S ?? 600);
  return Number.isFinite(n) && n >= 0 ? n : 600;
}

export interface ServeOptions {
  log: (line: string) => void;
  /** Seconds running actions may take once draining begins (the workers' shutdown grace time). */
  graceSeconds: number;
  /** Drain when this resolves, with its value as the reason. */
  stopWhen?: Promise<string>;
  /** Called once polling has begun (publish the worker's record, log where it serves). */
  started: () => void;
  /** Called once when draining begins, after the workers stop polling (give up a claim). */
  draining?: () => void;
}

/** Run `workers` until stopped; resolves once they have drained, rejects if one failed. */
export async function serveUntilStopped(workers: Worker[], opts: ServeOptions): Promise<void> {
  let stopping = false;
  const drain = (why: string) => {
    if (stopping) return;
    stopping = true;
    opts.log(`draining (${why}): no new work is taken; running actions may finish within ${opts.graceSeconds} s`);
    for (const w of workers) w.shutdown();
    opts.draining?.();
  };
  const onSignal = (signal: NodeJS.Signals) => (stopping ? process.exit(EXIT.cancelled) : drain(signal));
  const onHangup = () => opts.log('SIGHUP ignored: the worker keeps serving');
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onHangup);
  try {
    const running = workers.map((w) =>
      w.run().catch((err: unknown) => {
        drain(`a worker failed: ${(err as Error).message}`);
        throw err;
      }),
    );
    opts.started();
    void opts.stopWhen?.then(drain, (err: unknown) => drain(`cannot tell when to stop: ${(err as Error).message}`));
    await Promise.all(running);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.off('SIGHUP', onHangup);
  }
}
