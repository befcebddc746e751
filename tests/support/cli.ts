/**
 * `ll-loop` in tests, two ways: in process through the CLI's own `main` (same parser, command
 * table and error policy as the bin, no process to spawn), or the built binary as a user runs it.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { main } from '../../client/cli.js';

/** What a command printed and the exit code it ended with. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The installed entry point (runs dist/, which `npm run build` writes). */
export const BIN = join(import.meta.dirname, '..', '..', 'bin', 'll-loop.js');

/**
 * `ll-loop <argv…>` in `cwd`, in this process, with its output captured. The sinks are not
 * terminals, so the output has no colour and the default width, as when piped.
 *
 * `env`: the command's whole environment, as a child process would get it. The command reads
 * `process.env`, so it is this process's for the command's duration and restored after: only for
 * a test whose other work does not run meanwhile (none of its tests at the same time).
 */
export async function runCliInProcess(
  argv: readonly string[],
  opts: { cwd: string; env?: NodeJS.ProcessEnv },
): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const restore = opts.env === undefined ? () => undefined : replaceEnv(opts.env);
  try {
    const code = await main([...argv], {
      cwd: opts.cwd,
      stdout: { write: (text: string) => void (stdout += text) },
      stderr: { write: (text: string) => void (stderr += text) },
    });
    return { code, stdout, stderr };
  } finally {
    restore();
  }
}

/** Make `process.env` exactly `env` (TZ included: Node reads its zone again); return the undo. */
function replaceEnv(env: NodeJS.ProcessEnv): () => void {
  const set = (values: NodeJS.ProcessEnv) => {
    for (const name of Object.keys(process.env)) if (values[name] === undefined) delete process.env[name];
    for (const [name, value] of Object.entries(values)) if (value !== undefined) process.env[name] = value;
  };
  const saved = { ...process.env };
  set(env);
  return () => set(saved);
}

/**
 * `ll-loop <argv…>` as a child process of the built binary, waited for without blocking this
 * process: a test fork blocked in spawnSync for a command's duration starved the file's other
 * tests (their polls, connections, timers) and could not answer its runner (vitest's "Timeout
 * calling onTaskUpdate"). After `timeoutMs` the command is sent SIGTERM and its output no
 * longer read, as spawnSync did.
 *
 * `code` is the exit status, or -1 when the command ended by a signal, was still running at the
 * timeout or could not be started. Its stdin is /dev/null: not a terminal and at its end at once,
 * as spawnSync's pipe was, so a command that would ask a question does not wait for an answer.
 */
export function runCliBinary(
  argv: readonly string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...argv], {
      cwd: opts.cwd,
      env: opts.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let exited = false;
    let killed = false;
    let failed: Error | undefined;
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    child.on('exit', () => (exited = true));
    // Not started (or not killable); 'close' follows.
    child.on('error', (err) => (failed = err));
    // Stop reading too, so that a process the command left holding its output (one it started in
    // the background) does not keep us waiting after the command.
    const timer = setTimeout(() => {
      killed = !exited;
      child.kill('SIGTERM');
      child.stdout.destroy();
      child.stderr.destroy();
    }, opts.timeoutMs ?? 90_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (failed !== undefined) resolve({ code: -1, stdout, stderr: `${stderr}${failed.message}\n` });
      else resolve({ code: killed ? -1 : (code ?? -1), stdout, stderr });
    });
  });
}
