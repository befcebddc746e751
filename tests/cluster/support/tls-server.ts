/**
 * A second Temporal server of the cluster tier whose frontend speaks mTLS: self-signed
 * certificates made with openssl (a CA, the server's, a client's, and a client's of another CA),
 * its own databases on the tier's PostgreSQL, its own ports. The other tests keep the plaintext
 * server; this one exists only while tests/cluster/tls.test.ts runs.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, pidAlive, waitFor } from '../../support/processes.js';
import type { ClusterState } from './cluster.js';
import { setupSchemas, spawnServer, waitForServer, writeServerConfig, type ServerPorts } from './temporal-server.js';

interface TlsFiles {
  ca: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
  /** A client certificate the server's CA did not sign. */
  strangerCert: string;
  strangerKey: string;
}

export interface TlsServer {
  address: string;
  files: TlsFiles;
  stop(): Promise<void>;
}

function openssl(...args: string[]): void {
  execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

/** A key and a certificate for `cn` signed by `ca` (key, cert), with `ext` (X.509v3 lines). */
function signed(dir: string, name: string, cn: string, ca: [string, string], ext: string): [string, string] {
  const key = join(dir, `${name}.key`);
  const csr = join(dir, `${name}.csr`);
  const cert = join(dir, `${name}.pem`);
  const extFile = join(dir, `${name}.ext`);
  writeFileSync(extFile, ext);
  openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', csr, '-subj', `/CN=${cn}`);
  openssl(
    'x509',
    '-req',
    '-in',
    csr,
    '-CA',
    ca[1],
    '-CAkey',
    ca[0],
    '-CAcreateserial',
    '-days',
    '2',
    '-out',
    cert,
    '-extfile',
    extFile,
  );
  return [key, cert];
}

function authority(dir: string, name: string): [string, string] {
  const key = join(dir, `${name}.key`);
  const cert = join(dir, `${name}.pem`);
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    key,
    '-out',
    cert,
    '-days',
    '2',
    '-subj',
    `/CN=${name}`,
  );
  return [key, cert];
}

/** The certificates, in `dir`. */
function makeCertificates(dir: string): TlsFiles {
  mkdirSync(dir, { recursive: true });
  const ca = authority(dir, 'll-loop-test-ca');
  const stranger = authority(dir, 'another-ca');
  const [serverKey, serverCert] = signed(
    dir,
    'server',
    'localhost',
    ca,
    'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n',
  );
  const [clientKey, clientCert] = signed(dir, 'client', 'll-loop', ca, 'extendedKeyUsage=clientAuth\n');
  const [strangerKey, strangerCert] = signed(dir, 'stranger', 'll-loop', stranger, 'extendedKeyUsage=clientAuth\n');
  return { ca: ca[1], serverCert, serverKey, clientCert, clientKey, strangerCert, strangerKey };
}

/**
 * The frontend's mTLS section of the server config. The server's own services talk TLS among
 * themselves too: its internal worker connects to the frontend with the internode certificate,
 * which the frontend's client CA must accept.
 */
function tlsSection(f: TlsFiles): string {
  return `  tls:
    internode:
      server:
        certFile: ${f.serverCert}
        keyFile: ${f.serverKey}
      client:
        serverName: localhost
        rootCaFiles:
          - ${f.ca}
    frontend:
      server:
        certFile: ${f.serverCert}
        keyFile: ${f.serverKey}
        requireClientAuth: true
        clientCaFiles:
          - ${f.ca}
      client:
        serverName: localhost
        rootCaFiles:
          - ${f.ca}
`;
}

/** Start the mTLS server on the tier's PostgreSQL (databases of its own). */
export async function startTlsServer(cluster: ClusterState): Promise<TlsServer> {
  const dir = join(cluster.dir, 'tls');
  const files = makeCertificates(dir);
  const dbs = { main: 'temporal_tls', visibility: 'temporal_tls_visibility' };
  setupSchemas(join(cluster.server, '..', 'sql'), cluster.postgres.port, dbs);
  const ports: ServerPorts = {
    frontend: await freePort(),
    frontendMembership: await freePort(),
    frontendHttp: await freePort(),
    history: await freePort(),
    historyMembership: await freePort(),
    matching: await freePort(),
    matchingMembership: await freePort(),
    worker: await freePort(),
    workerMembership: await freePort(),
  };
  const config = writeServerConfig(dir, ports, cluster.postgres.port, { dbs, tls: tlsSection(files) });
  const pid = spawnServer(cluster.server, config, join(dir, 'temporal.log'));
  const address = `127.0.0.1:${ports.frontend}`;
  await waitForServer(address, 90_000, {
    serverRootCACertificate: readFileSync(files.ca),
    clientCertPair: { crt: readFileSync(files.clientCert), key: readFileSync(files.clientKey) },
  });
  return {
    address,
    files,
    async stop() {
      try {
        process.kill(-pid, 'SIGTERM');
      } catch {
        return;
      }
      await waitFor('the TLS server to stop', () => !pidAlive(pid), 15_000).catch(() => process.kill(-pid, 'SIGKILL'));
    },
  };
}
