/**
 * Where user service files go, from the environment we were given rather than the process's own,
 * so tests point HOME and XDG_CONFIG_HOME into a temporary directory and never touch the real
 * user's configuration.
 */
import { isAbsolute, join } from 'node:path';
import { CliError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';

/** The user's home from `env`; a service file needs one. */
function homeOf(env: NodeJS.ProcessEnv): string {
  const home = env.HOME;
  if (!home || !isAbsolute(home))
    throw new CliError(
      'HOME is not set to an absolute path: there is no user configuration to install a service in',
      'run it from a login shell of the user who should own the service',
      EXIT.usage,
    );
  return home;
}

/** `$XDG_CONFIG_HOME/systemd/user` (an absolute XDG_CONFIG_HOME only, as the spec says), else `~/.config/systemd/user`. */
export function systemdUserDir(env: NodeJS.ProcessEnv): string {
  const xdg = env.XDG_CONFIG_HOME;
  return join(xdg && isAbsolute(xdg) ? xdg : join(homeOf(env), '.config'), 'systemd', 'user');
}

/** `~/Library/LaunchAgents`. */
export function launchAgentsDir(env: NodeJS.ProcessEnv): string {
  return join(homeOf(env), 'Library', 'LaunchAgents');
}
