/**
 * `ll-loop worker status [--json]` and `ll-loop worker stop [--wait S] [--force] [--json]`: the
 * worker serving this checkout, read from its record (`.loops/.worker/worker.json`) and checked
 * against the live process, and whether a user service is installed for it.
 *
 * `status` exits 0 whether or not a worker runs (`running` says which): it is a report, and
 * "nothing runs" is a normal answer. `stop` exits 0 when no worker runs once it is done.
 */
import { existsSync } from 'node:fs';
import type { WorkerRecord } from '../../host/checkout.js';
import { hostId, workerLogPath, workerRecordPath } from '../../host/checkout.js';
import { buildInfo } from '../../host/build-info.js';
import { CliError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { checkoutRootOf, type ServiceContext } from '../../worker/service/context.js';
import { managerFor, UnsupportedPlatformError } from '../../worker/service/manager.js';
import type { ServiceManager } from '../../worker/service/service-manager.js';
import { stopWorker, workerState, type WorkerState } from '../../worker/service/worker-control.js';
import { probeTemporal } from '../../temporal/grpc-probe.js';

/** How long `worker stop` waits for the worker to drain, by default. */
export const DEFAULT_WORKER_STOP_WAIT_S = 60;

/** The checkout's manager, or undefined on a platform without one (status still reports the worker). */
function managerOrNone(ctx: ServiceContext, root: string): ServiceManager | undefined {
  try {
    return managerFor(ctx.platform, root, ctx.env);
  } catch (err) {
    if (err instanceof UnsupportedPlatformError) return undefined;
    throw err;
  }
}

function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const [d, h, m] = [Math.floor(s / 86400), Math.floor((s % 86400) / 3600), Math.floor((s % 3600) / 60)];
  if (d) return `${d}d ${h}h`;
  if (h) return `${h}h ${m}m`;
  return m ? `${m}m ${s % 60}s` : `${s}s`;
}

const uptimeMs = (record: WorkerRecord): number | undefined => {
  const t = Date.parse(record.started_at);
  return Number.isNaN(t) ? undefined : Date.now() - t;
};

/** Whether a user service is installed for the checkout (`kind: null`: no manager on this platform). */
type ServiceReport =
  | { kind: null; installed: false }
  | { kind: ServiceManager['kind']; name: string; file: string; installed: boolean; state?: string };

async function serviceReport(ctx: ServiceContext, root: string): Promise<ServiceReport> {
  const manager = managerOrNone(ctx, root);
  if (!manager) return { kind: null, installed: false };
  const installed = existsSync(manager.file);
  const state = installed && (await manager.probe()).usable ? await manager.state() : undefined;
  return { kind: manager.kind, name: manager.name, file: manager.file, installed, ...(state ? { state } : {}) };
}

function stateLine(state: WorkerState, host: string): string {
  switch (state.kind) {
    case 'none':
      return 'not running (no worker record)';
    case 'stale':
      return `not running (stale record: ${state.why}; the worker did not stop cleanly)`;
    case 'other-host':
      return `recorded on host ${state.record.host} (pid ${state.record.pid}); this is host ${host} (LL_HOST_ID), so it cannot be checked from here`;
    case 'running':
      return `running: pid ${state.record.pid}`;
  }
}

export async function workerStatus(ctx: ServiceContext): Promise<number> {
  const root = checkoutRootOf(ctx.cwd);
  const state = workerState(root, ctx.env);
  const cli = buildInfo();
  const record = state.kind === 'none' ? undefined : state.record;
  const running = state.kind === 'running';
  const up = running ? uptimeMs(state.record) : undefined;
  const service = await serviceReport(ctx, root);
  // A worker whose server is down serves nothing: say so, whatever its process does.
  const server = running
    ? { address: state.record.address, answering: (await probeTemporal(state.record.address)).kind === 'temporal' }
    : null;
  const sameVersion = running ? state.record.version === cli.version : null;
  const sameBuild = running ? state.record.build_id === cli.build_id : null;
  if (ctx.json) {
    ctx.out(
      `${JSON.stringify({
        root,
        running,
        state: state.kind,
        worker: running ? { ...state.record, uptime_s: up === undefined ? null : Math.round(up / 1000) } : null,
        server,
        ...(record && !running ? { record_pid: record.pid, record_host: record.host } : {}),
        record: workerRecordPath(root),
        log: workerLogPath(root),
        cli,
        same_version: sameVersion,
        same_build: sameBuild,
        service,
      })}\n`,
    );
    return EXIT.ok;
  }
  const lines = [
    `checkout ${root}`,
    `worker: ${stateLine(state, hostId(ctx.env))}${server && !server.answering ? ', but its Temporal server does not answer: nothing runs' : ''}`,
  ];
  if (running) {
    const r = state.record;
    lines.push(
      server?.answering
        ? `  server ${r.address}: answering`
        : `  server ${r.address}: NOT ANSWERING; the worker restarts the project's embedded server within seconds (an external one: start it); see the log below`,
    );
    lines.push(`  host ${r.host} · queue ${r.queue}`);
    lines.push(`  started ${r.started_at}${up === undefined ? '' : ` (up ${duration(up)})`} · ${r.started_by}`);
    lines.push(
      `  version ${r.version} (build ${r.build_id}): ${sameBuild ? 'this ll-loop' : `this ll-loop is ${cli.version} (build ${cli.build_id}); the next ll-loop command (other than worker …) replaces it, after it drains`}`,
    );
  }
  lines.push(`  log ${workerLogPath(root)}`);
  lines.push(
    service.kind === null
      ? 'service: none on this platform'
      : service.installed
        ? `service: installed, ${service.file}${service.state ? ` (${service.state})` : ''}`
        : `service: not installed (ll-loop worker install)`,
  );
  ctx.out(`${lines.join('\n')}\n`);
  return EXIT.ok;
}

