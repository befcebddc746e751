/**
 * `node tools/run-parallel.mjs lint typecheck`: the named npm scripts at once (`npm test` runs its
 * static checks this way: eslint, prettier and each tsc use one core, the machine has two). Each
 * script's output is printed whole when it ends, not interleaved; the exit code is the first
 * failing script's, else 0.
 */
import { spawn } from 'node:child_process';

const scripts = process.argv.slice(2);
if (scripts.length === 0) {
  process.stderr.write('error: no script named\nfix: node tools/run-parallel.mjs <npm script>…\n');
  process.exit(2);
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** Run `npm run -s <name>`; resolve with its exit code once its output is printed. */
function run(name) {
  return new Promise((resolve) => {
    const child = spawn(npm, ['run', '-s', name], { stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks = [];
    child.stdout.on('data', (d) => chunks.push(d));
    child.stderr.on('data', (d) => chunks.push(d));
    child.on('error', (err) => chunks.push(Buffer.from(`${err.message}\n`)));
    child.on('close', (code, signal) => {
      const status = code ?? (signal ? 1 : 0);
      process.stdout.write(`\n> ${name}: ${status === 0 ? 'ok' : `failed (exit ${code ?? signal})`}\n`);
      process.stdout.write(Buffer.concat(chunks));
      resolve(status);
    });
  });
}

const codes = await Promise.all(scripts.map(run));
process.exitCode = codes.find((c) => c !== 0) ?? 0;
