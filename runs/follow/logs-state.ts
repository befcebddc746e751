/**
 * `logs --state S` names a state of the run (or of a sub-loop it ran): a name that is none of
 * them is refused with the states there are and the closest one, instead of printing nothing.
 */
import type { Client } from '@temporalio/client';
import { didYouMean } from '../../fsm/suggest.js';
import type { LoopDefinition } from '../../fsm/schema.js';
import type { LoopWorkflowInput } from '../../workflows/definitions.js';
import { UsageError } from '../../errors/errors.js';
import { decodeFirst } from '../find/temporal-history.js';

/** The definition run `id` started with (its history's first event). */
export async function runDefinition(client: Client, id: string): Promise<LoopDefinition | undefined> {
  const response = await client.workflowService.getWorkflowExecutionHistory({
    namespace: client.options.namespace,
    execution: { workflowId: id },
    maximumPageSize: 1,
  });
  const started = response.history?.events?.[0]?.workflowExecutionStartedEventAttributes;
  return started ? decodeFirst<LoopWorkflowInput>(started.input)?.definition : undefined;
}

/** The state `given` most likely meant: the one it is a prefix of, else the nearest by spelling. */
function suggestion(given: string, known: readonly string[]): string {
  const prefixed = known.filter((k) => k.startsWith(given));
  if (prefixed.length === 1) return ` (did you mean "${prefixed[0]}"?)`;
  return didYouMean(given, known);
}

/** Whether the loop runs other loops (a `loop:` or `parallel:` state), whose states it cannot list. */
export function runsSubloops(definition: LoopDefinition): boolean {
  return Object.values(definition.states).some((s) => s.loop !== undefined || s.parallel !== undefined);
}

/**
 * The refusal of `--state given` for run `id` when it is none of `known` (the run's states and
 * those its sub-loops' actions ran in); undefined when it is one of them.
 */
export function unknownState(id: string, given: string, known: Iterable<string>): UsageError | undefined {
  const states = [...new Set(known)];
  if (states.includes(given)) return undefined;
  return new UsageError(
    `run ${id} has no state "${given}"${suggestion(given, states)}`,
    `--state takes one of its states: ${states.sort().join(', ')}`,
  );
}
