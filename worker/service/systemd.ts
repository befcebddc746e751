/**
 * A checkout's worker as a systemd user unit:
 * `$XDG_CONFIG_HOME/systemd/user/ll-loop-worker-<shortHash(root)>.service`.
 *
 * Invariants of the unit: `Restart=on-failure` (a worker that stops cleanly on SIGTERM, after
 * `worker stop`, stays stopped until the next login), `KillMode=mixed` (stopping the unit sends
 * SIGTERM to the worker alone, which drains; its actions, in their own process groups, are not
 * signalled before it lets them finish), output appended to `.loops/.worker/worker.log`.
 */
import { join } from 'node:path';
import { shortHash } from '../../host/checkout.js';
import { CliError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import type { ServiceDefinition } from './definition.js';
import { STOP_TIMEOUT_S, type Probe, type ServiceCommand, type ServiceManager } from './service-manager.js';
import { findProgram, runProgram } from './programs.js';
import { systemdUserDir } from './user-dirs.js';

export function systemdUnitName(root: string): string {
  return `ll-loop-worker-${shortHash(root)}.service`;
}

/** A value systemd would misread: a newline ends the setting. */
function refuseNewline(what: string, value: string): string {
  if (/[\n\r]/.test(value))
    throw new CliError(
      `${what} contains a line break, which a systemd unit cannot hold: ${JSON.stringify(value)}`,
      'install from a checkout path and an environment without line breaks',
      EXIT.usage,
    );
  return value;
}

/** `%` starts a specifier in every setting we write. */
const specifiers = (value: string): string => value.replace(/%/g, '%%');

/** One ExecStart= word: quoted when it is not plain, `$` doubled (ExecStart expands variables). */
export function execWord(word: string): string {
  const escaped = specifiers(refuseNewline('a command word', word)).replace(/\$/g, '$$$$');
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(escaped)) return escaped;
  return `"${escaped.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** One Environment= assignment, quoted (Environment= does not expand `$`). */
export function environmentAssignment(name: string, value: string): string {
  const text = specifiers(refuseNewline(`$${name}`, `${name}=${value}`));
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

export function renderSystemdUnit(def: ServiceDefinition): string {
  const root = specifiers(refuseNewline('the checkout path', def.root));
  const log = specifiers(refuseNewline('the log path', def.logFile));
  return [
    `# Written by \`ll-loop worker install\` in ${def.root}; \`ll-loop worker uninstall\` removes it.`,
    '# Re-installing rewrites this file; keep local settings in a drop-in (systemctl --user edit <unit>).',
    '[Unit]',
    `Description=ll-loop worker for ${root}`,
    '',
    '[Service]',
    'Type=simple',
    `WorkingDirectory=${root}`,
    `ExecStart=${def.argv.map(execWord).join(' ')}`,
    ...def.env.map(([name, value]) => `Environment=${environmentAssignment(name, value)}`),
    'Restart=on-failure',
    'RestartSec=10',
    'KillMode=mixed',
    `TimeoutStopSec=${STOP_TIMEOUT_S}`,
    `StandardOutput=append:${log}`,
    `StandardError=append:${log}`,
    '',
    '[Install]',
    'WantedBy=default.target',
    '',
  ].join('\n');
}

const ctl = (...args: string[]): string[] => ['systemctl', '--user', ...args];
/** Stopping waits for the worker to drain (at most TimeoutStopSec, then systemd kills it). */
const STOPPING_MS = (STOP_TIMEOUT_S + 30) * 1000;

export function systemdManager(root: string, env: NodeJS.ProcessEnv): ServiceManager {
  const name = systemdUnitName(root);
  const file = join(systemdUserDir(env), name);
  const systemctl = (args: string[], timeoutMs = 15_000) => {
    const program = findProgram('systemctl', env);
    return program ? runProgram(program, args, { env, timeoutMs }) : Promise.resolve(undefined);
  };
  return {
    kind: 'systemd',
    name,
    file,
    render: renderSystemdUnit,
    async probe(): Promise<Probe> {
      const result = await systemctl(['--user', 'show-environment']);
      if (!result) return { usable: false, why: 'systemctl is not on PATH (no systemd here)' };
      if (result.ok) return { usable: true };
      return {
        usable: false,
        why: `systemctl --user cannot reach a user service manager (${result.why}); usual in containers, in WSL without systemd, and in SSH sessions of a user without lingering (loginctl enable-linger)`,
      };
    },
    loaded: () => Promise.resolve(true),
    activate({ changed, startNow }): ServiceCommand[] {
      const start = startNow ? [{ argv: ctl(changed ? 'restart' : 'start', name), timeoutMs: STOPPING_MS }] : [];
      return [{ argv: ctl('daemon-reload') }, { argv: ctl('enable', name) }, ...start];
    },
    deactivate: () => [{ argv: ctl('disable', '--now', name), timeoutMs: STOPPING_MS }],
    forget: () => [{ argv: ctl('daemon-reload') }, { argv: ctl('reset-failed', name), tolerate: true }],
    async state(): Promise<string> {
      const active = await systemctl(['--user', 'is-active', name]);
      const enabled = await systemctl(['--user', 'is-enabled', name]);
      return `${active?.stdout.trim() || 'unknown'}, ${enabled?.stdout.trim() || 'unknown'}`;
    },
  };
}
