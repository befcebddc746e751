/**
 * A run whose LLM evaluations or prompt states use an API provider needs that provider's key on
 * its worker. The worker sees this command's environment (host/run-env.ts), so a key variable
 * that is not set here would only fail at the first call, maybe hours in: refuse before the run
 * starts (`run`) or continues (`resume`).
 */
import { llmJudged } from '../../fsm/evaluate-state.js';
import { requiredKeys } from '../../fsm/llm-provider.js';
import type { LoopDefinition } from '../../fsm/schema.js';
import { CliError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';

/** Throws a CliError naming the first key variable the run needs that `env` does not set. */
export function checkProviderKeys(
  def: LoopDefinition,
  env: NodeJS.ProcessEnv,
  command: 'run' | 'resume' = 'run',
): void {
  const missing = requiredKeys(def, llmJudged(def)).filter((k) => !env[k.variable]);
  const first = missing[0];
  if (first === undefined) return;
  const more =
    missing.length > 1
      ? ` (and ${missing
          .slice(1)
          .map((k) => k.variable)
          .join(', ')})`
      : '';
  const use = first.role === 'prompt' ? 'runs its prompt through' : 'is judged by';
  throw new CliError(
    `loop ${def.name}: state "${first.state}" ${use} the ${first.provider} API, but ${first.variable} is not set${more}; nothing was ${command === 'run' ? 'run' : 'resumed'}`,
    `export ${first.variable}=<your key> and ${command} again (the worker reads it when it asks; it is never stored in the run's history), or name another variable with llm.api_key_env`,
    EXIT.usage,
  );
}
