/**
 * Which ll-loop a run belongs to: the package version and a build id (version + a hash of the
 * workflow bundle — the code that interprets runs). Every run records both in its memo, so
 * `ll-loop list --running` and the Web UI show which release started it; workers carry the build
 * id in their identity, so the Web UI shows which code serves a task queue.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { PACKAGE_ROOT, PREBUILT_BUNDLE } from './paths.js';

export interface BuildInfo {
  version: string;
  build_id: string;
}

let cached: { path: string; info: BuildInfo } | undefined;

/** The package version from package.json. */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(`${PACKAGE_ROOT}/package.json`, 'utf8')) as { version: string }).version;
}

/** The bundle workers load: LL_WORKFLOW_BUNDLE (tests), else the prebuilt one. */
export function bundlePath(): string {
  return process.env.LL_WORKFLOW_BUNDLE ?? PREBUILT_BUNDLE;
}

/** `<version>+<first 12 hex of the bundle's sha256>`; `+source` when no bundle is built. */
export function buildInfo(path = bundlePath()): BuildInfo {
  if (cached?.path === path) return cached.info;
  const version = packageVersion();
  const hash = existsSync(path) ? createHash('sha256').update(readFileSync(path)).digest('hex').slice(0, 12) : 'source';
  const info = { version, build_id: `${version}+${hash}` };
  cached = { path, info };
  return info;
}
