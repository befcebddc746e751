/**
 * Which ll-loop a run belongs to: the package version and a build id (version + a hash of the
 * workflow bundle — the code that interprets runs). Every run records both in its memo, so
 * `ll-loop list --running` and the Web UI show which release started it; workers carry the build
 * id in their identity, so the Web UI shows which code serves a task queue.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { BUILD_STAMP, PACKAGE_ROOT, PREBUILT_BUNDLE } from './paths.js';

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

let codeIdCached: string | undefined;

/**
 * The build of the whole code a process runs: `build_id` plus the stamp of the `npm run build`
 * that made dist/ (activities and the worker change without the bundle changing). A checkout's
 * worker with another code id is replaced by the next command.
 */
export function codeId(): string {
  // LL_CODE_ID stands for another build (how the tests show a worker handing over).
  if (process.env.LL_CODE_ID) return process.env.LL_CODE_ID;
  if (codeIdCached === undefined) {
    let stamp = 'source';
    try {
      stamp = (JSON.parse(readFileSync(BUILD_STAMP, 'utf8')) as { code_id: string }).code_id;
    } catch {
      // Not built: running from source (tests); the bundle hash alone tells builds apart.
    }
    codeIdCached = `${buildInfo().build_id}/${stamp}`;
  }
  return codeIdCached;
}
