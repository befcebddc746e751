#!/usr/bin/env node
// The installed entry point: the CLI bundle (tools/bundle-cli.mjs) built by `npm install` via
// prepare. The commands that load much of the bundle run its CommonJS build with V8's code cache
// (bin/code-cache.js); the rest run its split ES-module build, which reads only their chunks.
// CommonJS (bin/package.json): Node starts a CommonJS file without its ES module loader, some
// 13 ms of CPU sooner, and `run` asks its worker for the start from here (and `run --background`
// is done here when the worker queued its start: runs/start/early-start.ts).
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');
const { pathToFileURL } = require('node:url');

const root = join(__dirname, '..');
const bundled = join(root, 'dist', 'cli', 'cli.js');
const whole = join(root, 'dist', 'cli', 'whole.cjs');
/**
 * The commands that load most of the bundle, and so run faster from the whole file with the code
 * cache than from the split bundle (each was measured so; the worker and `worker status` too, in
 * codeCached). The commands the checkout's worker answers (`status`, `logs`, `history`, `inbox`)
 * and `--help` read only their chunks and stay on the split bundle with the rest (unless they
 * answer themselves, below). The command's name keys its cache (a known name only: no cache file
 * for a typo).
 */
const CODE_CACHED = new Set([
  'run',
  'resume',
  'rerun',
  'ui',
  'monitor',
  'schedule',
  'test',
  'simulate',
  'compile',
  'validate',
  'show',
  'list',
]);

/**
 * The commands the checkout's worker answers, when they answer themselves instead: on an external
 * server (TEMPORAL_ADDRESS) they never ask the worker (runs/worker-ask.ts) and load the SDK,
 * which runs faster from the code cache.
 */
const WORKER_ANSWERED = new Set(['status', 'logs', 'history', 'inbox', 'queue']);

function answersItself(env) {
  return (env.TEMPORAL_ADDRESS ?? '').trim() !== '';
}

function codeCached(args) {
  if (CODE_CACHED.has(args[0])) return args[0];
  if (WORKER_ANSWERED.has(args[0]) && answersItself(process.env)) return `${args[0]}-direct`;
  if (args[0] === 'worker' && (args[1] === undefined || args[1].startsWith('-'))) return 'worker';
  if (args[0] === 'worker' && args[1] === 'status') return 'worker-status';
  return undefined;
}

const args = process.argv.slice(2);
/**
 * `run` first asks the checkout's worker to start the run, before loading the CLI
 * (runs/start/early-start.ts): the worker starts it while this process loads the rest.
 */
const earlyFile = join(root, 'dist', 'cli', 'early-start.cjs');
const early = args[0] === 'run' && existsSync(earlyFile) ? askEarly() : undefined;

/** The early start, or undefined: whatever goes wrong in asking early, the command starts the run itself. */
function askEarly() {
  try {
    return require(earlyFile).earlyStart(args, process.cwd(), process.env);
  } catch {
    return undefined;
  }
}

const cached = codeCached(args);

async function main() {
  // The request on its way before the CLI's long synchronous load.
  await early?.sent;
  // `run --background` the worker queued: printed here, and nothing more to do (no CLI to load).
  if (typeof early?.printQueued === 'function' && (await early.printQueued())) return;
  if (cached !== undefined && existsSync(whole)) {
    const { loadWithCodeCache } = require('./code-cache.js');
    await loadWithCodeCache(whole, cached).exports.runCli(args, early);
    return;
  }
  if (!existsSync(bundled)) {
    process.stderr.write(
      `error: ll-loop is not built (${bundled} is missing)\nfix: run "npm install" (or "npm run build") in ${root}\n`,
    );
    process.exit(1);
  }
  const { runCli } = await import(pathToFileURL(bundled).href);
  await runCli(args, early);
}

// runCli never throws (client/cli.ts main reports every error): anything else is a crash, with its stack.
void main();
