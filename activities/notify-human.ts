/**
 * `notifyHuman`: the worker's side of a human state's `notify:` hook (or the worker's `LL_NOTIFY`
 * when the state and the loop give none). The hook is a bash command; `${prompt}`, `${run_id}`,
 * `${state}` and `${command}` in it stand for the question, the run, the state and the command
 * that answers, passed as data (never spliced as code, whatever quoting they appear in: the same
 * rendering as shell actions, fsm/shell-render.ts); the same values are in `$LL_PROMPT`,
 * `$LL_RUN_ID`, `$LL_STATE` and `$LL_ANSWER_COMMAND`. A hook that fails is reported, never thrown:
 * a failed notification must not fail the run.
 */
import { execa } from 'execa';
import { renderShell } from '../fsm/shell-render.js';
import type { InterpolationScope } from '../fsm/interpolate.js';
import type { NotifyHumanInput } from '../workflows/activity-types.js';
import { currentContext, definedEnv, injectedEnv, type ActivityDeps } from './run-action.js';

/** How long a hook may run. */
const NOTIFY_TIMEOUT_MS = 60_000;
const HOOK = '__ll_human';

/** The hook with its placeholders as data references, ready for bash. */
function renderNotify(
  command: string,
  input: NotifyHumanInput,
  runEnv: NodeJS.ProcessEnv = process.env,
): { script: string; vars: Record<string, string> } {
  const aliased = command.replace(
    /\$\{(prompt|run_id|state|command)\}/g,
    (_match, name: string) => `\${captured.${HOOK}.${name}}`,
  );
  const values = { prompt: input.prompt, run_id: input.runId, state: input.state, command: input.answer };
  const scope: InterpolationScope = {
    context: {},
    captured: { [HOOK]: values as never },
    prev: null,
    result: null,
    state: { name: input.state, iteration: 0 },
    loop: { name: '', started_at: '', elapsed_ms: 0, elapsed: '' },
  };
  const rendered = renderShell(aliased, scope);
  const env: Record<string, string> = {};
  for (const [name, ref] of Object.entries(rendered.env)) env[name] = runEnv[ref.name] ?? ref.default ?? '';
  return { script: rendered.script, vars: { ...rendered.vars, ...env } };
}

/**
 * `workerEnv`: where `LL_NOTIFY` is read (the worker's setting); the hook itself runs with its
 * run's environment (activities/action-env.ts), which its `${env.*}` reads too.
 */
export function makeNotifyHuman(workerEnv: NodeJS.ProcessEnv = process.env, deps: ActivityDeps = {}) {
  return async (input: NotifyHumanInput): Promise<{ ran: boolean; exit_code?: number; error?: string }> => {
    const command = input.command ?? workerEnv.LL_NOTIFY;
    if (command === undefined || command.trim() === '') return { ran: false };
    const run = currentContext()?.info.workflowExecution?.workflowId ?? input.runId;
    const runEnv = injectedEnv(deps, run) ?? process.env;
    try {
      const { script, vars } = renderNotify(command, input, runEnv);
      const r = await execa('bash', ['-c', script], {
        cwd: input.cwd,
        extendEnv: false,
        env: {
          ...definedEnv(runEnv),
          ...vars,
          LL_PROMPT: input.prompt,
          LL_RUN_ID: input.runId,
          LL_STATE: input.state,
          LL_ANSWER_COMMAND: input.answer,
        },
        reject: false,
        timeout: NOTIFY_TIMEOUT_MS,
        stdin: 'ignore',
      });
      return r.exitCode === 0
        ? { ran: true, exit_code: 0 }
        : { ran: true, exit_code: r.exitCode ?? -1, error: r.stderr.slice(-500) };
    } catch (err) {
      return { ran: false, error: err instanceof Error ? err.message : String(err) };
    }
  };
}
