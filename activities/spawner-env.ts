/**
 * The action spawner's own environment: the worker's without NODE_EXTRA_CA_CERTS.
 *
 * Why: Node 20 reads and parses that file as each process starts, before any of its code runs
 * (nodejs/node#40524; OpenSSL 3 is slow at it): with Debian's bundle of ~140 certificates,
 * 0.12 s of CPU on every start of a spawner, which makes no TLS connection at all. Its actions
 * are another matter (a Node tool behind a proxy needs the certificates), and they never see the
 * spawner's environment: each is started with its run's whole environment, sent with the request
 * (activities/action-env.ts), the variable included when the run's command had it.
 */

/** The environment to start the spawner with, from the worker's `env`. */
export function spawnerStartEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { NODE_EXTRA_CA_CERTS: _certs, ...rest } = env;
  return rest;
}
