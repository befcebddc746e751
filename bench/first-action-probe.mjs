// Loaded with `node --import` in front of `ll-loop run` by bench/run.mjs, for the breakdown runs of
// "ll-loop run → first action" only (the headline runs are plain). It records, in wall-clock ms
// (performance.timeOrigin + performance.now(), the clock bench/run.mjs uses for the spawn):
//   preload       when Node has booted and runs this file;
//   sockets       each connection the process opens (diagnostics channel `net.client.socket`): the
//                 checkout worker's start socket first when `run` asks it for the start before it
//                 loads the CLI (runs/start/early-start.ts), then any TCP connection;
//   cli_compiled  when the CLI's CommonJS bundle (dist/cli/whole.cjs, bin/code-cache.js) is read
//                 and compiled, its modules about to run (undefined: the split ES-module bundle);
//   worker_sdk    when @temporalio/worker's code is first loaded (undefined: never loaded): required
//                 from node_modules, or the first chunk of the CLI bundle that carries it
//                 (dist/cli/sdk-chunks.json; an ESM loader hook notes each chunk as it loads);
//   client_sdk    the same for @temporalio/client;
//   cpu_ms        the process's CPU time (user + system) at exit, and at its first connection
//                 (cpu_at_socket_ms): load on the machine stretches wall time far more than CPU time;
// and writes them as JSON to $LL_BENCH_PROBE_OUT when the process exits. It loads nothing of the
// CLI itself: the bin does, as it would without the probe.
import dc from 'node:diagnostics_channel';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import Module, { register } from 'node:module';
import vm from 'node:vm';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(fileURLToPath(import.meta.url), '..', '..');

const now = () => performance.timeOrigin + performance.now();
const probe = {
  preload: now(),
  cli_compiled: undefined,
  sockets: [],
  worker_sdk: undefined,
  client_sdk: undefined,
  cpu_ms: undefined,
  cpu_at_socket_ms: undefined,
};
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

dc.subscribe('net.client.socket', () => {
  probe.sockets.push(now());
  probe.cpu_at_socket_ms ??= cpuMs();
});
const load = Module._load;
Module._load = function (request, parent, ...rest) {
  if (
    probe.worker_sdk === undefined &&
    (request === '@temporalio/worker' || parent?.filename?.includes('/@temporalio/worker/'))
  )
    probe.worker_sdk = now();
  if (
    probe.client_sdk === undefined &&
    (request === '@temporalio/client' || parent?.filename?.includes('/@temporalio/client/'))
  )
    probe.client_sdk = now();
  return load.call(this, request, parent, ...rest);
};

// The bundle's SDK chunks, noted by a loader hook (it runs in the loaders' thread: its clock is
// the same wall clock, its own time origin added).
const HOOKS = `import { appendFileSync } from 'node:fs';
let cfg;
export async function initialize(data) { cfg = data; }
export async function load(url, context, next) {
  const packages = url.startsWith(cfg.dir) ? cfg.chunks[url.slice(cfg.dir.length)] : undefined;
  if (packages) appendFileSync(cfg.out, JSON.stringify({ t: performance.timeOrigin + performance.now(), packages }) + '\\n');
  return next(url, context);
}
`;
const chunksFile = join(root, 'dist', 'cli', 'sdk-chunks.json');
const chunksOut = process.env.LL_BENCH_PROBE_OUT ? `${process.env.LL_BENCH_PROBE_OUT}.chunks` : undefined;
if (chunksOut && existsSync(chunksFile)) {
  register(`data:text/javascript,${encodeURIComponent(HOOKS)}`, {
    data: {
      chunks: JSON.parse(readFileSync(chunksFile, 'utf8')),
      dir: `${pathToFileURL(join(root, 'dist', 'cli')).href}/`,
      out: chunksOut,
    },
  });
}
const earliest = (a, b) => (a === undefined ? b : Math.min(a, b));

process.on('exit', () => {
  probe.cpu_ms = cpuMs();
  if (chunksOut && existsSync(chunksOut)) {
    for (const line of readFileSync(chunksOut, 'utf8').split('\n').filter(Boolean)) {
      const { t, packages } = JSON.parse(line);
      if (packages.includes('@temporalio/worker')) probe.worker_sdk = earliest(probe.worker_sdk, t);
      if (packages.includes('@temporalio/client')) probe.client_sdk = earliest(probe.client_sdk, t);
    }
    rmSync(chunksOut, { force: true });
  }
  if (process.env.LL_BENCH_PROBE_OUT) writeFileSync(process.env.LL_BENCH_PROBE_OUT, JSON.stringify(probe));
});

// bin/code-cache.js compiles the whole bundle with `new vm.Script(…)`, looked up when it runs.
const Script = vm.Script;
vm.Script = class extends Script {
  constructor(code, options) {
    super(code, options);
    if (options?.filename?.endsWith('whole.cjs')) probe.cli_compiled ??= now();
  }
};
