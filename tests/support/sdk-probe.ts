/**
 * Which `@temporalio/*` packages a command loads: a module preloaded with `node --import` records
 * every such require (the CLI bundle leaves them external) and writes the list when the process
 * exits. For the commands that must not load the SDK when the checkout's worker serves them.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CliResult } from './cli.js';

const PROBE = `import Module from 'node:module';
import { writeFileSync } from 'node:fs';
const sdk = new Set();
const load = Module._load;
Module._load = function (request, ...rest) {
  if (typeof request === 'string' && request.startsWith('@temporalio/')) sdk.add(request);
  return load.call(this, request, ...rest);
};
process.on('exit', () => writeFileSync(process.env.LL_T_PROBE_OUT, JSON.stringify({ sdk: [...sdk] })));
`;

export type Cli = (dir: string, args: string[], extraEnv?: NodeJS.ProcessEnv) => CliResult;

/** Write the probe into `dir`; returns how to run a command with it: its result and the SDK packages it loaded. */
export function sdkProbe(
  dir: string,
  cli: Cli,
): (cwd: string, args: string[], extraEnv?: NodeJS.ProcessEnv) => CliResult & { sdk: string[] } {
  const probe = join(dir, 'probe.mjs');
  writeFileSync(probe, PROBE);
  return (cwd, args, extraEnv = {}) => {
    const out = join(cwd, `probe-${Math.random().toString(36).slice(2)}.json`);
    const r = cli(cwd, args, { NODE_OPTIONS: `--import=${probe}`, LL_T_PROBE_OUT: out, ...extraEnv });
    const sdk = (JSON.parse(readFileSync(out, 'utf8')) as { sdk: string[] }).sdk;
    rmSync(out, { force: true });
    return { ...r, sdk };
  };
}
