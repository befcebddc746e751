/**
 * Default fix actions: a prompt for the host CLI that names the failing command, so the agent can
 * run it, read what it reports and fix that. Written without `${…}` so nothing in them is
 * interpolated by the loop engine.
 */
import { prompt, type ActionSpec } from './actions.js';

/** What a check finds: picks the wording of its default fix and its label. */
export type CheckTopic = 'types' | 'lint' | 'tests' | 'vet' | 'other';

const WHAT_TO_FIX: Record<CheckTopic, string> = {
  types: 'the type errors it reports',
  lint: 'the lint errors it reports',
  tests: 'the tests that fail (fix the code under test, not the tests, unless a test is wrong)',
  vet: 'the problems it reports',
  other: 'what makes it fail',
};

/** e.g. "Run `npx tsc --noEmit` and fix the type errors it reports. Change only what is needed." */
export function defaultFix(topic: CheckTopic, command: string): ActionSpec {
  return prompt(`Run \`${command}\` and fix ${WHAT_TO_FIX[topic]}. Change only what is needed.`);
}

/** The metric loop's default improvement step. */
export function defaultImprove(measure: string, direction: 'minimize' | 'maximize', target: number): ActionSpec {
  const way = direction === 'minimize' ? 'lower' : 'higher';
  return prompt(
    `Run \`${measure}\`: it prints a number that should get ${way} (target ${target}). Make one focused change that moves it toward the target.`,
  );
}
