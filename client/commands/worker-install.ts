/**
 * `ll-loop worker install [--dry-run] [--json]` and `ll-loop worker uninstall [--json]`: the
 * checkout's worker as a user service (systemd user unit on Linux, launchd agent on macOS), so it
 * runs from login (or boot, with lingering) and after a crash, without any command starting it.
 * Re-installing rewrites the file and restarts the service when the file changed; where the
 * manager does not answer, the file is written and the commands to run are printed.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { workerDir } from '../../host/checkout.js';
import { ensureRuntimeDir } from '../../loader/runtime-dir.js';
import { CliError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { checkoutRootOf, requireCheckoutRoot, type ServiceContext } from '../../worker/service/context.js';
import { serviceDefinition } from '../../worker/service/definition.js';
import { displayCommand, managerFor, runCommands } from '../../worker/service/manager.js';
import type { ServiceCommand, ServiceManager } from '../../worker/service/service-manager.js';
import { workerState } from '../../worker/service/worker-control.js';

/** A service manager command failed after it answered the probe. */
class ServiceCommandError extends CliError {
  override readonly name = 'ServiceCommandError';
  constructor(what: string, command: string, why: string, toRun: readonly ServiceCommand[], manager: ServiceManager) {
    const logs =
      manager.kind === 'systemd'
        ? `journalctl --user -u ${manager.name}`
        : `launchctl print gui/$(id -u)/${manager.name}`;
    super(
      `${what}: \`${command}\` failed: ${why}`,
      `run it by hand and read why (${logs}): ${toRun.map((c) => displayCommand(c.argv)).join(' && ')}`,
      EXIT.runError,
    );
  }
}

const describeKind = (m: ServiceManager): string => (m.kind === 'systemd' ? 'systemd user unit' : 'launchd agent');
const commandLines = (commands: readonly ServiceCommand[]): string[] => commands.map((c) => displayCommand(c.argv));

/** Write `text` to `file` through a temporary file and a rename, so a reader never sees half of it. */
function writeAtomically(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}

export async function workerInstall(ctx: ServiceContext, opts: { dryRun: boolean }): Promise<number> {
  const root = requireCheckoutRoot(ctx.cwd);
  const manager = managerFor(ctx.platform, root, ctx.env);
  const text = manager.render(serviceDefinition(root, ctx.env));
  const previous = existsSync(manager.file) ? readFileSync(manager.file, 'utf8') : undefined;
  const changed = previous !== text;
  // Only a service that ran from an older file needs a restart to apply the new one.
  const replaced = previous !== undefined && changed;
  if (opts.dryRun) {
    const commands = commandLines(manager.activate({ changed: replaced, startNow: true, loaded: false }));
    if (ctx.json)
      ctx.out(
        `${JSON.stringify({ dry_run: true, root, kind: manager.kind, name: manager.name, file: manager.file, content: text, commands })}\n`,
      );
    else {
      ctx.out(text);
      ctx.err(
        `# dry run: nothing written; install would write ${manager.file}, then run:\n${commands.map((c) => `#   ${c}\n`).join('')}`,
      );
    }
    return EXIT.ok;
  }
  // The log's directory must exist before the manager opens the log for appending.
  ensureRuntimeDir(workerDir(root));
  if (changed) writeAtomically(manager.file, text);
  // A worker a command or a terminal started serves the checkout already; a second one would
  // not be welcome, so the service is enabled for the next login and started only once it stops.
  const worker = workerState(root, ctx.env);
  const otherWorker = worker.kind === 'running' && worker.record.started_by !== 'service' ? worker.record : undefined;
  const probe = await manager.probe();
  const loaded = probe.usable ? await manager.loaded() : false;
  const commands = manager.activate({ changed: replaced, startNow: !otherWorker, loaded });
  const report = {
    root,
    kind: manager.kind,
    name: manager.name,
    file: manager.file,
    changed,
    log: serviceDefinition(root, ctx.env).logFile,
  };
  if (!probe.usable) {
    const toRun = commandLines(manager.activate({ changed: replaced, startNow: true, loaded: false }));
    if (ctx.json) ctx.out(`${JSON.stringify({ ...report, started: false, why: probe.why, commands_to_run: toRun })}\n`);
    else {
      ctx.out(`${changed ? 'wrote' : 'unchanged'}: ${manager.file} (${describeKind(manager)})\n`);
      ctx.out(`not enabled or started: ${probe.why}\n`);
      ctx.out(`to enable and start it where the service manager runs:\n${toRun.map((c) => `  ${c}\n`).join('')}`);
      ctx.out('until then, ll-loop commands start a worker on demand, or run `ll-loop worker` in a terminal\n');
    }
    return EXIT.ok;
  }
  if (replaced && worker.kind === 'running' && !otherWorker)
    ctx.err(`restarting ${manager.name} with the new file: its worker drains first…\n`);
  const { ran, failed } = await runCommands(commands, ctx.env);
  if (failed)
    throw new ServiceCommandError(
      `wrote ${manager.file} but could not enable and start it`,
      failed.command,
      failed.why ?? '',
      commands,
      manager,
    );
  const started = !otherWorker;
  if (ctx.json) {
    ctx.out(
      `${JSON.stringify({ ...report, started, commands_run: ran.map((r) => r.command), ...(otherWorker ? { serving_pid: otherWorker.pid } : {}) })}\n`,
    );
    return EXIT.ok;
  }
  ctx.out(`${changed ? 'wrote' : 'unchanged'}: ${manager.file} (${describeKind(manager)})\n`);
  for (const r of ran) ctx.out(`ran: ${r.command}${r.ok ? '' : ` (failed, harmless: ${r.why})`}\n`);
  if (otherWorker) {
    ctx.out(
      `enabled, not started: worker pid ${otherWorker.pid} (${otherWorker.started_by}) serves ${root} now; the service starts it at the next login, or now after \`ll-loop worker stop\` and ${commandLines(manager.activate({ changed: false, startNow: true, loaded: false })).pop()}\n`,
    );
  } else {
    ctx.out(
      `the worker of ${root} runs now and from every login${manager.kind === 'systemd' ? ' (from boot: loginctl enable-linger $USER)' : ''}; log ${report.log}\n`,
    );
  }
  return EXIT.ok;
}

