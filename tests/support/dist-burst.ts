/**
 * The e2e tier's way to the compiled activities (dist/): the action spawner's entry is compiled
 * JavaScript, so these tests import the built modules, typed as their sources. And a burst's input
 * for a loop's first action, built with the compiled core.
 */
import { join } from 'node:path';
import type { RunBurstInput } from '../../workflows/activity-types.js';
import type { BurstControl as Control } from '../../activities/burst-loop.js';
import type { JournaledAction } from '../../activities/action-journal.js';
import type { BurstFact } from '../../fsm/run/burst.js';

export const DIST = join(import.meta.dirname, '..', '..', 'dist');

/** The compiled module at `path` under dist/ (typed by the caller as its source's). */
export const fromDist = <M>(path: string): Promise<M> => import(join(DIST, path)) as Promise<M>;

const { validateLoop } =
  await fromDist<typeof import('../../fsm/definition/validate.js')>('fsm/definition/validate.js');
const { transition } = await fromDist<typeof import('../../fsm/run/transition.js')>('fsm/run/transition.js');

/** A burst of `loop`'s first action on (`loop` as in a YAML file), with `action`'s run fields. */
export function burstInputOf(
  loop: Record<string, unknown>,
  action: RunBurstInput['action'],
  extra: Partial<RunBurstInput> = {},
): RunBurstInput {
  const { definition: def, diagnostics } = validateLoop(loop);
  if (def === undefined) throw new Error(`invalid test loop: ${JSON.stringify(diagnostics)}`);
  const start = transition(def, null, { type: 'start', now: Date.now() });
  if (start.effect.type !== 'run_action' || start.snapshot.status !== 'running') throw new Error('no first action');
  return {
    definition: def,
    snapshot: start.snapshot,
    first: start.effect.input,
    action,
    bounds: { maxActions: 100, maxMs: 10_000, localMaxS: 30 },
    now: Date.now(),
    ...extra,
  };
}

export const { ActionSpawner } =
  await fromDist<typeof import('../../activities/action-spawner.js')>('activities/action-spawner.js');
export const { BurstControl, runBurstLoop } =
  await fromDist<typeof import('../../activities/burst-loop.js')>('activities/burst-loop.js');
const { runShellAction } =
  await fromDist<typeof import('../../activities/shell-action.js')>('activities/shell-action.js');
const { runProcess } = await fromDist<typeof import('../../activities/process.js')>('activities/process.js');

/** A burst run in the worker itself, as the activity runs one when there is no spawner; its actions see only PATH. */
export const burstInWorker = (
  input: RunBurstInput,
  control: Control,
  onFact: (fact: BurstFact, state: string) => void,
  journaled: JournaledAction[] = [],
): ReturnType<typeof runBurstLoop> =>
  runBurstLoop(
    input,
    (action, stop) => runShellAction(action, { PATH: process.env.PATH ?? '' }, runProcess, { signal: stop }),
    control,
    onFact,
    journaled,
  );
