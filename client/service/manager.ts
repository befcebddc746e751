/**
 * A user service manager as `worker install|uninstall|status` drive it: where the checkout's
 * service file goes, what it says, and the commands that load, start, stop and unload it. The
 * commands are data, so they are run when the manager answers and printed for the user to run
 * when it does not (a container without a systemd user manager, an SSH session on a Mac).
 */
import { CliError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import type { ServiceDefinition } from './definition.js';
import { launchdManager } from './launchd.js';
import { findProgram, runProgram } from './programs.js';
import { systemdManager } from './systemd.js';

export interface ServiceCommand {
  argv: string[];
  /** A failure is expected and harmless (unloading an agent that is not loaded). */
  tolerate?: boolean;
  timeoutMs?: number;
}

export type Probe = { usable: true } | { usable: false; why: string };

export interface ServiceManager {
  kind: 'systemd' | 'launchd';
  /** The unit name (`ll-loop-worker-<hash>.service`) or launchd label (`dev.ll-loop.worker.<hash>`). */
  name: string;
  /** The service file. */
  file: string;
  render(def: ServiceDefinition): string;
  /** Whether the manager answers here; why not otherwise, with what usually causes it. */
  probe(): Promise<Probe>;
  /** Whether the service is loaded now (launchd); only asked when the probe succeeded. */
  loaded(): Promise<boolean>;
  /**
   * Commands that make the written file take effect: load and enable it, and, with `startNow`,
   * start it (restart it when the file `changed`, so a re-install applies).
   */
  activate(opts: { changed: boolean; startNow: boolean; loaded: boolean }): ServiceCommand[];
  /** Commands that stop and disable the service, before its file is removed. */
  deactivate(): ServiceCommand[];
  /** Commands after the file is removed (systemd forgets the unit). */
  forget(): ServiceCommand[];
  /** `active`, `inactive`, `failed`, `loaded`, … as the manager says; only asked when the probe succeeded. */
  state(): Promise<string>;
}

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
