/**
 * `ll-loop queue list [--json]` and `ll-loop queue remove <run-id> [--json]`: the scope locks —
 * per lock domain, the runs holding scopes and the runs waiting for them, in order, with how long
 * each has waited — and taking a waiting run out of its queue (it ends as a busy run, exit 8).
 */
import { formatDuration } from '../../fsm/format.js';
import { bool, JSON_FLAG, type CommandContext, type CommandSpec } from '../command-table.js';
import { UsageError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { table } from '../../reporters/table.js';
import type { LockQueueReport } from '../../runs/scopes/scope-queues.js';
import { runsService } from '../../runs/service/runs-service.js';
import { removeRunEnv } from '../../host/run-env.js';

const USAGE = 'queue list [--json] | queue remove <run-id> [--json]   scope locks: who holds, who waits (in order)';

function printQueues(reports: LockQueueReport[], out: (t: string) => void): void {
  const busy = reports.filter((r) => r.holders.length + r.waiters.length > 0);
  if (busy.length === 0) {
    out('no run holds or waits for a scope\n');
    return;
  }
  for (const r of busy) {
    out(`${r.domain}  (lock ${r.lock_workflow_id})\n`);
    const rows = [
      ['', 'run', 'scopes', 'waited', 'held'],
      ...r.holders.map((h) => [
        'holds',
        h.run,
        h.scopes.join(', '),
        formatDuration(h.waited_ms),
        formatDuration(h.held_ms),
      ]),
      ...r.waiters.map((w) => [`waits #${w.position}`, w.run, w.scopes.join(', '), formatDuration(w.waiting_ms), '-']),
    ];
    out(table(rows.map((row) => ['  ' + row[0]!, ...row.slice(1)])));
  }
}

/** The locks listed on a connection of this command's own (the SDK loaded only now). */
async function list(ctx: CommandContext): Promise<number> {
  if (ctx.positionals.length > 1)
    throw new UsageError(`unexpected arguments: ${ctx.positionals.slice(1).join(' ')}`, 'll-loop queue list [--json]');
  // The checkout's worker lists them when it can (no SDK here); otherwise this command does.
  const reports = await runsService().queues(ctx.cwd);
  if (bool(ctx, 'json')) ctx.out(`${JSON.stringify(reports, null, 2)}\n`);
  else printQueues(reports, ctx.out);
  return EXIT.ok;
}

async function remove(ctx: CommandContext): Promise<number> {
  const [, run, ...rest] = ctx.positionals;
  if (run === undefined || rest.length)
    throw new UsageError(
      'queue remove needs exactly one run id',
      'll-loop queue remove <run-id> (see ll-loop queue list)',
    );
  const [{ removeFromQueue }, { withSession }] = await Promise.all([
    import('../../runs/scopes/scope-queues.js'),
    import('../../temporal/session.js'),
  ]);
  const removed = await withSession(ctx.cwd, ({ client }) => removeFromQueue(client, run));
  // It never starts: the environment its command left (secrets included) goes now.
  removeRunEnv(run);
  if (bool(ctx, 'json'))
    ctx.out(`${JSON.stringify({ removed: run, domain: removed.domain, lock_workflow_id: removed.lockWorkflowId })}\n`);
  else ctx.out(`removed ${run} from the queue of ${removed.domain}; it ends as a busy run (exit 8)\n`);
  return EXIT.ok;
}

export const queueSpec: CommandSpec = {
  usage: USAGE,
  flags: JSON_FLAG,
  run(ctx) {
    const action = ctx.positionals[0];
    if (action === 'list' || action === undefined) return list(ctx);
    if (action === 'remove') return remove(ctx);
    throw new UsageError(`unknown queue action "${action}"`, 'll-loop queue list, or ll-loop queue remove <run-id>');
  },
};
