/**
 * Debian's Chromium for the browser tests, driven by playwright-core (no browser download):
 * installed on demand where we are root (CI), otherwise a clear failure. Set
 * LL_SKIP_BROWSER_TEST=1 where no Chromium can be had.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

export const CHROMIUM = process.env.LL_CHROMIUM ?? '/usr/bin/chromium';
export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const SKIP_BROWSER = process.env.LL_SKIP_BROWSER_TEST === '1';

/**
 * Installs Chromium where it is missing and we are root. Called once per run, by the browser
 * tier's global setup (tests/setup/chromium.ts), before its forks start: two files installing it
 * at once failed on dpkg's lock. apt-get waits for the lock anyway (a fresh machine's own
 * unattended upgrades may hold it) instead of failing at once.
 */
export function ensureChromium(): void {
  if (existsSync(CHROMIUM)) return;
  if (process.getuid?.() !== 0)
    throw new Error(
      `${CHROMIUM} is missing: install Debian's chromium (apt-get install chromium) or set LL_SKIP_BROWSER_TEST=1`,
    );
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const waitForLock = ['-o', 'DPkg::Lock::Timeout=300'];
  spawnSync('apt-get', [...waitForLock, 'update', '-qq'], { stdio: 'ignore', env, timeout: 300_000 });
  const install = spawnSync('apt-get', [...waitForLock, 'install', '-y', '-qq', 'chromium'], {
    encoding: 'utf8',
    env,
    timeout: 600_000,
  });
  if (!existsSync(CHROMIUM)) throw new Error(`could not install chromium with apt-get: ${install.stderr?.slice(-500)}`);
}

/** Where tests save screenshots (git-ignored; LL_TEST_ARTIFACTS overrides). */
export function artifactsDir(): string {
  const dir = process.env.LL_TEST_ARTIFACTS ?? join(import.meta.dirname, '..', '..', 'test-artifacts');
  mkdirSync(dir, { recursive: true });
  return dir;
}
