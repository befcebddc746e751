/**
 * Which ll-loop a run belongs to: the package version and a build id (version + a hash of the
 * workflow bundle — the code that interprets runs). Every run records both in its memo, so
 * `ll-loop list --running` and the Web UI show which release started it; workers carry the build
 * id in their identity, so the Web UI shows which code serves a task queue.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { BUILD_STAMP, PACKAGE_ROOT, PREBUILT_BUNDLE } from './paths.js';

export interface BuildInfo {
  version: string;
  build_id: string;
}

let cached: { path: string; info: BuildInfo } | undefined;

/** The package version from package.json. */
function packageVersion(): string {
  return (JSON.parse(readFileSync(`${PACKAGE_ROOT}/package.json`, 'utf8')) as { version: string }).version;
}

/** The bundle workers load: LL_WORKFLOW_BUNDLE (tests), else the prebuilt one. */
function bundlePath(): string {
  return process.env.LL_WORKFLOW_BUNDLE ?? PREBUILT_BUNDLE;
}

/** `<version>+<first 12 hex of the bundle's sha256>`; `+source` when no bundle is built. */
export function buildInfo(path = bundlePath()): BuildInfo {
  if (cached?.path === path) return cached.info;
  const version = packageVersion();
  const hash = existsSync(path)
    ? (stampedHash(path) ?? createHash('sha256').update(readFileSync(path)).digest('hex').slice(0, 12))
    : 'source';
  const info = { version, build_id: `${version}+${hash}` };
  cached = { path, info };
  return info;
}

/**
 * The prebuilt bundle's hash as the build recorded it (worker/build-bundle.ts), while the file is
 * the one it wrote (same size and modification time): hashing its 1.3 MB again costs every
 * command that names its build (`run`'s start included) some 5 ms. Undefined otherwise.
 */
function stampedHash(path: string): string | undefined {
  if (path !== PREBUILT_BUNDLE) return undefined;
  try {
    const { bundle } = JSON.parse(readFileSync(BUILD_STAMP, 'utf8')) as {
      bundle?: { sha256_12?: string; size?: number; mtime_ms?: number };
    };
    const now = statSync(path);
    return bundle?.sha256_12 && bundle.size === now.size && bundle.mtime_ms === now.mtimeMs
      ? bundle.sha256_12
      : undefined;
  } catch {
    return undefined;
  }
}

let codeIdCached: string | undefined;
let builtAtCached: { value: string | undefined } | undefined;

/** When `npm run build` made this dist/ (ISO time); undefined when running from source. */
export function builtAt(): string | undefined {
  if (builtAtCached === undefined) {
    let value: string | undefined;
    try {
      value = (JSON.parse(readFileSync(BUILD_STAMP, 'utf8')) as { built_at?: string }).built_at;
    } catch {
      value = undefined;
    }
    builtAtCached = { value };
  }
  return builtAtCached.value;
}

/** What orders two builds: the package version, then (same version) when each was built. */
export interface BuildOrder {
  version: string;
  built_at?: string;
}

/** This process's place in the order of builds. */
export function thisBuild(): BuildOrder {
  const at = builtAt();
  return { version: buildInfo().version, ...(at === undefined ? {} : { built_at: at }) };
}

/**
 * Whether `other` is strictly newer than `me`: a higher version (semver precedence: numbers,
 * then a pre-release below its release), or the same version built later. Unknown build times
 * do not order: a build is not newer for lack of a stamp.
 */
export function isNewerBuild(other: BuildOrder, me: BuildOrder = thisBuild()): boolean {
  const byVersion = compareVersions(other.version, me.version);
  if (byVersion !== 0) return byVersion > 0;
  if (other.built_at === undefined || me.built_at === undefined) return false;
  return Date.parse(other.built_at) > Date.parse(me.built_at);
}

/** Semver precedence of `a` against `b` (negative, 0, positive); build metadata (`+…`) is ignored. */
export function compareVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const [core = '', pre] = v.split('+')[0]!.split(/-(.*)/s);
    return {
      nums: core.split('.').map((n) => Number.parseInt(n, 10) || 0),
      pre: pre === undefined || pre === '' ? undefined : pre.split('.'),
    };
  };
  const x = parse(a);
  const y = parse(b);
  for (let i = 0; i < Math.max(x.nums.length, y.nums.length); i += 1) {
    const d = (x.nums[i] ?? 0) - (y.nums[i] ?? 0);
    if (d !== 0) return d;
  }
  if (x.pre === undefined || y.pre === undefined) return (x.pre === undefined ? 1 : 0) - (y.pre === undefined ? 1 : 0);
  for (let i = 0; i < Math.max(x.pre.length, y.pre.length); i += 1) {
    const p = x.pre[i];
    const q = y.pre[i];
    if (p === undefined || q === undefined) return p === undefined ? -1 : 1;
    if (p === q) continue;
    const pn = /^\d+$/.test(p);
    const qn = /^\d+$/.test(q);
    if (pn && qn) return Number(p) - Number(q);
    if (pn !== qn) return pn ? -1 : 1;
    return p < q ? -1 : 1;
  }
  return 0;
}

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
