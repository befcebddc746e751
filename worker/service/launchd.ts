/**
 * A checkout's worker as a launchd agent of the logged-in user:
 * `~/Library/LaunchAgents/dev.ll-loop.worker.<shortHash(root)>.plist`, loaded into the `gui/<uid>`
 * domain. Same invariants as the systemd unit: started at load (login), restarted only after an
 * unsuccessful exit (`KeepAlive.SuccessfulExit = false`), given time to drain when stopped
 * (`ExitTimeOut`), output appended to `.loops/.worker/worker.log`.
 */
import { join } from 'node:path';
import { shortHash } from '../../host/checkout.js';
import { CliError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import type { ServiceDefinition } from './definition.js';
import { STOP_TIMEOUT_S, type Probe, type ServiceCommand, type ServiceManager } from './service-manager.js';
import { findProgram, runProgram } from './programs.js';
import { launchAgentsDir } from './user-dirs.js';

export function launchdLabel(root: string): string {
  return `dev.ll-loop.worker.${shortHash(root)}`;
}

/** Text as XML character data; control characters other than tab, newline and return cannot be written at all. */
function xmlText(text: string): string {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/.test(text))
    throw new CliError(
      `a control character cannot be written into a launchd plist: ${JSON.stringify(text)}`,
      'install from a checkout path and an environment without control characters',
      EXIT.usage,
    );
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const str = (text: string): string => `<string>${xmlText(text)}</string>`;

export function renderLaunchdPlist(def: ServiceDefinition, label: string = launchdLabel(def.root)): string {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    `<!-- Written by ll-loop worker install; ll-loop worker uninstall removes it. Re-installing rewrites it. -->`,
    '<plist version="1.0">',
    '<dict>',
    `  <key>Label</key>${str(label)}`,
    '  <key>ProgramArguments</key>',
    '  <array>',
    ...def.argv.map((word) => `    ${str(word)}`),
    '  </array>',
    `  <key>WorkingDirectory</key>${str(def.root)}`,
    '  <key>EnvironmentVariables</key>',
    '  <dict>',
    ...def.env.map(([name, value]) => `    <key>${xmlText(name)}</key>${str(value)}`),
    '  </dict>',
    '  <key>RunAtLoad</key><true/>',
    '  <key>KeepAlive</key>',
    '  <dict>',
    '    <key>SuccessfulExit</key><false/>',
    '  </dict>',
    '  <key>ThrottleInterval</key><integer>10</integer>',
    `  <key>ExitTimeOut</key><integer>${STOP_TIMEOUT_S}</integer>`,
    '  <key>ProcessType</key><string>Background</string>',
    `  <key>StandardOutPath</key>${str(def.logFile)}`,
    `  <key>StandardErrorPath</key>${str(def.logFile)}`,
    '</dict>',
    '</plist>',
    '',
  ].join('\n');
}

export function launchdManager(
  root: string,
  env: NodeJS.ProcessEnv,
  uid: number = process.getuid?.() ?? 0,
): ServiceManager {
  const label = launchdLabel(root);
  const file = join(launchAgentsDir(env), `${label}.plist`);
  const domain = `gui/${uid}`;
  const launchctl = (args: string[]) => {
    const program = findProgram('launchctl', env);
    return program ? runProgram(program, args, { env, timeoutMs: 15_000 }) : Promise.resolve(undefined);
  };
  const bootout: ServiceCommand = {
    argv: ['launchctl', 'bootout', `${domain}/${label}`],
    tolerate: true,
    timeoutMs: (STOP_TIMEOUT_S + 30) * 1000,
  };
  return {
    kind: 'launchd',
    name: label,
    file,
    render: (def) => renderLaunchdPlist(def, label),
    async probe(): Promise<Probe> {
      const result = await launchctl(['print', domain]);
      if (!result) return { usable: false, why: 'launchctl is not on PATH (no launchd here)' };
      if (result.ok) return { usable: true };
      return {
        usable: false,
        why: `launchctl cannot reach the ${domain} domain (${result.why}); usual over SSH without a graphical login`,
      };
    },
    async loaded(): Promise<boolean> {
      return (await launchctl(['print', `${domain}/${label}`]))?.ok ?? false;
    },
    activate({ changed, startNow, loaded }): ServiceCommand[] {
      // An agent in ~/Library/LaunchAgents is loaded at every login; bootstrap loads (and, RunAtLoad, starts) it now.
      if (!startNow) return [];
      if (loaded && !changed) return [{ argv: ['launchctl', 'kickstart', `${domain}/${label}`] }];
      return [...(loaded ? [bootout] : []), { argv: ['launchctl', 'bootstrap', domain, file] }];
    },
    deactivate: () => [bootout],
    forget: () => [],
    async state(): Promise<string> {
      const result = await launchctl(['print', `${domain}/${label}`]);
      if (!result?.ok) return 'not loaded';
      return /^\s*state = (.+)$/m.exec(result.stdout)?.[1]?.trim() ?? 'loaded';
    },
  };
}
