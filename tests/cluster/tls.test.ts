/**
 * mTLS on the frontend (self-signed certificates), with ll-loop configured through the SDK's
 * standard environment variables: setup and a run work; a certificate the server does not accept,
 * or a server certificate ll-loop does not trust, is one line with the fix.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCluster } from './support/cluster.js';
import { useClusterProject } from './support/project.js';
import { startTlsServer, type TlsServer } from './support/tls-server.js';

const project = useClusterProject('ll-loop-cluster-tls-');
let server: TlsServer;
/** The certificates are made with openssl; without it the file is skipped, saying so. */
const noOpenssl = spawnSync('openssl', ['version']).status !== 0;

beforeAll(async () => {
  if (!noOpenssl) server = await startTlsServer(loadCluster());
}, 180_000);
afterAll(async () => server?.stop());

/**
 * stderr without Node's own notice for a TLS server name that is an IP address (DEP0123, printed
 * by the runtime when gRPC connects to 127.0.0.1 with TLS; a host name has none).
 */
const ownLines = (stderr: string) =>
  stderr
    .trim()
    .split('\n')
    .filter((l) => !/^\(node:\d+\) \[DEP0123\]|^\(Use `node --trace-deprecation/.test(l));

const tlsEnv = (cert: string, key: string, ca?: string): NodeJS.ProcessEnv => ({
  TEMPORAL_ADDRESS: server.address,
  TEMPORAL_TLS_CERT: cert,
  TEMPORAL_TLS_KEY: key,
  ...(ca ? { TEMPORAL_TLS_CA: ca } : {}),
});

describe.skipIf(noOpenssl)(`a frontend with mTLS${noOpenssl ? ' (skipped: openssl is missing)' : ''}`, () => {
  it('the right certificates: cluster setup, then a run', async () => {
    const env = tlsEnv(server.files.clientCert, server.files.clientKey, server.files.ca);
    const setup = await project.cli(['cluster', 'setup'], env);
    expect(setup.code, setup.stdout + setup.stderr).toBe(0);
    expect(setup.stdout).toContain(`ready: ${server.address} namespace default`);
    project.loop(
      'hello',
      'name: hello\ndescription: d\nscope: [hello]\ninitial: a\nstates:\n  a:\n    action: "echo hi >> tls.log"\n    next: done\n  done:\n    terminal: true\n',
    );
    const run = await project.cli(['run', 'hello'], env);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(project.lines('tls.log')).toEqual(['hi']);
    await project.cli(['worker', 'stop'], env);
  });

  it('a client certificate of another CA: one line with the fix (exit 7)', async () => {
    const r = await project.cli(
      ['cluster', 'setup', '--check'],
      tlsEnv(server.files.strangerCert, server.files.strangerKey, server.files.ca),
    );
    expect(r.code).toBe(7);
    const [error, fix, ...rest] = ownLines(r.stderr);
    expect(rest, r.stderr).toEqual([]);
    expect(error).toBe(
      `error: Temporal at ${server.address} refused ll-loop's TLS client certificate (tlsv1 alert unknown ca)`,
    );
    expect(fix).toMatch(/^fix: set TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY to a client certificate/);
  });

  it("the server's certificate not trusted (no TEMPORAL_TLS_CA): one line with the fix (exit 7)", async () => {
    const r = await project.cli(
      ['cluster', 'setup', '--check'],
      tlsEnv(server.files.clientCert, server.files.clientKey),
    );
    expect(r.code).toBe(7);
    const [error, fix, ...rest] = ownLines(r.stderr);
    expect(rest, r.stderr).toEqual([]);
    expect(error).toBe(
      `error: the TLS certificate of Temporal at ${server.address} is not trusted (unable to verify the first certificate)`,
    );
    expect(fix).toMatch(/^fix: set TEMPORAL_TLS_CA to the PEM file of the CA/);
  });

  it('TLS asked of the plaintext server: one line with the fix (exit 7)', async () => {
    const r = await project.cli(['cluster', 'setup', '--check'], {
      TEMPORAL_ADDRESS: loadCluster().address,
      TEMPORAL_TLS: 'true',
    });
    expect(r.code).toBe(7);
    const [error, fix, ...rest] = ownLines(r.stderr);
    expect(rest, r.stderr).toEqual([]);
    expect(error).toMatch(new RegExp(`^error: Temporal at ${loadCluster().address} does not speak TLS \\(`));
    expect(fix).toMatch(/^fix: set TEMPORAL_TLS=false/);
  });
});
