/**
 * Which `@temporalio/*` packages a command loads. A module preloaded with `node --import` notes
 * every module file the process loads (ESM loader hooks) and every `@temporalio/*` require, and
 * when the process exits writes the packages they carry: a file of the CLI bundle counts for the
 * SDK packages bundled into it (dist/cli/sdk-chunks.json, written by the build; the CommonJS
 * bundle, which holds them all, reports each bundled package it starts), a file of
 * node_modules/@temporalio/<package>/ for that package. For the commands that must not load the
 * SDK when the checkout's worker serves them, and for the bundle's own checks.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CliResult } from './cli.js';

/** Runs in the loader's thread: appends each module's URL to `<LL_T_PROBE_OUT>.urls`. */
const HOOKS = `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  appendFileSync(process.env.LL_T_PROBE_OUT + '.urls', url + '\\n');
  return next(url, context);
}
`;

const PROBE = `import Module, { register } from 'node:module';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOKS)}));
const files = new Set();
// The CommonJS bundle (dist/cli/whole.cjs) reports each bundled module it starts (tools/bundle-cli.mjs).
const bundledModules = new Set();
globalThis.__llModuleInit = (path) => bundledModules.add(path);
const load = Module._load;
Module._load = function (request, parent, ...rest) {
  if (typeof request === 'string' && (request.startsWith('@temporalio/') || request.includes('node_modules'))) {
    try {
      files.add(Module._resolveFilename(request, parent));
    } catch {
      // unresolvable: the load below throws as it would have
    }
  }
  return load.call(this, request, parent, ...rest);
};
process.on('exit', () => {
  const out = process.env.LL_T_PROBE_OUT;
  if (existsSync(out + '.urls')) {
    for (const url of readFileSync(out + '.urls', 'utf8').split('\\n')) if (url.startsWith('file:')) files.add(fileURLToPath(url));
    rmSync(out + '.urls', { force: true });
  }
  const sdk = new Set();
  const native = [];
  for (const path of bundledModules) {
    const pkg = /node_modules\\/(@temporalio\\/[^/]+)\\//.exec(path);
    if (pkg) sdk.add(pkg[1] + ' (bundled)');
  }
  const chunks = new Map();
  for (const file of files) {
    const p = file.replace(/\\\\/g, '/');
    const pkg = /node_modules\\/(@temporalio\\/[^/]+)\\//.exec(p);
    if (pkg) {
      if (p.endsWith('.node')) native.push(pkg[1]);
      else sdk.add(pkg[1]);
      continue;
    }
    const chunk = /\\/dist\\/cli\\/([^/]+\\.js)$/.exec(p);
    if (!chunk) continue;
    const dir = dirname(file);
    if (!chunks.has(dir)) {
      const manifest = join(dir, 'sdk-chunks.json');
      chunks.set(dir, existsSync(manifest) ? JSON.parse(readFileSync(manifest, 'utf8')) : {});
    }
    for (const name of chunks.get(dir)[chunk[1]] ?? []) sdk.add(name + ' (bundled)');
  }
  writeFileSync(out, JSON.stringify({ sdk: [...sdk].sort(), native }));
});
`;

export type Cli = (dir: string, args: string[], extraEnv?: NodeJS.ProcessEnv) => Promise<CliResult>;

/** What a probed command loaded of the Temporal SDK. */
export interface SdkLoaded {
  /** `@temporalio/<name>` from node_modules; `@temporalio/<name> (bundled)` from the CLI bundle. */
  sdk: string[];
  /** The packages whose native module (`.node`) it loaded: the worker's core. */
  native: string[];
}

/** The probe, written to `<dir>/probe.mjs`: give it to a command with `NODE_OPTIONS=--import=<it>`. */
function writeSdkProbe(dir: string): { probe: string; read: (out: string) => SdkLoaded } {
  const probe = join(dir, 'probe.mjs');
  writeFileSync(probe, PROBE);
  return {
    probe,
    read: (out) => {
      const loaded = JSON.parse(readFileSync(out, 'utf8')) as SdkLoaded;
      rmSync(out, { force: true });
      return loaded;
    },
  };
}

/** Write the probe into `dir`; returns how to run a command with it: its result and the SDK packages it loaded. */
export function sdkProbe(
  dir: string,
  cli: Cli,
): (cwd: string, args: string[], extraEnv?: NodeJS.ProcessEnv) => Promise<CliResult & SdkLoaded> {
  const { probe, read } = writeSdkProbe(dir);
  return async (cwd, args, extraEnv = {}) => {
    const out = join(cwd, `probe-${Math.random().toString(36).slice(2)}.json`);
    const r = await cli(cwd, args, { NODE_OPTIONS: `--import=${probe}`, LL_T_PROBE_OUT: out, ...extraEnv });
    return { ...r, ...read(out) };
  };
}
