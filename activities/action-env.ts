/**
 * The environment of every process a run starts — its shell actions, its prompts' host CLI, its
 * LLM judgements by the host CLI, its MCP servers, its human states' notification hooks — and the
 * one its `${env.*}`, host CLI settings and API keys are read from: the run's own, never the
 * worker's.
 *
 * A worker serves every run of its checkout (or queue, or pool), and its own environment is that
 * of whichever command started it: handing it on gave one shell's secrets to another shell's runs
 * (and, once printed, to their history in clear: masking covers only the variables a loop names).
 * A run's environment is, first found:
 * - its file or its nearest ancestor's (host/run-env.ts): the command that started, resumed or
 *   reran it;
 * - its schedule's file (host/schedule-env.ts): the command that made the schedule;
 * - else the worker's minimal environment ({@link MINIMAL_ENV_NAMES}, plus
 *   `LL_RUN_ENV=minimal`): a run whose file is gone (swept) or was never on this machine (a
 *   portable pool run elsewhere). The worker logs it once per run, and an unset `${env.X}` says
 *   why (env-refs.ts).
 * A process gets exactly that, plus the variables ll-loop sets for it (`LL_V<n>`/`LL_E<n>`,
 * `LL_HANDOFF_THRESHOLD`, a hook's `LL_PROMPT`…).
 */
import { runEnvFor } from '../host/run-env.js';
import { scheduleEnvFor } from '../host/schedule-env.js';

/**
 * What a run without an environment of its own gets from the worker's: where programs are, whose
 * home, which user, shell, language and time zone, where temporary files go. Nothing that is
 * anyone's secret.
 */
const MINIMAL_ENV_NAMES = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LANGUAGE', 'TZ', 'TMPDIR'];

/** Set in the minimal environment (and only there): the run has no environment of its own. */
const MINIMAL_ENV_MARK = 'LL_RUN_ENV';

/** The worker's minimal environment: {@link MINIMAL_ENV_NAMES} and `LC_*` of `env`, marked. */
export function minimalEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env))
    if (value !== undefined && (MINIMAL_ENV_NAMES.includes(name) || name.startsWith('LC_'))) out[name] = value;
  out[MINIMAL_ENV_MARK] = 'minimal';
  return out;
}

/** Whether `env` is a worker's minimal environment (the run had none of its own). */
export function isMinimalEnv(env: NodeJS.ProcessEnv): boolean {
  return env[MINIMAL_ENV_MARK] === 'minimal';
}

export interface RunEnvSourceOptions {
  /** This worker's server (serverKey: `address/namespace`), where schedules' files are found; unset: none are. */
  server?: string;
  /** The worker's environment: its state directory, and its minimal environment. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Told once per run that has no environment of its own (a worker logs {@link minimalEnvNote}). */
  onMinimal?: (workflowId: string, env: NodeJS.ProcessEnv) => void;
}

/** Runs already logged as having no environment of their own (bounded: a long-lived worker). */
const NOTED_MAX = 1000;

/** The environment of run `workflowId`'s processes, by the rules above: always one. */
export function runEnvSource(opts: RunEnvSourceOptions = {}): (workflowId: string) => NodeJS.ProcessEnv {
  const workerEnv = opts.env ?? process.env;
  const noted = new Set<string>();
  const onMinimal = opts.onMinimal ?? (() => undefined);
  return (workflowId) => {
    const own = runEnvFor(workflowId, workerEnv);
    if (own !== undefined) return own;
    const scheduled = opts.server === undefined ? undefined : scheduleEnvFor(workflowId, opts.server, workerEnv);
    if (scheduled !== undefined) return scheduled;
    const env = minimalEnv(workerEnv);
    if (!noted.has(workflowId)) {
      if (noted.size >= NOTED_MAX) noted.clear();
      noted.add(workflowId);
      onMinimal(workflowId, env);
    }
    return env;
  };
}

/** What a worker logs of a run that has no environment of its own. */
export function minimalEnvNote(workflowId: string, env: NodeJS.ProcessEnv): string {
  const names = Object.keys(env).filter((n) => n !== MINIMAL_ENV_MARK);
  return (
    `run ${workflowId} has no environment file (the command that started it, or its schedule, left none on this machine, or it was swept): ` +
    `its actions see the worker's minimal environment only (${names.join(', ') || 'nothing'}; ${MINIMAL_ENV_MARK}=minimal)`
  );
}
