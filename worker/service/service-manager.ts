/**
 * A user service manager as `worker install|uninstall|status` drive it: where the checkout's
 * service file goes, what it says, and the commands that load, start, stop and unload it. The
 * commands are data, so they are run when the manager answers and printed for the user to run
 * when it does not (a container without a systemd user manager, an SSH session on a Mac).
 * systemd.ts and launchd.ts implement it; manager.ts picks this platform's.
 */
import type { ServiceDefinition } from './definition.js';

/** How long the manager lets a stopping worker drain before it kills what is left (systemd and launchd alike). */
export const STOP_TIMEOUT_S = 90;

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
