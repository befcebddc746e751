/** `ll-loop worker` flags → workerCommand. */
import { str, type CommandSpec } from '../command-table.js';
import { UsageError } from '../../errors/errors.js';
import { DEFAULT_SHARED_QUEUE } from '../../runs/start/start-run.js';
import { serveCheckout } from '../../worker/hosting/serve-checkout.js';
import { servePool } from '../../worker/hosting/serve-pool.js';
import { workerCommand } from '../../worker/hosting/queue-worker.js';
import { runOptionsFromArgv } from './run-flags.js';
import { runWorkerService, WORKER_SERVICE_FLAGS, WORKER_SERVICE_USAGE } from './worker-service.js';

export const workerSpec: CommandSpec = {
  usage: `worker [--pool NAME | --task-queue Q]   the checkout's worker (started on demand by any command), a pool worker, or a worker for a task queue\n  ll-loop ${WORKER_SERVICE_USAGE}  the checkout's worker: user service, state, stop`,
  flags: {
    'task-queue': { type: 'string' },
    pool: { type: 'string' },
    'until-closed': { type: 'string' },
    ...WORKER_SERVICE_FLAGS,
  },
  run(ctx) {
    const service = runWorkerService(ctx);
    if (service) return service;
    if (ctx.positionals.length)
      throw new UsageError(
        `unexpected arguments: ${ctx.positionals.join(' ')}`,
        'll-loop worker [--task-queue Q] [--until-closed <run-id>]',
      );
    const pool = str(ctx, 'pool');
    if (pool !== undefined) {
      if (str(ctx, 'task-queue') !== undefined)
        throw new UsageError(
          '--pool and --task-queue cannot be combined',
          "a pool worker polls its pool's queues: ll-loop worker --pool NAME",
        );
      return servePool({ cwd: ctx.cwd, pool, out: ctx.out });
    }
    // No queue named: the worker of the checkout it is started in.
    if (str(ctx, 'task-queue') === undefined && str(ctx, 'until-closed') === undefined) {
      const startedBy =
        process.env.LL_WORKER_STARTED_BY === 'on-demand' || process.env.LL_WORKER_STARTED_BY === 'service'
          ? process.env.LL_WORKER_STARTED_BY
          : 'foreground';
      return serveCheckout({ cwd: ctx.cwd, out: ctx.out, startedBy, parseRun: runOptionsFromArgv });
    }
    const taskQueue = str(ctx, 'task-queue') ?? DEFAULT_SHARED_QUEUE;
    if (taskQueue.trim() === '')
      throw new UsageError('--task-queue needs a task queue name', `omit it to use ${DEFAULT_SHARED_QUEUE}`);
    const untilClosed = str(ctx, 'until-closed');
    return workerCommand({
      cwd: ctx.cwd,
      taskQueue,
      out: ctx.out,
      ...(untilClosed === undefined ? {} : { untilClosed }),
    });
  },
};
