/**
 * A small process that starts the test files' commands for them (tests/support/cli.ts,
 * `runCliBinary`) and sends back how each ended: its exit code and what it printed.
 *
 * Why: starting a child costs its parent a fork whose price grows with the parent's resident
 * memory (the page tables are copied): 1.8 ms of CPU per spawn from a 71 MB process, 21.5 ms
 * from 680 MB. A test fork holds 100–235 MB a minute into a run and more later (the SDK, every
 * module its files loaded, their data), and its main thread is blocked for that time; this
 * process holds only this file. Measured on the suite, the gain is a few seconds of CPU, inside
 * the run-to-run noise of `npm test`; the forks' main threads no longer stall on each command.
 * The same reason the worker has its action spawner (activities/action-spawner.ts).
 *
 * Protocol (Node's IPC channel): a request `{ id, file, args, cwd, env, timeoutMs }`; the reply
 * `{ id, code, stdout, stderr }` where `code` is the exit status, or -1 when the command ended by a
 * signal, was still running at the timeout or could not be started. After `timeoutMs` the command
 * is sent SIGTERM and its output no longer read. Its stdin is /dev/null.
 * When the channel closes (the test fork is gone), this process exits; running commands are left
 * to end by themselves, as they would be had the fork started them.
 */
'use strict';
const { spawn } = require('node:child_process');

function run(request) {
  const child = spawn(request.file, request.args, {
    cwd: request.cwd,
    env: request.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let exited = false;
  let killed = false;
  let failed;
  child.stdout.setEncoding('utf8').on('data', (text) => (stdout += text));
  child.stderr.setEncoding('utf8').on('data', (text) => (stderr += text));
  child.on('exit', () => (exited = true));
  // Not started (or not killable); 'close' follows.
  child.on('error', (err) => (failed = err));
  // Stop reading too, so that a process the command left holding its output (one it started in
  // the background) does not keep the reply waiting after the command.
  const timer = setTimeout(() => {
    killed = !exited;
    child.kill('SIGTERM');
    child.stdout.destroy();
    child.stderr.destroy();
  }, request.timeoutMs);
  child.on('close', (code) => {
    clearTimeout(timer);
    const reply =
      failed !== undefined
        ? { id: request.id, code: -1, stdout, stderr: `${stderr}${failed.message}\n` }
        : { id: request.id, code: killed ? -1 : (code ?? -1), stdout, stderr };
    if (process.connected) process.send(reply);
  });
}

process.on('message', run);
process.on('disconnect', () => process.exit(0));
