/**
 * A throwaway PostgreSQL for the cluster tier: the system's binaries (installed from Debian's
 * packages when missing and we are root), a data directory of its own, its own port, listening
 * on 127.0.0.1 only. initdb refuses to run as root, so as root every PostgreSQL binary runs as
 * the `postgres` system user (created when missing).
 *
 * The superuser is `temporal` with trust authentication: the database exists only for the tests.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export interface PostgresInstance {
  bin: string;
  dataDir: string;
  port: number;
  logFile: string;
  /** Run as this user (root only). */
  user?: { name: string; uid: number; gid: number };
}

/** The directory holding initdb, pg_ctl and postgres: PATH first, then Debian's layout. */
function findPostgresBin(): string | undefined {
  const candidates = (process.env.PATH ?? '').split(':').filter(Boolean);
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian))
    for (const v of readdirSync(debian).sort((a, b) => Number(b) - Number(a))) candidates.push(join(debian, v, 'bin'));
  return candidates.find((dir) => ['initdb', 'pg_ctl', 'postgres'].every((b) => existsSync(join(dir, b))));
}

/** The binaries, installing Debian's `postgresql` package when missing and we may. */
function ensurePostgresBin(log: (m: string) => void): string {
  const found = findPostgresBin();
  if (found) return found;
  if (process.getuid?.() === 0 && existsSync('/usr/bin/apt-get')) {
    log('PostgreSQL is missing: installing Debian\'s "postgresql" package');
    execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'postgresql'], {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    const installed = findPostgresBin();
    if (installed) return installed;
  }
  throw new Error(
    'PostgreSQL (initdb, pg_ctl, postgres) is not installed. Fix: install it (Debian: apt-get install postgresql) or put its bin directory on PATH.',
  );
}

function idOf(flag: '-u' | '-g', name: string): number {
  return Number(execFileSync('id', [flag, name], { encoding: 'utf8' }).trim());
}

/** As root: the `postgres` system user, created when missing. */
function postgresUser(): PostgresInstance['user'] {
  if (process.getuid?.() !== 0) return undefined;
  if (spawnSync('id', ['-u', 'postgres']).status !== 0)
    execFileSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres']);
  return { name: 'postgres', uid: idOf('-u', 'postgres'), gid: idOf('-g', 'postgres') };
}

/** Run a PostgreSQL binary (as the postgres user when we are root). */
function pg(instance: PostgresInstance, binary: string, args: string[]): string {
  const path = join(instance.bin, binary);
  const [cmd, argv] = instance.user ? ['runuser', ['-u', instance.user.name, '--', path, ...args]] : [path, args];
  const r = spawnSync(cmd, argv, { encoding: 'utf8', cwd: '/' });
  if (r.status !== 0)
    throw new Error(`${binary} ${args.join(' ')} failed (${r.status ?? r.signal}): ${r.stderr || r.stdout}`);
  return r.stdout;
}

/** initdb in `<dir>/pgdata` (dir must exist); the server is not started. */
export function initPostgres(dir: string, port: number, log: (m: string) => void): PostgresInstance {
  const bin = ensurePostgresBin(log);
  const user = postgresUser();
  const instance: PostgresInstance = {
    bin,
    dataDir: join(dir, 'pgdata'),
    port,
    logFile: join(dir, 'postgres.log'),
    ...(user ? { user } : {}),
  };
  if (user) {
    // The postgres user must reach its data directory through ours.
    chmodSync(dir, 0o755);
    mkdirSync(instance.dataDir, { mode: 0o700 });
    chownSync(instance.dataDir, user.uid, user.gid);
    chownSync(dir, process.getuid!(), process.getgid!());
  }
  pg(instance, 'initdb', ['-D', instance.dataDir, '-U', 'temporal', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  return instance;
}

/** Start and wait until it accepts connections (pg_ctl -w). */
export function startPostgres(instance: PostgresInstance): void {
  const options = [
    `-p ${instance.port}`,
    '-c listen_addresses=127.0.0.1',
    // The socket in the data directory: /var/run/postgresql may not exist or be another's.
    `-c unix_socket_directories=${instance.dataDir}`,
    '-c max_connections=200',
    // A throwaway database on a shared disk: no fsync (a clean restart keeps everything).
    '-c fsync=off',
  ].join(' ');
  if (instance.user) touchLog(instance);
  pg(instance, 'pg_ctl', ['-D', instance.dataDir, '-l', instance.logFile, '-o', options, '-w', '-t', '60', 'start']);
}

function touchLog(instance: PostgresInstance): void {
  if (!existsSync(instance.logFile)) execFileSync('touch', [instance.logFile]);
  chownSync(instance.logFile, instance.user!.uid, instance.user!.gid);
}

/** Stop (fast: open connections are closed, committed data stays). */
export function stopPostgres(instance: PostgresInstance): void {
  if (!existsSync(join(instance.dataDir, 'postmaster.pid'))) return;
  pg(instance, 'pg_ctl', ['-D', instance.dataDir, '-m', 'fast', '-w', '-t', '60', 'stop']);
}
