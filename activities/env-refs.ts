import type { EnvRef } from '../fsm/types.js';
import { isMinimalEnv } from './action-env.js';

/**
 * A `${env.NAME}` without default whose variable is not set in its run's environment. `minimal`:
 * the run had no environment of its own (activities/action-env.ts), which the message says.
 */
export class UndefinedEnvError extends Error {
  override readonly name = 'UndefinedEnvError';
  constructor(
    readonly variable: string,
    readonly state: string,
    minimal = false,
  ) {
    super(
      `environment variable ${variable} is not set for this run (used as \${env.${variable}} in state ${state}); ` +
        (minimal
          ? `this run has no environment of its own here (no file of its command or schedule on this machine), so it sees only the worker's minimal one: start it, or make its schedule, from a command that has ${variable}, or write \${env.${variable}:-default}`
          : `set it where you run ll-loop run (a run sees its command's environment), or write \${env.${variable}:-default}`),
    );
  }
}

/**
 * Looks up one reference in its run's environment (activities/action-env.ts).
 * Rules (seed semantics): unset or empty with a default → the default; set (even empty) without a
 * default → its value; unset without a default → {@link UndefinedEnvError}.
 */
export function resolveEnvRef(ref: EnvRef, state: string, processEnv: NodeJS.ProcessEnv = process.env): string {
  const value = processEnv[ref.name];
  if ((value === undefined || value === '') && ref.default !== undefined) return ref.default;
  if (value === undefined) throw new UndefinedEnvError(ref.name, state, isMinimalEnv(processEnv));
  return value;
}

/**
 * Resolves every reference of `env` (keys are the names the script sees, e.g. `LL_E1`).
 * Values are read here, on the worker, so secrets never enter workflow history.
 * @throws UndefinedEnvError for the first reference that cannot be resolved.
 */
export function resolveEnvRefs(
  env: Record<string, EnvRef>,
  state: string,
  processEnv: NodeJS.ProcessEnv = process.env,
): { values: Record<string, string> } {
  const values: Record<string, string> = {};
  for (const [key, ref] of Object.entries(env)) values[key] = resolveEnvRef(ref, state, processEnv);
  return { values };
}

/**
 * The values to mask in an action's output: those of the variables it references itself (`own`
 * names) and of every variable the loop references anywhere (`loopNames`, from the workflow:
 * RunActionInput `mask_env`), as set on the worker. Defaults (`${env.X:-dflt}`) are written in the
 * loop file, not secrets: not masked. Masking and its length threshold: secret-mask.ts.
 */
export function secretValues(
  own: Iterable<string>,
  loopNames: readonly string[] | undefined,
  processEnv: NodeJS.ProcessEnv = process.env,
): string[] {
  const out: string[] = [];
  for (const name of [...own, ...(loopNames ?? [])]) {
    const v = processEnv[name];
    if (v !== undefined && v !== '') out.push(v);
  }
  return out;
}
