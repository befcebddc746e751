/**
 * Where a run's live action output is (activities/live-output.ts), for readers outside the
 * activities: `<cwd>/.loops/.running/<run>/<step>-<state>.live.log` while the action runs.
 */
import { dirname } from 'node:path';
import { fileSafe, runningLogPath } from '../activities/run-action.js';
import { LIVE_SUFFIX } from '../activities/live-output.js';

/** The directory the run's action outputs are written to. */
export function actionOutputDir(cwd: string, instanceId: string): string {
  return dirname(runningLogPath(cwd, instanceId, 'x.log'));
}

/** The live file's name ends with this for an action of `state` (its name starts with the step). */
export function liveSuffixOf(state: string): string {
  return `-${fileSafe(state)}${LIVE_SUFFIX}`;
}
