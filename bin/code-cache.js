/**
 * Loads the CLI's whole CommonJS bundle (dist/cli/whole.cjs) with V8's code cache: the bytecode
 * of the functions an earlier process of the same command compiled, so this one neither parses
 * nor compiles them again. Node 20 has no compile cache for ES modules; a `vm.Script` takes one.
 *
 * Used by bin/ll-loop.js for the commands it lists, each measured faster so (the figures are
 * there). The others keep the split ES-module bundle, which reads only their chunks.
 *
 * The cache: `<dist/cli>/code-cache/<command>-<digest>.bin`, one per command, Node version and
 * set of Node flags (V8 refuses a cache made by another version or under other flags). A process that found none, or whose cache
 * V8 refused (another build, another Node), writes one with what it compiled: at exit, and a
 * long-running one (the worker) also once it has run a while. Written to a temporary file and
 * renamed, so a reader sees a whole file or none. The folder is rebuilt with the bundle
 * (tools/bundle-cli.mjs empties dist/cli/). Where it cannot be written (a read-only install),
 * nothing is cached and nothing fails.
 */
'use strict';
const { createHash } = require('node:crypto');
const { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } = require('node:fs');
const Module = require('node:module');
const { basename, dirname, join } = require('node:path');
const vm = require('node:vm');
const { createRequire } = Module;

/** How long a process runs before it writes its cache when it would not write one at exit yet. */
const SAVE_AFTER_MS = 5_000;

/**
 * The name of a command's cache file: the command and a digest of the Node version and flags,
 * since V8 refuses a cache made by another version (Node 20 and 24 may share one install: each
 * would refuse and rewrite the other's) or under other flags (the checkout worker runs with
 * memory flags).
 */
function cacheFileName(command, execArgv = process.execArgv, nodeVersion = process.version) {
  const flags = createHash('sha256')
    .update([nodeVersion, ...execArgv].join('\0'))
    .digest('hex')
    .slice(0, 12);
  return `${command.replace(/[^a-z0-9-]/gi, '_')}-${flags}.bin`;
}

/**
 * Run the CommonJS file `file` as a module and return its exports, with its code from
 * `cacheDir/<cacheFileName(command)>` when V8 accepts that cache. When it found none or V8
 * refused it, the cache is written `saveAfterMs` later (default 5 s) in a process still running
 * then, else at exit; `save()` writes it at once (and only once).
 * `cache` says what happened: 'used', 'missing' or 'rejected'.
 */
function loadWithCodeCache(
  file,
  command,
  { cacheDir = join(dirname(file), 'code-cache'), saveAfterMs = SAVE_AFTER_MS } = {},
) {
  const cachePath = join(cacheDir, cacheFileName(command));
  let cachedData;
  try {
    cachedData = readFileSync(cachePath);
  } catch {
    // none yet: compiled from the source, and written below
  }
  // Read as Latin-1: the bundle is ASCII (tools/bundle-cli.mjs escapes the rest), so this is the
  // same text, without UTF-8 decoding: 3-9 ms for the 5.7 MB file instead of 12-45 ms.
  const script = new vm.Script(Module.wrap(readFileSync(file, 'latin1')), {
    filename: file,
    cachedData,
    // An `import()` in the bundle (today there is none: it requires what it leaves outside)
    // resolved as an ES module's would; Node before 20.12 lacks the constant and refuses one.
    importModuleDynamically: vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const cache = cachedData === undefined ? 'missing' : script.cachedDataRejected ? 'rejected' : 'used';
  const save = cache === 'used' ? () => undefined : saveOnce(script, cachePath, saveAfterMs);
  const module = { exports: {}, filename: file, id: file };
  const wrapper = script.runInThisContext();
  wrapper.call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
  return { exports: module.exports, cache, save };
}

/** A function that writes the script's code cache once; called after `afterMs` or at exit, whichever comes first. */
function saveOnce(script, cachePath, afterMs) {
  let saved = false;
  const save = () => {
    if (saved) return;
    saved = true;
    clearTimeout(timer);
    process.off('exit', save);
    writeCache(cachePath, script.createCachedData());
  };
  const timer = setTimeout(save, afterMs);
  timer.unref();
  process.on('exit', save);
  return save;
}

function writeCache(cachePath, data) {
  const tmp = join(dirname(cachePath), `.${basename(cachePath)}.${process.pid}.tmp`);
  try {
    mkdirSync(dirname(cachePath), { recursive: true });
    writeFileSync(tmp, data);
    renameSync(tmp, cachePath);
  } catch {
    // a folder this user cannot write: the next process compiles from the source, as without a cache
    try {
      rmSync(tmp, { force: true });
    } catch {
      // no folder at all: nothing was written
    }
  }
}

module.exports = { cacheFileName, loadWithCodeCache };
