/**
 * What a checkout's user service runs, whatever the service manager: this Node and this
 * package's `bin/ll-loop.js` with `worker`, in the checkout's root, with a small copied
 * environment, its output appended to the worker log. The managers only write it down
 * (systemd.ts, launchd.ts).
 */
import { workerLogPath } from '../../host/checkout.js';
import { LL_LOOP_BIN } from '../../host/bin-path.js';

/** Tells the worker it runs under the user service (its record's `started_by`). */
const STARTED_BY_ENV = 'LL_WORKER_STARTED_BY';

export interface ServiceDefinition {
  /** The checkout's absolute root: the working directory. */
  root: string;
  /** The program and its arguments (absolute paths: a service has no shell and a small PATH). */
  argv: string[];
  /** The environment variables the service sets, in a stable order. */
  env: Array<[string, string]>;
  /** Where stdout and stderr are appended. */
  logFile: string;
}

/**
 * The variables copied from the installing shell: `PATH` (actions and the host CLI are found on
 * it), where Temporal is (`TEMPORAL_ADDRESS`, `TEMPORAL_NAMESPACE`) and ll-loop's own `LL_*`
 * settings. Nothing else: `TEMPORAL_API_KEY`, TLS material and other secrets are never written
 * into a file under the user's config (docs/cli.md says how to add them).
 */
export function copiedEnv(env: NodeJS.ProcessEnv): Array<[string, string]> {
  const names = Object.keys(env)
    .filter(
      (name) =>
        name === 'PATH' || name === 'TEMPORAL_ADDRESS' || name === 'TEMPORAL_NAMESPACE' || name.startsWith('LL_'),
    )
    .filter((name) => name !== STARTED_BY_ENV && env[name] !== undefined && env[name] !== '')
    .sort();
  return [...names.map((name): [string, string] => [name, env[name]!]), [STARTED_BY_ENV, 'service']];
}

/** The service of the checkout at `root`, as installed from a shell with `env`. */
export function serviceDefinition(
  root: string,
  env: NodeJS.ProcessEnv,
  node: string = process.execPath,
  bin: string = LL_LOOP_BIN,
): ServiceDefinition {
  return { root, argv: [node, bin, 'worker'], env: copiedEnv(env), logFile: workerLogPath(root) };
}
