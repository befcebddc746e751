/**
 * Running the service managers (`systemctl`, `launchctl`): found on the `PATH` of the environment
 * we were given (so tests can hide or fake them), run with an argument array (never a shell
 * string) and a timeout, their output captured. A program that is missing, times out or exits
 * non-zero is a result, not an exception: the callers explain it.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

/** The absolute path of `name` on `env.PATH`, or undefined. */
export function findProgram(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue;
    const path = join(dir, name);
    try {
      accessSync(path, constants.X_OK);
      if (statSync(path).isFile()) return path;
    } catch {
      // Not there, or not executable: the next directory.
    }
  }
  return undefined;
}

export interface ProgramResult {
  ok: boolean;
  /** Exit code; null when killed (timeout) or not started. */
  code: number | null;
  stdout: string;
  stderr: string;
  /** Why it failed, in one line (stderr's last line, the timeout, the spawn error). */
  why: string;
}

/** Run `file args…` with `env`, at most `timeoutMs`. Never rejects. */
export function runProgram(
  file: string,
  args: readonly string[],
  opts: { env: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<ProgramResult> {
  const timeoutMs = opts.timeoutMs ?? 20_000;
  return new Promise((resolve) => {
    execFile(
      file,
      [...args],
      { env: opts.env, timeout: timeoutMs, killSignal: 'SIGKILL', encoding: 'utf8', maxBuffer: 4 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (!error) return resolve({ ok: true, code: 0, stdout, stderr, why: '' });
        const e = error as NodeJS.ErrnoException & { code?: number | string; killed?: boolean };
        const lastLine = stderr.trim().split('\n').pop()?.trim() || stdout.trim().split('\n').pop()?.trim() || '';
        const why = e.killed
          ? `timed out after ${Math.round(timeoutMs / 1000)} s`
          : typeof e.code === 'number'
            ? lastLine || `exit code ${e.code}`
            : `${e.code ?? ''} ${e.message}`.trim();
        resolve({ ok: false, code: typeof e.code === 'number' ? e.code : null, stdout, stderr, why });
      },
    );
  });
}
