/**
 * The environment a run's actions see. A checkout's worker outlives the command that started a
 * run, so its own environment is whatever the first command had; users expect
 * `FOO=bar ll-loop run x` to give the run `${env.FOO}` = bar. The command therefore leaves its
 * environment for the worker in a file only the user can read, outside the checkout (never in
 * Temporal history, never under `.loops/`), keyed by the run's id; the worker reads it when it
 * runs the run's actions (and its sub-loops'), and removes it when the run ends.
 *
 * The file holds every variable of the caller, secrets included, so it must not outlive the run:
 * the command removes it when the run does not start or is refused (scope busy, removed from its
 * queue), the worker when the run ends, and a worker sweeps the files of runs that are over
 * (worker/run-env-sweep.ts). The file records the Temporal server the run was started on, so a
 * worker of another server never judges it.
 *
 * A run without a file of its own or of an ancestor takes its schedule's (host/schedule-env.ts),
 * else the worker's minimal environment, never all of the worker's (activities/action-env.ts).
 */
import { chmodSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** `LL_STATE_DIR`, else `$XDG_STATE_HOME/ll-loop`, else `~/.local/state/ll-loop`. */
export function stateDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.LL_STATE_DIR) return env.LL_STATE_DIR;
  return join(env.XDG_STATE_HOME || join(homedir(), '.local', 'state'), 'll-loop');
}

export function runEnvDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(stateDir(env), 'run-env');
}

function fileOf(workflowId: string, env: NodeJS.ProcessEnv): string {
  return join(runEnvDir(env), `${encodeURIComponent(workflowId)}.json`);
}

/** The run id a file of {@link runEnvDir} belongs to, or undefined for another file. */
export function runIdOfFile(name: string): string | undefined {
  if (!name.endsWith('.json')) return undefined;
  try {
    return decodeURIComponent(name.slice(0, -'.json'.length));
  } catch {
    return undefined;
  }
}

/** How a run's file names the server it was started on. */
export function serverKey(address: string, namespace: string): string {
  return `${address}/${namespace}`;
}

/** Marks the current format; a file without it (older releases) is the bare variables. */
const FORMAT_KEY = 'll_loop_run_env';

/** A run's environment file: the variables and the server (`address/namespace`) the run was started on. */
interface RunEnvFile {
  [FORMAT_KEY]: 2;
  server?: string;
  /** A schedule's file (host/schedule-env.ts): the schedule's id. */
  schedule?: string;
  env: Record<string, string>;
}

/** The parsed contents of a run's file, in either format. */
export function parseRunEnvFile(text: string): { server?: string; schedule?: string; env: NodeJS.ProcessEnv } {
  const parsed = JSON.parse(text) as Partial<RunEnvFile> & NodeJS.ProcessEnv;
  if (parsed && typeof parsed === 'object' && (parsed as Partial<RunEnvFile>)[FORMAT_KEY] === 2) {
    const f = parsed as RunEnvFile;
    return {
      ...(typeof f.server === 'string' ? { server: f.server } : {}),
      ...(typeof f.schedule === 'string' ? { schedule: f.schedule } : {}),
      env: f.env ?? {},
    };
  }
  return { env: parsed as NodeJS.ProcessEnv };
}

/**
 * Leave `values` for the worker that runs `workflowId` (mode 0600 in a 0700 directory). With
 * `exclusive`, only when no file is there; returns whether it wrote one.
 */
export function writeRunEnv(
  workflowId: string,
  values: NodeJS.ProcessEnv,
  opts: { exclusive?: boolean; server?: string } = {},
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  return writeEnvFile(fileOf(workflowId, env), values, opts);
}

/** Writes an environment file at `path` (mode 0600; its directory made 0700). See {@link writeRunEnv}. */
export function writeEnvFile(
  path: string,
  values: NodeJS.ProcessEnv,
  opts: { exclusive?: boolean; server?: string; schedule?: string } = {},
): boolean {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const defined: Record<string, string> = {};
  for (const [k, v] of Object.entries(values)) if (v !== undefined) defined[k] = v;
  const file: RunEnvFile = {
    [FORMAT_KEY]: 2,
    ...(opts.server ? { server: opts.server } : {}),
    ...(opts.schedule ? { schedule: opts.schedule } : {}),
    env: defined,
  };
  try {
    writeFileSync(path, JSON.stringify(file), { mode: 0o600, flag: opts.exclusive ? 'wx' : 'w' });
    return true;
  } catch (err) {
    if (opts.exclusive && (err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

export function removeRunEnv(workflowId: string, env: NodeJS.ProcessEnv = process.env): void {
  rmSync(fileOf(workflowId, env), { force: true });
}

const cache = new Map<string, { mtimeMs: number; values: NodeJS.ProcessEnv }>();

/**
 * The environment left for `workflowId` or, for a sub-loop (`<parent>.<state>.<step>`), for the
 * nearest ancestor run that has one. Undefined when none has.
 */
export function runEnvFor(workflowId: string, env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv | undefined {
  // A sub-loop's id adds `.<state>.<step>` to its parent's, a fan-out item's `.<state>.<step>.<index>`
  // (workflows/run-child.ts, run-fanout.ts), and either nests: the nearest run above with a file
  // is the one whose command started them all. One segment at a time, so both are found.
  for (let id = workflowId; ; id = id.slice(0, id.lastIndexOf('.'))) {
    const found = readEnvFile(fileOf(id, env));
    if (found) return found;
    if (!id.includes('.')) return undefined;
  }
}

/** The variables of the environment file at `path` (cached while it is unchanged); undefined when there is none. */
export function readEnvFile(path: string): NodeJS.ProcessEnv | undefined {
  let mtimeMs: number;
  try {
    mtimeMs = statSync(path).mtimeMs;
  } catch {
    cache.delete(path);
    return undefined;
  }
  const hit = cache.get(path);
  if (hit?.mtimeMs === mtimeMs) return hit.values;
  try {
    const values = parseRunEnvFile(readFileSync(path, 'utf8')).env;
    cache.set(path, { mtimeMs, values });
    return values;
  } catch {
    return undefined;
  }
}
