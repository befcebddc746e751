/**
 * The action spawner's environment: the worker's, but with NODE_EXTRA_CA_CERTS carried under
 * another name while the spawner starts, and put back before its first action.
 *
 * Why: Node 20 reads and parses that file as each process starts, before any of its code runs
 * (nodejs/node#40524; OpenSSL 3 is slow at it): with Debian's bundle of ~140 certificates,
 * 0.12 s of CPU on every start of a spawner, which makes no TLS connection at all. Its actions
 * are another matter (a Node tool behind a proxy needs the certificates): they get the variable
 * exactly as the worker has it.
 */

/** Where the value waits while the spawner starts. */
const CARRIED = 'LL_SPAWNER_NODE_EXTRA_CA_CERTS';

/** The environment to start the spawner with, from the worker's `env`. */
export function spawnerStartEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { NODE_EXTRA_CA_CERTS: certs, ...rest } = env;
  return certs === undefined ? { ...env } : { ...rest, [CARRIED]: certs };
}

/** In the spawner, once started: the worker's environment again, for the actions it starts. */
export function restoreWorkerEnv(env: NodeJS.ProcessEnv): void {
  const certs = env[CARRIED];
  if (certs === undefined) return;
  env.NODE_EXTRA_CA_CERTS = certs;
  delete env[CARRIED];
}
