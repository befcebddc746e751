/**
 * The `each` kind of `ll-loop create`: a command lists items (one per line), a parallel state runs
 * a loop for each of them, at most `max_workers` at once, and the join routes to `done` when all
 * succeeded, `some_failed` when some did (a terminal that reads as a partial success), `failed`
 * when none did. No paradigm of seed 000 has a fan-out, so the FSM is written directly.
 */
import { loadLoop, resolveLoopFile } from '../../loader/load.js';
import type { AnswersOf } from './answers.js';

/**
 * The parameter of `loop` that receives each item: its first required parameter, else its first;
 * undefined when it takes none (or cannot be read: `validate` then says why).
 */
function itemParameter(loop: string, cwd: string): string | undefined {
  let parameters: Record<string, { required?: boolean }> | undefined;
  try {
    resolveLoopFile(loop, cwd);
    parameters = loadLoop(loop, cwd).definition?.parameters as typeof parameters;
  } catch {
    return undefined;
  }
  const names = Object.keys(parameters ?? {});
  return names.find((n) => parameters![n]!.required === true) ?? names[0];
}

/** The FSM of an `each` loop. */
export function eachLoop(a: AnswersOf<'each'>, cwd: string): Record<string, unknown> {
  const param = itemParameter(a.loop, cwd);
  return {
    name: a.name,
    description: `Run ${a.loop} for each line \`${a.items}\` prints, ${a.maxWorkers} at once.`,
    initial: 'list',
    max_iterations: a.maxAttempts,
    states: {
      list: { action: a.items, action_type: 'shell', capture: 'items', on_yes: 'each', on_no: 'failed' },
      each: {
        parallel: {
          items: '${captured.items.output}',
          items_from: 'lines',
          loop: a.loop,
          ...(param === undefined ? {} : { with: { [param]: '${item}' } }),
          max_workers: a.maxWorkers,
          ...(a.isolation === 'worktree' ? { isolation: 'worktree' } : {}),
        },
        on_yes: 'done',
        on_partial: 'some_failed',
        on_no: 'failed',
      },
      done: { terminal: true },
      some_failed: { terminal: true, failure: true },
      failed: { terminal: true, failure: true },
    },
  };
}
