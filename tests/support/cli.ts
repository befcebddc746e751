/**
 * `ll-loop` in tests, two ways: in process through the CLI's own `main` (same parser, command
 * table and error policy as the bin, no process to spawn), or the built binary as a user runs it.
 */
import { fork, type ChildProcess } from 'node:child_process';
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
 * `ll-loop <argv…>` as a process of the built binary, waited for without blocking this process:
 * a test fork blocked in spawnSync for a command's duration starved the file's other tests
 * (their polls, connections, timers) and could not answer its runner (vitest's "Timeout calling
 * onTaskUpdate"). After `timeoutMs` (default 90 s) the command is sent SIGTERM and its output no
 * longer read, as spawnSync did.
 *
 * Started by this process's command spawner (tests/support/command-spawner.cjs, which says why),
 * not by this process itself.
 *
 * `code` is the exit status, or -1 when the command ended by a signal, was still running at the
 * timeout or could not be started. Its stdin is /dev/null: not a terminal and at its end at once,
 * as spawnSync's pipe was, so a command that would ask a question does not wait for an answer.
 */
export function runCliBinary(
  argv: readonly string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<CliResult> {
  return spawned({
    file: process.execPath,
    args: [BIN, ...argv],
    cwd: opts.cwd,
    env: opts.env,
    timeoutMs: opts.timeoutMs ?? 90_000,
  });
}

interface SpawnRequest {
  file: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
}

const SPAWNER = join(import.meta.dirname, 'command-spawner.cjs');

/** This process's command spawner and the replies it owes, by request id. */
let spawner: ChildProcess | undefined;
const waiting = new Map<number, { resolve: (r: CliResult) => void; by: ChildProcess }>();
let nextId = 0;

/** Hand `request` to the command spawner (forked on first use, again if it died); resolve with its reply. */
function spawned(request: SpawnRequest): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = commandSpawner();
    const id = (nextId += 1);
    waiting.set(id, { resolve, by: child });
    // Held while it owes a reply, let go when it owes none: it never keeps this process alive by itself.
    child.ref();
    child.channel?.ref();
    child.send({ id, ...request }, (err) => {
      if (err)
        settle(id, { code: -1, stdout: '', stderr: `the command spawner refused the command: ${err.message}\n` });
    });
  });
}

function settle(id: number, result: CliResult): void {
  const entry = waiting.get(id);
  if (entry === undefined) return;
  waiting.delete(id);
  entry.resolve(result);
  if (waiting.size === 0 && spawner !== undefined) {
    spawner.unref();
    spawner.channel?.unref();
  }
}

function commandSpawner(): ChildProcess {
  if (spawner?.connected) return spawner;
  const child = fork(SPAWNER, [], { execArgv: ['--max-semi-space-size=1'], stdio: 'ignore' });
  spawner = child;
  child.on('message', (m: CliResult & { id: number }) =>
    settle(m.id, { code: m.code, stdout: m.stdout, stderr: m.stderr }),
  );
  child.on('exit', () => {
    if (spawner === child) spawner = undefined;
    for (const [id, { by }] of [...waiting]) {
      if (by === child) settle(id, { code: -1, stdout: '', stderr: 'the command spawner died\n' });
    }
  });
  return child;
}