export async function workerUninstall(ctx: ServiceContext): Promise<number> {
  const root = checkoutRootOf(ctx.cwd);
  const manager = managerFor(ctx.platform, root, ctx.env);
  if (!existsSync(manager.file)) {
    if (ctx.json)
      ctx.out(
        `${JSON.stringify({ root, kind: manager.kind, name: manager.name, file: manager.file, installed: false, removed: false })}\n`,
      );
    else ctx.out(`no service installed for ${root} (no ${manager.file})\n`);
    return EXIT.ok;
  }
  const probe = await manager.probe();
  const stop = manager.deactivate();
  if (probe.usable) {
    ctx.err(`stopping ${manager.name} (a running worker drains first)…\n`);
    const { failed } = await runCommands(stop, ctx.env);
    if (failed)
      throw new ServiceCommandError(
        `could not stop and disable ${manager.name}; ${manager.file} is left in place`,
        failed.command,
        failed.why ?? '',
        stop,
        manager,
      );
  }
  rmSync(manager.file, { force: true });
  const forgotten = probe.usable ? await runCommands(manager.forget(), ctx.env) : undefined;
  const report = {
    root,
    kind: manager.kind,
    name: manager.name,
    file: manager.file,
    installed: true,
    removed: true,
    stopped: probe.usable,
  };
  if (ctx.json) {
    ctx.out(
      `${JSON.stringify({ ...report, ...(probe.usable ? {} : { why: probe.why, commands_to_run: commandLines(stop) }) })}\n`,
    );
    return EXIT.ok;
  }
  if (probe.usable) ctx.out(`stopped and disabled ${manager.name}\n`);
  ctx.out(`removed ${manager.file}\n`);
  if (forgotten?.failed)
    ctx.out(
      `note: \`${forgotten.failed.command}\` failed (${forgotten.failed.why}); the manager forgets the unit at its next reload\n`,
    );
  if (!probe.usable)
    ctx.out(
      `not stopped by a service manager: ${probe.why}\nif the service runs somewhere this cannot reach, stop it there: ${commandLines(stop).join(' && ')}\n`,
    );
  return EXIT.ok;
}