/** The worker did not exit within the wait, and `--force` was not given. */
class WorkerStillStoppingError extends CliError {
  override readonly name = 'WorkerStillStoppingError';
  constructor(pid: number, waitS: number) {
    super(
      `worker pid ${pid} is still draining after ${waitS} s (its running actions have not finished); it stays asked to stop and exits when they do`,
      `check with ll-loop worker status, or end it now with ll-loop worker stop --force (its running actions are killed and Temporal retries them)`,
      EXIT.runError,
    );
  }
}

export async function workerStop(ctx: ServiceContext, opts: { waitS: number; force: boolean }): Promise<number> {
  const root = checkoutRootOf(ctx.cwd);
  const state = workerState(root, ctx.env);
  const service = await serviceReport(ctx, root);
  const installedFile = service.kind !== null && service.installed ? service.file : undefined;
  const report = {
    root,
    service_installed: service.installed,
    ...(installedFile ? { service_file: installedFile } : {}),
  };
  if (state.kind === 'other-host') {
    throw new CliError(
      `the worker of ${root} was recorded on host ${state.record.host} (pid ${state.record.pid}), not this host (${hostId(ctx.env)})`,
      `stop it on ${state.record.host}, or set LL_HOST_ID to the host it was started with`,
      EXIT.usage,
    );
  }
  if (state.kind !== 'running') {
    if (ctx.json)
      ctx.out(
        `${JSON.stringify({ ...report, running: false, stopped: false, ...(state.kind === 'stale' ? { stale: state.why } : {}) })}\n`,
      );
    else
      ctx.out(
        state.kind === 'stale'
          ? `no worker running for ${root} (stale record: ${state.why})\n`
          : `no worker running for ${root}\n`,
      );
    return EXIT.ok;
  }
  ctx.err(
    `stopping worker pid ${state.record.pid} (SIGTERM: it stops polling and lets its running actions finish; waiting up to ${opts.waitS} s)…\n`,
  );
  const outcome = await stopWorker(root, state.record, { waitMs: opts.waitS * 1000, force: opts.force });
  if (outcome.alive && !opts.force) throw new WorkerStillStoppingError(outcome.pid, opts.waitS);
  if (outcome.alive)
    throw new CliError(
      `worker pid ${outcome.pid} is still alive after SIGKILL`,
      `check the process (ps -p ${outcome.pid}); it may be stuck in the kernel`,
      EXIT.runError,
    );
  const note = installedFile
    ? `a user service is installed (${installedFile}): it starts the worker again at the next login${outcome.killed ? ', and restarts it now after the SIGKILL' : ''}; ll-loop worker uninstall removes it${service.kind === 'systemd' ? `, systemctl --user stop ${service.name} stops it until then` : ''}`
    : undefined;
  if (ctx.json) {
    ctx.out(
      `${JSON.stringify({ ...report, running: false, stopped: true, pid: outcome.pid, killed: outcome.killed, waited_s: Math.round(outcome.waitedMs / 100) / 10, ...(note ? { note } : {}) })}\n`,
    );
    return EXIT.ok;
  }
  ctx.out(
    outcome.killed
      ? `worker pid ${outcome.pid} did not stop within ${opts.waitS} s; killed it (SIGKILL): Temporal retries its running actions on the next worker\n`
      : `stopped worker pid ${outcome.pid} after ${(outcome.waitedMs / 1000).toFixed(1)} s\n`,
  );
  if (note) ctx.out(`note: ${note}\n`);
  return EXIT.ok;
}
