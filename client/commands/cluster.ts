/**
 * `ll-loop cluster setup [--check] [--retention D] [--json]`: make the Temporal cluster named by
 * TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE (TLS and API key as the SDK reads them) ready for
 * ll-loop — the namespace, ll-loop's search attributes, served — or, with `--check`, only say
 * whether it is, and warn of the server's settings that cost speed (temporal/server-speed.ts;
 * never a failure). Without the rights, it prints the `temporal operator` commands an
 * administrator runs. Exit 0 ready, 7 not ready (or out of reach).
 */
import { bool, JSON_FLAG, str, type CommandContext, type CommandSpec } from '../command-table.js';
import { InfrastructureError, UsageError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { parseDuration } from '../../runs/schedules/schedules.js';
import { CLUSTER_SETUP_FIX } from '../../errors/cluster-errors.js';
import {
  adminCommands,
  inspectCluster,
  isReady,
  retentionFlag,
  setupCluster,
  type ClusterStatus,
  type SetupOutcome,
} from '../../temporal/cluster-setup.js';
import { connectClient, resolveTemporalTarget, TemporalUnavailableError } from '../../temporal/connection.js';
import { inspectServerSpeed, type ServerSpeed } from '../../temporal/server-speed.js';
import { checkoutAt } from '../../host/checkout.js';

/** Retention of closed runs in a namespace setup creates: long enough for `history` and `list --failed`. */
const DEFAULT_RETENTION = '30d';

const USAGE =
  'cluster setup [--check] [--retention D] [--json]   make the TEMPORAL_ADDRESS cluster ready (namespace, search attributes)';

function describe(s: ClusterStatus): string[] {
  const lines = [
    s.namespaceExists
      ? `namespace ${s.namespace}: exists${s.retentionMs !== undefined ? ` (retention ${retentionFlag(s.retentionMs)})` : ''}`
      : `namespace ${s.namespace}: missing`,
  ];
  if (s.namespaceExists) {
    lines.push(`search attributes: ${s.present.length ? s.present.join(', ') : 'none of ll-loop’s'} registered`);
    if (s.missing.length) lines.push(`missing: ${s.missing.join(', ')}`);
    for (const c of s.conflicts) lines.push(`conflict: ${c.name} is ${c.actual}, ll-loop needs ${c.expected}`);
    lines.push(s.notServed === undefined ? 'served: yes' : `served: not yet (${s.notServed})`);
  }
  return lines;
}

async function setup(ctx: CommandContext): Promise<number> {
  const [, ...rest] = ctx.positionals;
  if (rest.length) throw new UsageError(`unexpected arguments: ${rest.join(' ')}`, USAGE.split('   ')[0]);
  const retentionMs = parseDuration(str(ctx, 'retention') ?? DEFAULT_RETENTION, '--retention');
  const json = bool(ctx, 'json');
  const target = resolveTemporalTarget();
  if (target.mode === 'embedded') {
    if (json) ctx.out(`${JSON.stringify({ embedded: true, ready: true })}\n`);
    else
      ctx.out(
        'nothing to set up: TEMPORAL_ADDRESS is not set, so ll-loop uses its embedded dev server, which has ' +
          'the namespace and search attributes from its start.\n',
      );
    return EXIT.ok;
  }
  let connected: Awaited<ReturnType<typeof connectClient>>;
  try {
    connected = await connectClient(target);
  } catch (err) {
    if (err instanceof TemporalUnavailableError) throw new InfrastructureError(err.message);
    throw err;
  }
  const { connection } = connected;
  try {
    if (bool(ctx, 'check')) {
      const status = await inspectCluster(connection, target.namespace);
      const speed = status.namespaceExists
        ? await inspectServerSpeed(connection, target.namespace, checkoutAt(ctx.cwd).queue)
        : undefined;
      return report(ctx, json, target.address, status, undefined, retentionMs, speed);
    }
    const log = json ? undefined : (line: string) => ctx.out(`${line}\n`);
    const outcome = await setupCluster(connection, target.namespace, { retentionMs, ...(log ? { log } : {}) });
    return report(ctx, json, target.address, outcome.after, outcome, retentionMs);
  } finally {
    await connection.close().catch(() => undefined);
  }
}

function report(
  ctx: CommandContext,
  json: boolean,
  address: string,
  status: ClusterStatus,
  outcome: SetupOutcome | undefined,
  retentionMs: number,
  speed?: ServerSpeed,
): number {
  const ready = isReady(status);
  const commands = ready || status.conflicts.length ? [] : adminCommands(address, status, retentionMs);
  const refused = outcome?.refused ?? [];
  if (json) {
    ctx.out(
      `${JSON.stringify({
        address,
        ...status,
        ready,
        ...(outcome
          ? { created_namespace: outcome.createdNamespace, added_attributes: outcome.addedAttributes, refused }
          : {}),
        ...(commands.length ? { admin_commands: commands } : {}),
        ...(speed ? { speed } : {}),
      })}\n`,
    );
    return ready ? EXIT.ok : EXIT.infrastructure;
  }
  for (const line of describe(status)) ctx.out(`${line}\n`);
  if (speed) reportSpeed(ctx, speed);
  if (ready) {
    const changed = outcome && (outcome.createdNamespace || outcome.addedAttributes.length);
    ctx.out(`ready: ${address} namespace ${status.namespace}${outcome && !changed ? ' (nothing to change)' : ''}\n`);
    return EXIT.ok;
  }
  if (status.conflicts.length) {
    ctx.err(
      `error: ll-loop's search attributes exist with other types in namespace ${status.namespace}\n` +
        'fix: use another namespace (TEMPORAL_NAMESPACE), or have an administrator remove them: ' +
        status.conflicts
          .map((c) => `temporal operator search-attribute remove --namespace ${status.namespace} --name ${c.name}`)
          .join('; ') +
        '\n',
    );
    return EXIT.infrastructure;
  }
  if (refused.length) {
    ctx.err(`error: these credentials may not change the cluster (${refused[0]!.reason})\n`);
    ctx.err('fix: an administrator runs (then `ll-loop cluster setup --check` says ready):\n');
  } else if (!outcome) {
    ctx.err(`error: namespace ${status.namespace} on ${address} is not ready for ll-loop\nfix: ${CLUSTER_SETUP_FIX}\n`);
    ctx.err('  (or an administrator runs:)\n');
  }
  for (const command of commands) ctx.out(`  ${command}\n`);
  return EXIT.infrastructure;
}

/** The server's settings that cost speed: a line of what was found, a warning and its fix per setting (stderr). */
function reportSpeed(ctx: CommandContext, speed: ServerSpeed): void {
  const found = [
    speed.serverVersion ? `Temporal ${speed.serverVersion}` : undefined,
    speed.taskQueuePartitions ? `${speed.taskQueuePartitions} task queue partitions` : undefined,
    speed.timerLateMs !== undefined
      ? `a 1 ms timer fired ${speed.timerLateMs} ms late`
      : `timers not probed (${speed.probeError ?? 'no answer'})`,
  ].filter(Boolean);
  ctx.out(`server: ${found.join('; ')}\n`);
  for (const w of speed.warnings) ctx.err(`warning: ${w.found} (${w.setting}): ${w.cost}\nfix: ${w.fix}\n`);
}

export const clusterSpec: CommandSpec = {
  usage: USAGE,
  flags: { ...JSON_FLAG, check: { type: 'boolean' }, retention: { type: 'string' } },
  run(ctx) {
    const sub = ctx.positionals[0];
    if (sub === 'setup') return setup(ctx);
    throw new UsageError(
      sub === undefined ? 'cluster needs a subcommand' : `unknown cluster subcommand "${sub}"`,
      'll-loop cluster setup [--check] [--retention 30d]',
    );
  },
};
