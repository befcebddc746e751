/**
 * This platform's user service manager (service-manager.ts: systemd on Linux, launchd on macOS),
 * and how `worker install|uninstall|status` run the commands it gives.
 */
import { CliError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { launchdManager } from './launchd.js';
import { findProgram, runProgram } from './programs.js';
import { systemdManager } from './systemd.js';
import type { ServiceCommand, ServiceManager } from './service-manager.js';

/** This platform has no user service manager ll-loop knows. */
export class UnsupportedPlatformError extends CliError {
  override readonly name = 'UnsupportedPlatformError';
  constructor(platform: string) {
    super(
      `ll-loop knows no user service manager on ${platform} (systemd on Linux, launchd on macOS)`,
      'run ll-loop worker in a terminal, or from the service manager you use (it runs in the foreground and stops on SIGTERM)',
      EXIT.usage,
    );
  }
}

/** The manager of this platform for the checkout at `root`; paths come from `env` (HOME, XDG_CONFIG_HOME). */
export function managerFor(platform: NodeJS.Platform, root: string, env: NodeJS.ProcessEnv): ServiceManager {
  if (platform === 'linux') return systemdManager(root, env);
  if (platform === 'darwin') return launchdManager(root, env);
  throw new UnsupportedPlatformError(platform);
}

/** A command as a user would type it (single quotes where needed). */
export function displayCommand(argv: readonly string[]): string {
  return argv.map((a) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}

export interface CommandOutcome {
  command: string;
  ok: boolean;
  why?: string;
}

/**
 * Run `commands` in order with `env`, stopping at the first failure that is not tolerated.
 * Returns what ran; `failed` is the outcome that stopped it.
 */
export async function runCommands(
  commands: readonly ServiceCommand[],
  env: NodeJS.ProcessEnv,
): Promise<{ ran: CommandOutcome[]; failed?: CommandOutcome }> {
  const ran: CommandOutcome[] = [];
  for (const c of commands) {
    const command = displayCommand(c.argv);
    const program = findProgram(c.argv[0]!, env);
    const result = program
      ? await runProgram(program, c.argv.slice(1), { env, ...(c.timeoutMs ? { timeoutMs: c.timeoutMs } : {}) })
      : { ok: false, why: `${c.argv[0]} not found on PATH` };
    const outcome: CommandOutcome = result.ok ? { command, ok: true } : { command, ok: false, why: result.why };
    ran.push(outcome);
    if (!result.ok && !c.tolerate) return { ran, failed: outcome };
  }
  return { ran };
}
