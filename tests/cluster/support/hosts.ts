/**
 * Hosts for the pool tests: each a network namespace (`ip netns`) with its own address and a UTS
 * namespace with its own hostname, joined to this machine by a veth pair on a bridge of its own.
 * The hosts reach the cluster (listening on 127.0.0.1 here) through a TCP relay on the bridge's
 * address; cutting a host is taking its link down, so its connections stall as over a real
 * network. Needs root and iproute2; {@link hostsUnavailable} says why not.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { createConnection, createServer, type Socket } from 'node:net';
import { BIN, type CliResult } from '../../support/cli.js';

export interface Host {
  name: string;
  netns: string;
  /** This machine's end of the host's veth pair: taking it down cuts the host off. */
  link: string;
  ip: string;
}

export interface Hosts {
  /** host:port of the cluster as the hosts reach it (the relay). */
  address: string;
  hosts: Host[];
  /** Start `ll-loop <args>` on a host (its own hostname and network), output collected. */
  spawn(host: Host, args: string[], env: NodeJS.ProcessEnv): { child: ChildProcess; out: { text: string } };
  /** `ll-loop <args>` on a host, waited for (asynchronously: this process relays its traffic). */
  run(host: Host, args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<CliResult>;
  cut(host: Host): void;
  restore(host: Host): void;
  teardown(): Promise<void>;
}

/** Why hosts cannot be made here, or undefined when they can. */
export function hostsUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'network namespaces need root';
  if (spawnSync('ip', ['netns', 'list']).status !== 0) return 'iproute2 (ip netns) is missing';
  if (spawnSync('unshare', ['--version']).status !== 0) return 'unshare (util-linux) is missing';
  return undefined;
}

function ip(...args: string[]): void {
  const r = spawnSync('ip', args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`ip ${args.join(' ')} failed: ${r.stderr}`);
}

/** A relay on `listenIp` to 127.0.0.1:`targetPort`, bytes as they are. */
async function relay(listenIp: string, targetPort: number): Promise<{ stop: () => Promise<void>; port: number }> {
  const sockets = new Set<Socket>();
  const server = createServer((inbound) => {
    const outbound = createConnection({ host: '127.0.0.1', port: targetPort });
    for (const s of [inbound, outbound]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {
        inbound.destroy();
        outbound.destroy();
      });
    }
    inbound.pipe(outbound).pipe(inbound);
  });
  await new Promise<void>((resolve) => server.listen(0, listenIp, resolve));
  const stop = async (): Promise<void> => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    sockets.forEach((s) => s.destroy());
    await closed;
  };
  return { stop, port: (server.address() as { port: number }).port };
}

/** Make `names` hosts reaching the cluster at 127.0.0.1:`clusterPort`. */
export async function makeHosts(names: string[], clusterPort: number): Promise<Hosts> {
  const tag = randomBytes(2).toString('hex');
  const subnet = `10.${200 + randomInt(50)}.${randomInt(250)}`;
  const bridge = `llb${tag}`;
  const bridgeIp = `${subnet}.1`;
  const hosts: Host[] = names.map((name, i) => ({
    name,
    netns: `ll-${tag}-${name}`,
    link: `llv${tag}${i}`,
    ip: `${subnet}.${10 + i}`,
  }));
  const children = new Set<ChildProcess>();
  ip('link', 'add', bridge, 'type', 'bridge');
  ip('addr', 'add', `${bridgeIp}/24`, 'dev', bridge);
  ip('link', 'set', bridge, 'up');
  for (const h of hosts) {
    ip('netns', 'add', h.netns);
    ip('link', 'add', h.link, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', h.netns);
    ip('link', 'set', h.link, 'master', bridge, 'up');
    ip('netns', 'exec', h.netns, 'ip', 'addr', 'add', `${h.ip}/24`, 'dev', 'eth0');
    ip('netns', 'exec', h.netns, 'ip', 'link', 'set', 'eth0', 'up');
    ip('netns', 'exec', h.netns, 'ip', 'link', 'set', 'lo', 'up');
  }
  const { stop, port } = await relay(bridgeIp, clusterPort);
  // On the host: its network, its hostname (a UTS namespace of its own), then node.
  const argvOn = (h: Host, args: string[]) => [
    'netns',
    'exec',
    h.netns,
    'unshare',
    '--uts',
    'sh',
    '-c',
    'hostname "$0" && exec "$@"',
    h.name,
    process.execPath,
    BIN,
    ...args,
  ];
  return {
    address: `${bridgeIp}:${port}`,
    hosts,
    spawn(h, args, env) {
      const child = spawn('ip', argvOn(h, args), { env, cwd: '/' });
      children.add(child);
      child.on('exit', () => children.delete(child));
      const out = { text: '' };
      child.stdout!.on('data', (d: Buffer) => (out.text += d.toString()));
      child.stderr!.on('data', (d: Buffer) => (out.text += d.toString()));
      return { child, out };
    },
    run(h, args, env, cwd) {
      const child = spawn('ip', argvOn(h, args), { env, cwd });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      return new Promise((resolve) => child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr })));
    },
    cut: (h) => ip('link', 'set', h.link, 'down'),
    restore: (h) => ip('link', 'set', h.link, 'up'),
    async teardown() {
      for (const child of children) child.kill('SIGKILL');
      await stop();
      for (const h of hosts) spawnSync('ip', ['netns', 'del', h.netns]);
      spawnSync('ip', ['link', 'del', bridge]);
    },
  };
}
