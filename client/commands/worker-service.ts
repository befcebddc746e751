/**
 * `ll-loop worker install|status|stop|uninstall`: managing the checkout's worker from outside
 * (worker-install.ts, worker-status.ts). `ll-loop worker` itself (worker-spec.ts) hands over here
 * when its first argument is one of these actions.
 */
import { bool, str, type CommandContext, type Flags } from '../command-table.js';
import { UsageError } from '../../errors/errors.js';
import type { ServiceContext } from '../../worker/service/context.js';
import { workerInstall, workerUninstall } from './worker-install.js';
import { DEFAULT_WORKER_STOP_WAIT_S, workerStatus, workerStop } from './worker-status.js';

export const WORKER_SERVICE_USAGE = 'worker install|status|stop|uninstall [--dry-run] [--wait S] [--force] [--json]';

/** Flags of the actions; `ll-loop worker` declares them too, as its parser is strict. */
export const WORKER_SERVICE_FLAGS: Flags = {
  json: { type: 'boolean' },
  'dry-run': { type: 'boolean' },
  force: { type: 'boolean' },
  wait: { type: 'string' },
};

/** Which action takes which of the flags above (`--json` goes everywhere). */
const ACTION_FLAGS: Record<string, readonly string[]> = {
  install: ['json', 'dry-run'],
  uninstall: ['json'],
  status: ['json'],
  stop: ['json', 'force', 'wait'],
};

function waitSeconds(ctx: CommandContext): number {
  const text = str(ctx, 'wait');
  if (text === undefined) return DEFAULT_WORKER_STOP_WAIT_S;
  const n = Number(text);
  if (!Number.isFinite(n) || n < 0)
    throw new UsageError(
      `--wait needs a number of seconds, not "${text}"`,
      `e.g. ll-loop worker stop --wait ${DEFAULT_WORKER_STOP_WAIT_S}`,
    );
  return n;
}

/**
 * The action named by the first argument, run; undefined when there is none (the worker itself
 * runs). Flags belong to their action: a worker flag given to an action, or an action's flag
 * given to the worker, is a usage error rather than silently ignored.
 */
export function runWorkerService(ctx: CommandContext): Promise<number> | undefined {
  const action = ctx.positionals[0];
  const given = Object.keys(ctx.values).filter((name) => ctx.values[name] !== undefined);
  if (action === undefined || !Object.hasOwn(ACTION_FLAGS, action)) {
    const misplaced = given.filter((name) => name !== 'json' && Object.hasOwn(WORKER_SERVICE_FLAGS, name));
    if (misplaced.length)
      throw new UsageError(
        `--${misplaced[0]} belongs to an action of ll-loop worker`,
        `ll-loop ${WORKER_SERVICE_USAGE}`,
      );
    return undefined;
  }
  if (ctx.positionals.length > 1)
    throw new UsageError(
      `unexpected arguments: ${ctx.positionals.slice(1).join(' ')}`,
      `ll-loop ${WORKER_SERVICE_USAGE}`,
    );
  const foreign = given.filter((name) => !ACTION_FLAGS[action]!.includes(name));
  if (foreign.length)
    throw new UsageError(`ll-loop worker ${action} takes no --${foreign[0]}`, `ll-loop ${WORKER_SERVICE_USAGE}`);
  const service: ServiceContext = {
    cwd: ctx.cwd,
    env: process.env,
    platform: process.platform,
    json: bool(ctx, 'json'),
    out: ctx.out,
    err: ctx.err,
  };
  switch (action) {
    case 'install':
      return workerInstall(service, { dryRun: bool(ctx, 'dry-run') });
    case 'uninstall':
      return workerUninstall(service);
    case 'status':
      return workerStatus(service);
    default:
      return workerStop(service, { waitS: waitSeconds(ctx), force: bool(ctx, 'force') });
  }
}
