/**
 * `ll-loop` in tests, two ways: in process through the CLI's own `main` (same parser, command
 * table and error policy as the bin, no process to spawn), or the built binary as a user runs it.
 */
import { spawnSync } from 'node:child_process';
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
 */
export async function runCliInProcess(argv: readonly string[], opts: { cwd: string }): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await main([...argv], {
    cwd: opts.cwd,
    stdout: { write: (text: string) => void (stdout += text) },
    stderr: { write: (text: string) => void (stderr += text) },
  });
  return { code, stdout, stderr };
}

/** `ll-loop <argv…>` as a child process of the built binary, waited for (at most `timeoutMs`). */
export function runCliBinary(
  argv: readonly string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number },
): CliResult {
  const r = spawnSync(process.execPath, [BIN, ...argv], {
    cwd: opts.cwd,
    env: opts.env,
    encoding: 'utf8',
    timeout: opts.timeoutMs ?? 90_000,
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}
